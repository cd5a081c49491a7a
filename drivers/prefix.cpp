// Driver "prefix": inclusive prefix folds along `dim` (cumsum,
// reference-semantics.md §15): output element (.., j, ..) folds x[.., 0..j,
// ..] in increasing j from +0, given to the entry's Terms oracle (each
// output a sum of its own j + 1 terms, with its own bound).
#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/movement.h"
#include "generators/values.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class Prefix final : public Driver {
 public:
  std::string_view name() const override { return "prefix"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "x's dims; out[.., j, ..] = x[.., 0, ..] + ... + x[.., j, ..] along `dim`";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_param(k, "dim", contract::ParamKind::integer); !e.empty()) return e;
    return check_fold_entry(k, name());
  }

  // A shape of rank >= 1 and a dim drawn from its axes; the reductions'
  // values (cancelling pairs, mixed magnitudes, ties).
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(rc::gen::pair(gen::shape(1, 6), rc::gen::arbitrary<std::uint32_t>()),
                           [&k, t](const std::pair<Dims, std::uint32_t>& g) {
                             const auto& [d, key] = g;
                             const Params p = Params().set("dim", static_cast<std::int64_t>(key % d.size()));
                             return rc::gen::map(gen::reduction_values(t, k.values, static_cast<std::size_t>(checked_numel(d))),
                                                 [t, d, p](const std::vector<std::uint64_t>& v) {
                                                   return gen::Case{{gen::tensor_of(t, d, v)}, p, false};
                                                 });
                           });
  }

  // Every ordered pair of the special values and thresholds as a row: the
  // second prefix is their sum (overflow, NaN, subnormal sums).
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    return gen::Case{{all_pairs(t, sweep_values(k, t))}, Params().set("dim", std::int64_t{1}), false};
  }

  // 512 rows of 48 terms; only each row's last prefix is a statistics
  // sample (the earlier ones share its rounding steps: correlated errors),
  // so four times the rows of the reductions' case for as many samples as
  // the test needs to see a sum whose errors are 8 times too large.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    std::vector<std::uint64_t> v;
    for (std::uint64_t part = 0; part < 4; ++part) {
      const std::vector<std::uint64_t> more = statistics_values(t, seed + part * 0x9e3779b97f4a7c15ull);
      v.insert(v.end(), more.begin(), more.end());
    }
    return gen::Case{{gen::tensor_of(t, {512, 48}, v)}, Params().set("dim", std::int64_t{1}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    if (rule.rule != Rule::dim_out_of_range) return std::nullopt;
    return dim_past_rank(valid, index);
  }

  // The main axis: `dim`'s (x [1, n] along dim 1); values uniform on
  // [-1, 1] (finite prefixes: a lost carry is an error figure, not an
  // overflow).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return along_dim_tail(n);
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override { return dim_error(k, s); }
  // Output j folds j + 1 terms, each summed exactly: (n + 1) / 2 on average.
  std::int64_t element_terms(const contract::KernelSpec&, const gen::Case& c) const override {
    return (c.inputs.at(0).dims().at(static_cast<std::size_t>(c.params.integer("dim"))) + 1) / 2;
  }
  // A prefix of at most n terms: |z| <= n max|x|, as every partial sum.
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    const auto x = max_abs(c.inputs.at(0));
    const std::int64_t n = c.inputs[0].dims().at(static_cast<std::size_t>(c.params.integer("dim")));
    if (!x) return std::nullopt;
    return unless_overflow_reachable(static_cast<double>(n) * *x, static_cast<double>(n) * *x, c.inputs[0].dtype(), n);
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_along_dim(s, t, seed);
  }

  // Halves of the axes off `dim`, and the first half along it (a prefix of
  // a prefix is a prefix: the kept outputs are the same sums).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<gen::Case> out =
        drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0}, .fixed_axis = dim}, false);
    const std::int64_t d = c.inputs[0].dims()[dim];
    if (d >= 2) {
      gen::Case s = c;
      s.inputs[0] = gen::sliced(c.inputs[0], dim, 0, d / 2);
      out.push_back(std::move(s));
    }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, c.inputs.at(0).numel(), f);
  }

  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Tensor& x = c.inputs.at(0);
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<std::int64_t> at = coords_of(x.dims(), o);
    const std::int64_t j = at[dim];
    std::vector<std::int64_t> members;
    for (at[dim] = 0; at[dim] <= j; ++at[dim]) members.push_back(flat_of(x.dims(), at));
    e = cell_element(context_of(k, c), x, o, members, fmt::format("x[.., 0..{}, ..] along dim {}", j, dim));
    e.statistics_sample = j + 1 == x.dims()[dim];
    return true;
  }

};

}  // namespace

void register_prefix(Registry& r) { r.push_back(std::make_unique<Prefix>()); }

}  // namespace kc::drivers
