// What the data-movement drivers share (shape_view, reorder, select_along,
// concat, masking, padding, gather, pooling): every output element is one
// input element, copied, or a fill constant, found by the driver's own
// index model (written here, apart from kernels/, so that a kernel's index
// bug cannot grade itself); graded bit for bit through the entry's Scalar
// oracle (identity). A driver names the kernels it models (a `mode` each)
// and says, per output element, where it comes from.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "drivers/driver.h"

namespace kc::drivers {

// Where one output element comes from: input `operand`'s element `index`,
// or (operand < 0) the fill constant `fill`, a value of the output dtype.
struct Source {
  int operand = 0;
  std::int64_t index = 0;
  double fill = 0;
  std::string_view fill_name = {};  // "the pad value", "zero (T::default())"
  static Source of(int operand, std::int64_t index) { return {operand, index}; }
  static Source constant(double v, std::string_view name) { return {-1, 0, v, name}; }
};

class Movement : public Driver {
 public:
  std::string check_entry(const contract::KernelSpec& k) const override;
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override;
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override;

 protected:
  // The kernels this driver models, each with its mode (an index into the
  // driver's own models); check_entry refuses any other.
  virtual const std::map<std::string_view, int>& modes() const = 0;
  int mode_of(const contract::KernelSpec& k) const { return modes().at(k.name); }
  // Output element o of case c.
  virtual Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const = 0;
  // The operands whose elements travel (index and mask operands do not: they are shown as where, not as values).
  virtual std::size_t data_operands(const contract::KernelSpec& k) const { return k.inputs.size(); }
};

// Coordinates of flat index i in row-major dims d, innermost first, one
// axis at a time (drivers/index_maps.h's style), and back.
std::vector<std::int64_t> coords_of(const Dims& d, std::int64_t i);
std::int64_t flat_of(const Dims& d, const std::vector<std::int64_t>& coords);

// Every special value and threshold of the entry as a [v, 2] tensor
// (the second column the value's neighbour bits): a sweep that carries NaN
// payloads, signalling NaNs and -0 through a mover (u32: none).
std::optional<Tensor> special_matrix(const contract::KernelSpec& k, DType t);

// A case with one data tensor of dims d (entry values), plus params.
rc::Gen<gen::Case> data_case(const contract::KernelSpec& k, DType t, const Dims& d, Params p);

// The valid case with `dim` past input 0's rank by `index` (+ `extra`):
// rule dim.out_of_range (extra 1 where dim may equal the rank: unsqueeze).
gen::Case dim_past_rank(const gen::Case& valid, std::uint64_t index, std::int64_t extra = 0);

// Halves of each axis of size > 1 of input `input` (the other inputs and
// the parameters stay): the shrink candidates of a mover whose parameters
// stay valid under a cut of that axis.
std::vector<gen::Case> halves(const gen::Case& c, std::size_t input, std::vector<std::size_t> axes = {});

}  // namespace kc::drivers
