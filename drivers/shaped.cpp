#include "drivers/shaped.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "generators/tensors.h"
#include "oracles/det_math.h"
#include "oracles/rounding.h"
#include "generators/values.h"

namespace kc::drivers {

std::string Driver::shaped_error(const contract::KernelSpec& k, const Shaped&) const {
  return fmt::format("kernel '{}' (driver '{}') takes no problem shapes yet", k.name, name());
}

gen::Case Driver::shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t, const Shaped&) const {
  throw std::logic_error(fmt::format("driver '{}' has no shaped case for {} {}", name(), k.name, dtype_name(t)));
}

void Driver::for_each_listed(const contract::KernelSpec& k, const gen::Case& c, std::span<const std::int64_t> out,
                             const std::function<void(const Element&)>& f) const {
  if (out.empty()) return;
  Element e;
  if (element_at(k, c, out[0], e)) {
    f(e);
    for (std::size_t i = 1; i < out.size(); ++i) {
      element_at(k, c, out[i], e);
      f(e);
    }
    return;
  }
  std::size_t next = 0;
  for_each_element(k, c, [&](const Element& el) {
    if (next < out.size() && el.out == out[next]) {
      ++next;
      f(el);
    }
  });
}

std::vector<std::uint64_t> shaped_values(DType t, const contract::ValueProfile& p, std::size_t n, std::uint64_t seed) {
  const std::size_t pool_size = std::min<std::size_t>(std::max<std::size_t>(n, 1), kShapedPool);
  std::vector<std::uint64_t> pool = gen::values_for(t, p, pool_size)(rc::Random(seed), gen::kMaxSize).value();
  const bool is_fp = is_float(t);
  // The fraction's lowest quarter of bits (f32: 5 of 23; bf16: 1 of 7).
  const std::uint64_t low = is_fp ? (std::uint64_t{1} << ((float_format(t).precision - 1) / 4)) - 1 : 0;
  std::vector<std::uint64_t> out(n);
  std::uint64_t state = seed ^ 0x2545f4914f6cdd1dull;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = gen::splitmix64(state);
    std::uint64_t v = pool[r % pool.size()];
    if (low && std::isfinite(bits_to_double(t, v)) && bits_to_double(t, v) != 0) v = (v & ~low) | ((r >> 40) & low);
    out[i] = v;
  }
  return out;
}

std::vector<std::uint64_t> uniform_values(DType t, std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::vector<std::uint64_t> out(n);
  std::uint64_t state = seed ^ 0x6a09e667f3bcc908ull;
  for (auto& v : out) {
    const double u = std::ldexp(static_cast<double>(gen::splitmix64(state) >> 11), -53);
    v = double_to_bits(t, round_to_format(lo + (hi - lo) * u, t));
  }
  return out;
}

std::vector<std::uint64_t> drawn_indices(std::size_t count, std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> v(count);
  std::uint64_t state = seed ^ 0x1f83d9abfb41bd6bull;
  for (auto& x : v) x = gen::splitmix64(state) % n;
  return v;
}

Params shaped_params(const contract::KernelSpec& k, const Shaped& s, std::uint64_t seed) {
  Params p = gen::params(k.params)(rc::Random(seed ^ 0x9e3779b97f4a7c15ull), gen::kMaxSize).value();
  for (const auto& [name, value] : s.params.values()) p.set(name, value);
  return p;
}

Shaped all_given(std::vector<Dims> dims, Params p) {
  std::vector<bool> given(dims.size(), true);
  return Shaped{std::move(dims), std::move(given), std::move(p)};
}

std::string named_error(const contract::KernelSpec& k, const std::string& e) {
  return e.empty() ? e : fmt::format("{}: {}", k.name, e);
}

std::string missing_params(const contract::KernelSpec& k, const Shaped& s, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (!s.params.has(name)) return fmt::format("{}: {} is not given", k.name, name);
  return {};
}

std::string operand_text(const contract::KernelSpec& k, const Shaped& s, std::size_t i) {
  return fmt::format("{} {}", k.inputs.at(i).name, dims_to_string(s.dims.at(i)));
}

std::string same_dims_error(const contract::KernelSpec& k, const Shaped& s) {
  for (std::size_t i = 1; i < s.dims.size(); ++i)
    if (s.given[i] && s.dims[i] != s.dims[0])
      return fmt::format("{} and {} differ ({} takes operands of one shape)", operand_text(k, s, 0),
                         operand_text(k, s, i), k.name);
  return {};
}

gen::Case uniform_case(const Shaped& s, const std::vector<DType>& dtypes, std::uint64_t seed) {
  std::vector<Tensor> in;
  for (std::size_t i = 0; i < s.dims.size(); ++i)
    if (s.given[i])
      in.push_back(gen::tensor_of(dtypes.at(i), s.dims[i],
                                  uniform_values(dtypes[i], static_cast<std::size_t>(checked_numel(s.dims[i])), seed + i)));
  return gen::Case{std::move(in), s.params, false};
}

Shaped along_dim_tail(std::int64_t n) { return all_given({{1, n}}, Params().set("dim", std::int64_t{1})); }

std::string dim_error(const contract::KernelSpec& k, const Shaped& s) {
  const auto rank = static_cast<std::int64_t>(s.dims.at(0).size());
  if (s.params.has("dim") && s.params.integer("dim") >= rank)
    return fmt::format("{}: dim {} is not an axis of {}", k.name, s.params.integer("dim"), operand_text(k, s, 0));
  return {};
}

Params with_dim(const Shaped& s) {
  Params p = s.params;
  if (!p.has("dim")) p.set("dim", static_cast<std::int64_t>(s.dims.at(0).size()) - 1);
  return p;
}

