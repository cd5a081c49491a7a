// Driver "reduce_dim": x folds along the axis `dim`, which the output drops
// (no keepdim); output cell o folds the elements along dim at o's
// coordinates (sum/max/min/mean_dim, argmax/argmin_dim). An entry of
// several outputs (torch.max(x, dim)'s values and indices) has each of
// that shape, in its own dtype: an element's form is its output's index,
// which the oracle and the replay are told (oracle::Context::form).
#include <algorithm>

#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "drivers/index_maps.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

std::size_t dim_of(const gen::Case& c) { return static_cast<std::size_t>(c.params.integer("dim")); }

class ReduceDim final : public Driver {
 public:
  std::string_view name() const override { return "reduce_dim"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    return fmt::format("{}: x's shape with dim removed (no keepdim)", k.outputs.size() == 1 ? "one output" : "each output");
  }
  bool several_outputs() const override { return true; }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_param(k, "dim", contract::ParamKind::integer); !e.empty()) return e;
    return check_fold_entry(k, name());
  }

  // Valid cases only: where the contract forbids an empty reduced axis
  // (rule dim.empty: argmax/argmin have no index to return), it gets size 1.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const bool nonempty_axis = k.has_rule(Rule::dim_empty);
    return rc::gen::mapcat(gen::shape(k.inputs[0].min_rank, 6), [&k, t, nonempty_axis](Dims d) {
      return rc::gen::mapcat(rc::gen::inRange(0, static_cast<int>(d.size())), [t, d, nonempty_axis, &k](int dim) {
        Dims dd = d;
        if (nonempty_axis && dd[static_cast<std::size_t>(dim)] == 0) dd[static_cast<std::size_t>(dim)] = 1;
        const auto nn = static_cast<std::size_t>(checked_numel(dd));
        return rc::gen::map(gen::reduction_values(t, k.values, nn), [t, dd, dim](const std::vector<std::uint64_t>& v) {
          return gen::Case{{gen::tensor_of(t, dd, v)}, Params().set("dim", std::int64_t{dim}), false};
        });
      });
    });
  }

  // The main axis: dim's (x [1, n] along dim 1); values uniform on
  // [-1, 1] (a dropped block of a sum stands out of its bound). An empty
  // axis is refused where the contract forbids it (dim.empty).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return along_dim_tail(n);
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = dim_error(k, s); !e.empty()) return e;
    const Params p = with_dim(s);
    const Dims& d = s.dims.at(0);
    if (k.has_rule(Rule::dim_empty) && !d.empty() && d[static_cast<std::size_t>(p.integer("dim"))] == 0)
      return fmt::format("{}: {} is empty along dim {} ({} rejects it: dim.empty)", k.name, operand_text(k, s, 0),
                         p.integer("dim"), k.name);
    return {};
  }
  // A sum of the n terms along dim is at most n max|x|; a mean, a max or
  // a min at most max|x|, an index below n: |z| <= n max(max|x|, 1). An
  // empty axis (a mean's NaN) has none.
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    const auto x = max_abs(c.inputs.at(0));
    const std::int64_t n = c.inputs[0].dims().at(static_cast<std::size_t>(c.params.integer("dim")));
    if (!x || n == 0) return std::nullopt;
    const double m = static_cast<double>(n) * std::max(*x, 1.0);
    return unless_overflow_reachable(m, m, c.inputs[0].dtype(), n);
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_along_dim(s, t, seed);
  }

  // Every ordered pair of the special values and thresholds, a row each.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    return gen::Case{{all_pairs(t, sweep_values(k, t))}, Params().set("dim", std::int64_t{1}), false};
  }

  // 128 output cells of 48 terms each.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return gen::Case{{gen::tensor_of(t, {128, 48}, statistics_values(t, seed))}, Params().set("dim", std::int64_t{1}),
                     false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs.front();
    const auto k = static_cast<std::int64_t>(index);
    if (rule.rule == Rule::dim_out_of_range) {
      c.params.set("dim", std::int64_t{x.rank()} + k);
      return c;
    }
    if (rule.rule == Rule::dim_empty) {
      c.inputs = {gen::zeros(x.dtype(), {2 + k, 0})};
      c.params.set("dim", std::int64_t{1});
      return c;
    }
    return std::nullopt;
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0}, .fixed_axis = dim_of(c)}, false);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Dims d = without_dim(c.inputs.at(0).dims(), dim_of(c));
    return entry_outputs(k, c.inputs.at(0).dtype(), std::vector<Dims>(k.outputs.size(), d));
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    const std::size_t dim = dim_of(c);
    const std::int64_t n = checked_numel(without_dim(x.dims(), dim));
    for (std::size_t p = 0; p < k.outputs.size(); ++p) {
      const std::string_view name = k.outputs[p].name.empty() ? "output" : k.outputs[p].name;
      oracle::Context ctx = context_of(k, c);
      ctx.output = p;
      ctx.out_dtype = k.out_dtype(ctx.dtype, p);
      for (std::int64_t o = 0; o < n; ++o)
        f(cell_element(ctx, x, static_cast<std::int64_t>(p) * n + o, along_dim(x.dims(), dim, o),
                       fmt::format("along dim {} of {} cell {}", dim, name, o)));
    }
  }

};

}  // namespace

void register_reduce_dim(Registry& r) { r.push_back(std::make_unique<ReduceDim>()); }

}  // namespace kc::drivers
