// Driver "axis_permutation": x's axes reordered, physically, into a fresh
// row-major output: out.shape[i] = x.shape[axes[i]]. The axes are the
// parameter `axes` where the entry has one (permute), else the last two
// swapped (transpose_2d, transpose_last_two). Output element o is the
// source element drivers/index_maps.h finds for it, graded bit for bit.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/folds.h"
#include "drivers/index_maps.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

bool takes_axes(const contract::KernelSpec& k) { return k.param("axes") != nullptr; }

std::vector<std::int64_t> axes_of(const contract::KernelSpec& k, const gen::Case& c) {
  if (takes_axes(k)) return c.params.shape("axes");
  return last_two_swapped(c.inputs.at(0).dims().size());
}

Params params_for(const contract::KernelSpec& k, std::vector<std::int64_t> axes) {
  return takes_axes(k) ? Params().set("axes", std::move(axes)) : Params();
}

class AxisPermutation final : public Driver {
 public:
  std::string_view name() const override { return "axis_permutation"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    return takes_axes(k) ? "one output of dims x.shape[axes[i]], same dtype, fresh row-major"
                         : "one output of x's dims with the last two swapped, same dtype, fresh row-major";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 1); !e.empty()) return e;
    if (takes_axes(k))
      if (auto e = expects_param(k, "axes", contract::ParamKind::shape); !e.empty()) return e;
    return expects_input<oracle::Scalar>(k, name());
  }

  // A shape of the entry's ranks, and a uniformly drawn permutation of its
  // axes (a key per axis, sorted), generated directly rather than filtered.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const bool batch_rule = k.has_rule(Rule::batch_empty);
    return rc::gen::mapcat(gen::shape(k.inputs[0].min_rank, std::min(k.inputs[0].max_rank, 5)), [&k, t, batch_rule](Dims d) {
      // Valid cases only: a zero-sized batch dim where the matrices are not
      // empty breaks transpose_last_two's rule batch.empty; it becomes 1.
      if (batch_rule && d.size() >= 2 && d[d.size() - 2] * d[d.size() - 1] > 0)
        for (std::size_t i = 0; i + 2 < d.size(); ++i) d[i] = std::max<std::int64_t>(d[i], 1);
      const auto n = static_cast<std::size_t>(checked_numel(d));
      return rc::gen::apply(
          [&k, t, d](const std::vector<std::uint64_t>& v, const std::vector<std::uint32_t>& keys) {
            std::vector<std::int64_t> axes(d.size());
            std::iota(axes.begin(), axes.end(), 0);
            std::stable_sort(axes.begin(), axes.end(), [&keys](std::int64_t a, std::int64_t b) {
              return keys[static_cast<std::size_t>(a)] < keys[static_cast<std::size_t>(b)];
            });
            return gen::Case{{gen::tensor_of(t, d, v)}, params_for(k, std::move(axes)), false};
          },
          gen::values_for(t, k.values, n), rc::gen::container<std::vector<std::uint32_t>>(d.size(), rc::gen::arbitrary<std::uint32_t>()));
    });
  }

  // Every special value and threshold as a [v, 2] matrix (NaN payloads,
  // signalling NaNs and -0 must travel unchanged); permute: reversed axes.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const std::vector<std::uint64_t> v = sweep_values(k, t);
    std::vector<std::uint64_t> two;
    for (auto b : v) two.insert(two.end(), {b, b ^ 1});
    return gen::Case{{gen::tensor_of(t, {static_cast<std::int64_t>(v.size()), 2}, two)}, params_for(k, {1, 0}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs.front();
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    const auto rank = static_cast<std::int64_t>(x.rank());
    std::vector<std::int64_t> axes = takes_axes(k) ? valid.params.shape("axes") : std::vector<std::int64_t>{};
    if (r == Rule::axes_length) {  // one axis too many, or one too few
      if (index % 2 == 0 || axes.empty()) axes.push_back(rank);
      else axes.pop_back();
      c.params.set("axes", axes);
      return c;
    }
    if (r == Rule::axes_out_of_range || r == Rule::axes_duplicate) {  // needs an axis to change: x of rank >= 2
      if (rank < 2) {
        c.inputs = {gen::zeros(x.dtype(), {2, 3})};
        axes = {1, 0};
      }
      if (r == Rule::axes_out_of_range) axes[index % axes.size()] = static_cast<std::int64_t>(axes.size()) + i;
      else axes[1] = axes[0];
      c.params.set("axes", axes);
      return c;
    }
    if (r == Rule::rank_exact) {  // rank 1 or 3
      c.inputs = {gen::zeros(x.dtype(), index % 2 == 0 ? Dims{3 + i} : Dims{2, 2, 1 + i})};
      return c;
    }
    if (r == Rule::rank_min) {
      c.inputs = {gen::zeros(x.dtype(), index % 2 == 0 ? Dims{3 + i} : Dims{})};
      return c;
    }
    if (r == Rule::batch_empty) {
      c.inputs = {gen::zeros(x.dtype(), {0, 2 + i, 3})};
      return c;
    }
    return std::nullopt;
  }

  // The first and second half of each axis of size > 1 (the axes stay).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    std::vector<gen::Case> out;
    const Tensor& x = c.inputs.at(0);
    for (std::size_t ax = 0; ax < x.dims().size(); ++ax) {
      const std::int64_t d = x.dims()[ax];
      if (d < 2) continue;
      for (const auto& [start, len] : {std::pair{std::int64_t{0}, d / 2}, std::pair{d / 2, d - d / 2}}) {
        gen::Case s = c;
        s.inputs[0] = gen::sliced(x, ax, start, len);
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  // The main axis: a row's (x [3, n]; permute's axes [1, 0]); x of the
  // profile's values. A line gives permute's axes.
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return all_given({{3, n}}, params_for(k, {1, 0}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    const auto rank = static_cast<std::int64_t>(s.dims.at(0).size());
    if (!takes_axes(k)) return rank >= 2 ? "" : fmt::format("{}: {} has no two axes to swap", k.name, operand_text(k, s, 0));
    if (auto e = missing_params(k, s, {"axes"}); !e.empty()) return e;
    std::vector<std::int64_t> sorted = s.params.shape("axes");
    std::sort(sorted.begin(), sorted.end());
    for (std::int64_t i = 0; i < rank; ++i)
      if (static_cast<std::int64_t>(sorted.size()) != rank || sorted[static_cast<std::size_t>(i)] != i)
        return fmt::format("{}: axes {} is no permutation of {}'s axes", k.name, dims_to_string(s.params.shape("axes")), operand_text(k, s, 0));
    return {};
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return profile_along_dim(k, s, t, seed);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {permuted_dims(c.inputs.at(0).dims(), axes_of(k, c)), k.out_dtype(c.inputs.at(0).dtype())};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    const std::vector<std::int64_t> axes = axes_of(k, c);
    const std::int64_t n = checked_numel(permuted_dims(x.dims(), axes));
    const oracle::Context ctx = context_of(k, c);
    for (std::int64_t o = 0; o < n; ++o) {
      const std::int64_t s = permuted_source(x.dims(), axes, o);
      oracle::Scalar in{ctx, x.value_exact_at(s)};
      in.ctx.signaling_nan = is_signaling_nan(x.dtype(), x.bits_at(s));
      f(Element{.out = o, .in = in, .shown = {x.bits_at(s)}, .names = {"x"}, .where = fmt::format("x[{}]", s)});
    }
  }

};

}  // namespace

void register_axis_permutation(Registry& r) { r.push_back(std::make_unique<AxisPermutation>()); }

}  // namespace kc::drivers
