#include "generators/values.h"

#include <cmath>

namespace kc::gen {

namespace {

std::uint64_t nan_bits(DType t, bool negative, bool quiet, bool full_payload) {
  const FloatFormat f = float_format(t);
  const int mant = f.precision - 1;
  std::uint64_t exp_mask = ((1ull << f.exponent_bits) - 1) << mant;
  std::uint64_t payload = full_payload ? (1ull << mant) - 1 : (quiet ? 1ull << (mant - 1) : 1ull);
  std::uint64_t sign = negative ? 1ull << (f.total_bits - 1) : 0;
  return sign | exp_mask | payload;
}

std::uint64_t to_bits(DType t, double v) { return double_to_bits(t, round_to_format(v, t)); }

}  // namespace

std::vector<std::uint64_t> special_bits(DType t) {
  const double max_sub = min_normal(t) - min_subnormal(t);
  std::vector<std::uint64_t> out;
  for (double v : {0.0, min_subnormal(t), max_sub, min_normal(t), max_finite(t), 1.0, 0.5, static_cast<double>(INFINITY)}) {
    out.push_back(to_bits(t, v));
    out.push_back(to_bits(t, -v));
  }
  out.push_back(nan_bits(t, false, true, false));
  out.push_back(nan_bits(t, true, true, false));
  out.push_back(nan_bits(t, false, false, false));  // signalling payload 1
  out.push_back(nan_bits(t, false, true, true));
  return out;
}

std::uint64_t step_bits(DType t, std::uint64_t bits, int steps) {
  const double v = bits_to_double(t, bits);
  if (std::isnan(v)) return bits;
  const FloatFormat f = float_format(t);
  const std::uint64_t sign_mask = 1ull << (f.total_bits - 1);
  const std::int64_t inf_ord = ordered_bits(t, to_bits(t, INFINITY));
  std::int64_t o = ordered_bits(t, bits) + steps;
  o = std::clamp(o, -inf_ord, inf_ord);
  return o >= 0 ? static_cast<std::uint64_t>(o) : (sign_mask | static_cast<std::uint64_t>(-o));
}

namespace {
// u32 (cast sources): small values, the f32 rounding boundaries around
// 2^24 and above, the ends of the range, and raw 32-bit patterns.
rc::Gen<std::uint64_t> u32_bits() {
  std::vector<std::uint64_t> edges{0, 1, 2, 16777215, 16777216, 16777217, 16777219, 33554435,
                                   2147483647, 2147483648u, 4294967040u, 4294967167u, 4294967168u, 4294967295u};
  return rc::gen::weightedOneOf<std::uint64_t>({
      {3, rc::gen::elementOf(edges)},
      {3, rc::gen::cast<std::uint64_t>(rc::gen::inRange<std::uint32_t>(0, 100000))},
      {4, rc::gen::cast<std::uint64_t>(rc::gen::arbitrary<std::uint32_t>())},
  });
}
}  // namespace

rc::Gen<std::uint64_t> element_bits(DType t, const contract::ValueProfile& profile) {
  if (!is_float(t)) return u32_bits();
  const FloatFormat f = float_format(t);
  const std::uint64_t width_mask = f.total_bits == 64 ? ~0ull : (1ull << f.total_bits) - 1;

  auto specials = rc::gen::elementOf(special_bits(t));
  auto ordinary = rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 1ull << 53), [t, profile](std::uint64_t r) {
    double u = std::ldexp(static_cast<double>(r), -53);
    return to_bits(t, profile.lo + (profile.hi - profile.lo) * u);
  });
  auto raw = rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [width_mask](std::uint64_t b) { return b & width_mask; });

  std::vector<double> pts = profile.points ? profile.points(t) : std::vector<double>{};
  if (pts.empty()) pts.push_back(1.0);
  auto near_points = rc::gen::apply(
      [t](double p, int k) { return step_bits(t, to_bits(t, p), k); }, rc::gen::elementOf(pts),
      rc::gen::inRange(-3, 4));

  // Exact ties k + 1/2: representable while |k| < 2^(p-1) - 1.
  const std::int64_t tie_limit = std::min<std::int64_t>(std::int64_t{1} << (f.precision - 2), 1 << 20);
  auto ties = rc::gen::map(rc::gen::inRange<std::int64_t>(-tie_limit, tie_limit + 1),
                           [t](std::int64_t k) { return to_bits(t, static_cast<double>(k) + 0.5); });
  // Integers up to 2^(p+1) (past the point where every value is an
  // integer), and their neighbours.
  const std::int64_t int_limit = std::min<std::int64_t>(std::int64_t{1} << (f.precision + 1), std::int64_t{1} << 40);
  auto integers = rc::gen::apply(
      [t](std::int64_t k, int s) { return step_bits(t, to_bits(t, static_cast<double>(k)), s); },
      rc::gen::inRange<std::int64_t>(-int_limit, int_limit + 1), rc::gen::element(0, 0, 0, -1, 1));

  // Midpoints of a narrower format, offset by a random amount below the
  // source's last 32 significand bits (or a few source ulps for f32).
  rc::Gen<std::uint64_t> near_ties = rc::gen::just<std::uint64_t>(0);
  if (profile.near_ties_of) {
    const DType n = *profile.near_ties_of;
    const std::uint64_t n_mask = (1ull << float_format(n).total_bits) - 1;
    near_ties = rc::gen::apply(
        [t, n, n_mask](std::uint64_t pick, std::uint64_t offset, bool up) {
          const std::uint64_t b = pick & n_mask & ~(1ull << (float_format(n).total_bits - 1));
          const double a = bits_to_double(n, b), next = bits_to_double(n, b + 1);
          if (!std::isfinite(a) || !std::isfinite(next)) return std::uint64_t{to_bits(t, 1.5)};
          const std::uint64_t mid = double_to_bits(t, (a + next) / 2);  // exact in the source
          const std::uint64_t span = t == DType::f64 ? (1ull << 32) : 4;
          const std::uint64_t off = offset % span;
          return std::uint64_t{((pick >> 40) & 1 ? 1ull << (float_format(t).total_bits - 1) : 0ull) | (up ? mid + off : mid - off)};
        },
        rc::gen::arbitrary<std::uint64_t>(), rc::gen::arbitrary<std::uint64_t>(), rc::gen::arbitrary<bool>());
  }

  return rc::gen::weightedOneOf<std::uint64_t>({
      {profile.near_ties_of ? 25u : 0u, near_ties},
      {10, specials},
      {15, near_points},
      {45, ordinary},
      {15, raw},
      {profile.ties ? 15u : 0u, ties},
      {profile.integers ? 15u : 0u, integers},
  });
}

