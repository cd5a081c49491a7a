// Driver "reduce_all": x of any shape folds into one rank-0 output.
#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class ReduceAll final : public Driver {
 public:
  std::string_view name() const override { return "reduce_all"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one rank-0 output (shape [], one element), same dtype";
  }
  std::string check_entry(const contract::KernelSpec& k) const override { return check_fold_entry(k, name()); }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(gen::shape(k.inputs[0].min_rank, 6), [&k, t](Dims d) {
      const auto n = static_cast<std::size_t>(checked_numel(d));
      return rc::gen::map(gen::reduction_values(t, k.values, n), [t, d](const std::vector<std::uint64_t>& v) {
        return gen::Case{{gen::tensor_of(t, d, v)}, {}, false};
      });
    });
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0}}, true);
  }

  // Each special value and threshold alone, then twice: one output per
  // case, so the result classes (a subnormal, an overflowing sum, NaN, ...)
  // need a case each to be reached on every seed.
  int sweep_count(const contract::KernelSpec& k, DType t, int) const override {
    return 2 * static_cast<int>(sweep_values(k, t).size());
  }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int index) const override {
    const auto v = sweep_values(k, t);
    const auto n = static_cast<int>(v.size());
    const std::uint64_t b = v[static_cast<std::size_t>(index % n)];
    return gen::Case{{index < n ? gen::tensor_of(t, {1}, {b}) : gen::tensor_of(t, {2}, {b, b})}, {}, false};
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {{}, k.out_dtype(c.inputs.at(0).dtype())};
  }

  // The main axis: x's elements, [n]; values uniform on [-1, 1] (a
  // dropped block of a sum stands out of its bound).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override { return all_given({{n}}); }
  std::string shaped_error(const contract::KernelSpec&, const Shaped&) const override { return {}; }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_case(s, {t}, seed);
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    std::vector<std::int64_t> all(static_cast<std::size_t>(x.numel()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    f(cell_element(context_of(k, c), x, 0, all, "all of x"));
  }

};

}  // namespace

void register_reduce_all(Registry& r) { r.push_back(std::make_unique<ReduceAll>()); }

}  // namespace kc::drivers