gen::Case uniform_along_dim(const Shaped& s, DType t, std::uint64_t seed) {
  gen::Case c = uniform_case(s, {t}, seed);
  c.params = with_dim(s);
  return c;
}

gen::Case profile_along_dim(const contract::KernelSpec& k, const Shaped& s, DType t, std::uint64_t seed) {
  const Dims& d = s.dims.at(0);
  Params p = s.params;
  for (const contract::Param& q : k.params)
    if (q.name == "dim") p = with_dim(s);
  return gen::Case{{gen::tensor_of(t, d, shaped_values(t, k.values, static_cast<std::size_t>(checked_numel(d)), seed))}, p, false};
}

std::optional<double> max_abs(const Tensor& t) {
  double m = 0;
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const double v = std::fabs(t.value_at(i));
    if (!std::isfinite(v)) return std::nullopt;
    m = std::max(m, v);
  }
  return m;
}

std::optional<double> unless_overflow_reachable(double m, double fold, DType t, std::int64_t steps) {
  const double grown = fold * oracle::det::pow1p_up(oracle::unit_roundoff(t), static_cast<long>(steps));
  if (!(grown < max_finite(t))) return std::nullopt;
  return m;
}

std::optional<double> attention_magnitude(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t keys,
                                          const Tensor* slopes, const Params& p) {
  const auto mq = max_abs(q), mk = max_abs(k), mv = max_abs(v);
  const auto ms = slopes ? max_abs(*slopes) : std::optional<double>(0.0);
  if (!mq || !mk || !mv || !ms || q.dims().empty()) return std::nullopt;
  const double d = static_cast<double>(q.dims().back()), scale = std::fabs(p.real("softmax_scale"));
  const double scores = d * *mq * *mk * scale + *ms * static_cast<double>(keys);
  const double fold = std::max(static_cast<double>(keys) * std::max(1.0, *mv), scores);
  return unless_overflow_reachable(*mv, fold, q.dtype(), std::max<std::int64_t>(keys, q.dims().back()) + 4);
}

std::optional<double> products_magnitude(const gen::Case& c, std::int64_t terms) {
  const auto a = max_abs(c.inputs.at(0)), b = max_abs(c.inputs.at(1));
  const auto bias = c.inputs.size() > 2 ? max_abs(c.inputs[2]) : std::optional<double>(0.0);
  if (!a || !b || !bias) return std::nullopt;
  const double m = static_cast<double>(terms) * *a * *b + *bias;
  return unless_overflow_reachable(m, m, c.inputs[0].dtype(), terms + 2);  // (the products' roundings, the bias's)
}

std::optional<double> row_magnitude(const contract::KernelSpec& k, const gen::Case& c) {
  const Tensor& x = c.inputs.at(0);
  const auto m = max_abs(x);
  const auto n = static_cast<std::uint64_t>(x.dims().empty() ? 1 : x.dims().back());
  if (!m) return std::nullopt;
  const DType t = x.dtype();
  const auto steps = static_cast<std::int64_t>(n) + 2;
  const double rows = static_cast<double>(n), squares = rows * std::max(*m, 4 * *m * *m);
  switch (k.row_map) {
    case contract::RowMap::softmax: return unless_overflow_reachable(1.0, rows, t, steps);
    case contract::RowMap::log_softmax:
      return unless_overflow_reachable(2 * *m + static_cast<double>(std::bit_width(n)), rows, t, steps);
    case contract::RowMap::layer_norm:
    case contract::RowMap::rms_norm:
      if (!(c.params.real("eps") > 0)) return std::nullopt;
      return unless_overflow_reachable(std::sqrt(rows), squares, t, steps);
    default: return std::nullopt;
  }
}

std::string target_error(const Dims& big, const Dims& small) {
  if (small.size() > big.size()) return fmt::format("{} has more axes than {}", dims_to_string(small), dims_to_string(big));
  for (std::size_t i = 0; i < small.size(); ++i) {
    const std::int64_t b = big[big.size() - small.size() + i];
    if (small[i] != b && small[i] != 1)
      return fmt::format("{} does not align with {} (dim {}: {}, not {} or 1)", dims_to_string(small), dims_to_string(big), i, small[i], b);
  }
  return {};
}

std::string matmul_shape_error(const contract::KernelSpec& k, const Shaped& s) {
  const Dims &a = s.dims.at(0), &b = s.dims.at(1);
  if (a.size() != b.size() || a.size() < 2)
    return fmt::format("{} and {} are matrices (or batches of them) of one rank", operand_text(k, s, 0), operand_text(k, s, 1));
  const std::size_t r = a.size();
  if (!std::equal(a.begin(), a.end() - 2, b.begin()))
    return fmt::format("{} and {} have different batch dims", operand_text(k, s, 0), operand_text(k, s, 1));
  if (a[r - 1] != b[r - 2])
    return fmt::format("{} has k = {}, {} has k = {}", operand_text(k, s, 0), a[r - 1], operand_text(k, s, 1), b[r - 2]);
  if (s.dims.size() < 3 || !s.given[2]) return {};
  Dims out(a.begin(), a.end() - 1);
  out.push_back(b[r - 1]);
  const Dims& bias = s.dims[2];
  bool fits = bias.size() <= out.size();
  for (std::size_t i = 0; fits && i < bias.size(); ++i) fits = bias[i] == out[out.size() - bias.size() + i] || bias[i] == 1;
  return fits ? "" : fmt::format("{} does not broadcast to the output {}", operand_text(k, s, 2), dims_to_string(out));
}

}  // namespace kc::drivers