Dims capped(Dims d) {
  // Dims shrunk left to right, as far as the budget needs; the count of
  // the nonzero dims is kept within it too, so that a zero dim later set
  // to a size (a generator's constructed shape) cannot blow it.
  std::int64_t n = 1;
  for (auto& x : d) {
    if (x != 0 && n * x > kMaxElements) x = std::max<std::int64_t>(1, kMaxElements / n);
    if (x != 0) n *= x;
  }
  return d;
}

rc::Gen<Dims> shape(int min_rank, int max_rank) {
  return rc::gen::mapcat(rc::gen::inRange(min_rank, max_rank + 1), [](int rank) {
    auto dim = rc::gen::weightedOneOf<std::int64_t>({
        {1, rc::gen::just<std::int64_t>(0)},
        {5, rc::gen::just<std::int64_t>(1)},
        {10, rc::gen::inRange<std::int64_t>(2, 9)},
        {3, rc::gen::inRange<std::int64_t>(9, 65)},
    });
    return rc::gen::map(rc::gen::container<Dims>(static_cast<std::size_t>(rank), dim), [](Dims d) {
      // Keep the element count within budget: shrink dims left to right.
      std::int64_t n = 1;
      for (auto& x : d) {
        if (x != 0 && n * x > kMaxElements) x = std::max<std::int64_t>(1, kMaxElements / n);
        n *= x;
      }
      return d;
    });
  });
}

namespace {
rc::Gen<ParamValue> param_value(const contract::Param& p) {
  if (p.kind == contract::ParamKind::integer) {
    std::vector<std::int64_t> samples;
    for (double s : p.samples) samples.push_back(static_cast<std::int64_t>(s));
    if (samples.empty()) samples.push_back(0);
    auto lo = static_cast<std::int64_t>(p.lo), hi = static_cast<std::int64_t>(p.hi);
    return rc::gen::weightedOneOf<ParamValue>({
        {3, rc::gen::cast<ParamValue>(rc::gen::elementOf(samples))},
        {1, rc::gen::cast<ParamValue>(rc::gen::inRange<std::int64_t>(lo, hi + 1))},
    });
  }
  std::vector<double> samples = p.samples.empty() ? std::vector<double>{0.0} : p.samples;
  auto uniform = rc::gen::map(rc::gen::inRange<std::uint64_t>(0, 1ull << 53), [lo = p.lo, hi = p.hi](std::uint64_t r) {
    return ParamValue{lo + (hi - lo) * std::ldexp(static_cast<double>(r), -53)};
  });
  return rc::gen::weightedOneOf<ParamValue>({
      {1, rc::gen::cast<ParamValue>(rc::gen::elementOf(samples))},
      {1, uniform},
  });
}
}  // namespace

rc::Gen<Params> params(const std::vector<contract::Param>& specs) {
  rc::Gen<Params> g = rc::gen::just(Params{});
  for (const auto& spec : specs) {
    const std::string name(spec.name);
    g = rc::gen::mapcat(g, [name, vg = param_value(spec)](Params p) {
      return rc::gen::map(vg, [p, name](ParamValue v) {
        Params q = p;
        q.set(name, v);
        return q;
      });
    });
  }
  return g;
}

}  // namespace kc::gen
