// What the two binary drivers share ("binary": same-shape, "broadcast":
// NumPy broadcasting): two operands a, b of one dtype, one output element per
// pair of input elements, an oracle taking a Pair. They differ in the shapes
// they generate, the output shape and which elements pair up.
#pragma once

#include "drivers/driver.h"

namespace kc::drivers {

class Pairwise : public Driver {
 public:
  std::string check_entry(const contract::KernelSpec& k) const override;
  // Sweeps: for the 16-bit dtypes every a against generated b, then every
  // pair of special values; for f32/f64 every pair of special values and thresholds.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override;
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, int index) const override;
  std::optional<gen::Case> element_case(const contract::KernelSpec&, DType t, std::span<const std::uint64_t> bits,
                                        const Params& p) const override;
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override;

 protected:
  // A random case: an output shape, then a's and b's shapes from it (the
  // same-shape driver uses the output shape for both).
  rc::Gen<gen::Case> pair_case(const contract::KernelSpec& k, DType t, bool broadcast) const;
  // The flat indices of a and b that output element o of `out` reads.
  virtual std::pair<std::int64_t, std::int64_t> sources(const Dims& a, const Dims& b, const Dims& out,
                                                        std::int64_t o) const = 0;
};

}  // namespace kc::drivers
