// Driver "binary": two operands of exactly equal shape, no broadcasting
// (the reference's assert_same_shape); output element i reads a[i] and b[i].
#include "drivers/shrinking.h"
#include "drivers/pairwise.h"
#include "generators/invalid.h"

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
