// Driver "reduce_to": x folds into a broadcast-compatible target shape (the
// inverse of broadcast_to: right-aligned, size-1 target dims collapse);
// target cell c folds its source elements in increasing source order
// (reduce_sum_to, reduce_max_to).
#include <fmt/format.h>

#include "drivers/shrinking.h"
#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "drivers/index_maps.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class ReduceTo final : public Driver {
 public:
  std::string_view name() const override { return "reduce_to"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one output of shape `target`, same dtype";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_param(k, "target", contract::ParamKind::shape); !e.empty()) return e;
    return check_fold_entry(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(gen::shape(k.inputs[0].min_rank, 6), [&k, t](Dims d) {
      auto xs = gen::reduction_values(t, k.values, static_cast<std::size_t>(checked_numel(d)));
      return rc::gen::mapcat(gen::compatible_sub_shape(d), [t, d, xs, &k](Dims target) {
        // (The empty second list keeps the generator's shape, hence every
        // seed's case, as it has always been.)
        return rc::gen::apply(
            [t, d, target](const std::vector<std::uint64_t>& v, const std::vector<std::uint64_t>&) {
              return gen::Case{{gen::tensor_of(t, d, v)}, Params().set("target", target), false};
            },
            xs, gen::values_for(t, k.values, 0));
      });
    });
  }

  // Every ordered pair of the special values and thresholds, a target cell each.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    Tensor x = all_pairs(t, sweep_values(k, t));
    const Dims target{x.dims()[0], 1};
    return gen::Case{{std::move(x)}, Params().set("target", target), false};
  }

  // 128 target cells of 48 terms each.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return gen::Case{{gen::tensor_of(t, {48, 128}, statistics_values(t, seed))}, Params().set("target", Dims{128}),
                     false};
  }

  // A target of higher rank than x; a target dim that is neither x's nor 1.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    if (rule.rule == Rule::target_rank) c.params.set("target", gen::higher_rank_shape(c, index));
    else if (rule.rule == Rule::target_incompatible) c.params.set("target", gen::incompatible_shape(c, index));
    else return std::nullopt;
    return c;
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0}, .shape_params = {"target"}}, false);
  }

  // The main axis: the folded one (x [n, 2] into target [2]: each output
  // a fold of n terms); x uniform on [-1, 1]. A line gives the target.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{n, 2}}, Params().set("target", Dims{2}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = missing_params(k, s, {"target"}); !e.empty()) return e;
    return named_error(k, target_error(s.dims.at(0), s.params.shape("target")));
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_case(s, {t}, seed);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {c.params.shape("target"), k.out_dtype(c.inputs.at(0).dtype())};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    const Cells cells = cells_of(x.dims(), c.params.shape("target"));
    for (std::size_t o = 0; o < cells.members.size(); ++o)
      f(cell_element(context_of(k, c), x, static_cast<std::int64_t>(o), cells.members[o], fmt::format("of target cell {}", o)));
  }

};

}  // namespace

void register_reduce_to(Registry& r) { r.push_back(std::make_unique<ReduceTo>()); }

}  // namespace kc::drivers
