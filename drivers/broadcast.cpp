// Driver "broadcast": NumPy broadcasting of a and b (right-aligned, leading
// 1s, a size-1 dim reads coordinate 0); output element o reads the source
// elements drivers/index_maps.h finds for it, independently of the kernels'
// own index code.
#include <stdexcept>

#include <fmt/format.h>

#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "drivers/index_maps.h"
#include "drivers/pairwise.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class Broadcast final : public Pairwise {
 public:
  std::string_view name() const override { return "broadcast"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one output of the NumPy broadcast shape of a and b, same dtype";
  }
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return pair_case(k, t, true);
  }
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = expected_output(k, c).dims(), .inputs = {0, 1}}, false);
  }

  // The main axis: a row's (a [2, n] and b [n], a bias added to each row).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{2, n}, {n}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (broadcast_of(s.dims.at(0), s.dims.at(1))) return {};
    return fmt::format("{} and {} do not broadcast", operand_text(k, s, 0), operand_text(k, s, 1));
  }
  // The profile's values (shaped_values, specials included), as the
  // same-shape binary kernels'.
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    std::vector<Tensor> in;
    for (std::size_t i = 0; i < 2; ++i)
      in.push_back(gen::tensor_of(t, s.dims[i], shaped_values(t, k.values, static_cast<std::size_t>(checked_numel(s.dims[i])), seed + i)));
    return gen::Case{std::move(in), shaped_params(k, s, seed), false};
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    const auto out = broadcast_of(c.inputs.at(0).dims(), c.inputs.at(1).dims());
    if (!out) throw std::logic_error("broadcast driver: a generated case has incompatible shapes");
    return {*out, k.out_dtype(c.inputs.at(0).dtype())};
  }
  // Shapes with a pair of dims that are neither equal nor 1.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    if (rule.rule != Rule::broadcast_incompatible) return std::nullopt;
    gen::Case c = valid;
    const DType t = valid.inputs.front().dtype();
    const auto k = static_cast<std::int64_t>(index);
    c.inputs = {gen::zeros(t, {2 + k}), gen::zeros(t, {3 + k})};
    if (index % 2) c.inputs = {gen::zeros(t, {4, 2 + k}), gen::zeros(t, {5 + k, 1})};
    return c;
  }

 protected:
  std::pair<std::int64_t, std::int64_t> sources(const Dims& a, const Dims& b, const Dims& out,
                                                std::int64_t o) const override {
    return {source_of(a, out, o), source_of(b, out, o)};
  }
};

}  // namespace

void register_broadcast(Registry& r) { r.push_back(std::make_unique<Broadcast>()); }

}  // namespace kc::drivers
