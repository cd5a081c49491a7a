// Driver "binary": two operands of exactly equal shape, no broadcasting
// (the reference's assert_same_shape); output element i reads a[i] and b[i].
#include "drivers/pairwise.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class SameShape final : public Pairwise {
 public:
  std::string_view name() const override { return "binary"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one output, same shape and dtype as the input(s)";
  }
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return pair_case(k, t, false);
  }
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0, 1}}, true);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  // The main axis: the elements', a and b [n]; values the profile's
  // (specials too: each output element is its own).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{n}, {n}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override { return same_dims_error(k, s); }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    const auto n = static_cast<std::size_t>(checked_numel(s.dims.at(0)));
    return gen::Case{{gen::tensor_of(t, s.dims[0], shaped_values(t, k.values, n, seed)),
                      gen::tensor_of(t, s.dims[1], shaped_values(t, k.values, n, seed + 1))},
                     shaped_params(k, s, seed), false};
  }

  // b's dims differ from a's: one more dim, or a larger first dim.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    if (rule.rule != Rule::shape_mismatch) return std::nullopt;
    gen::Case c = valid;
    const Tensor& a = valid.inputs.front();
    const auto k = static_cast<std::int64_t>(index);
    Dims d = a.dims();
    if (d.empty() || index % 2) d.push_back(2 + k);
    else d[0] += 1 + k;
    c.inputs.at(1) = gen::zeros(a.dtype(), d);
    return c;
  }

 protected:
  std::pair<std::int64_t, std::int64_t> sources(const Dims&, const Dims&, const Dims&, std::int64_t o) const override {
    return {o, o};
  }
};

}  // namespace

void register_binary(Registry& r) { r.push_back(std::make_unique<SameShape>()); }

}  // namespace kc::drivers
