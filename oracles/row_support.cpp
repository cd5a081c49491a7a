#include "oracles/row_support.h"

#include <cstring>
#include <limits>

#include "oracles/mp.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

namespace kc::oracle::rows {

Units units(DType t) {
  const FloatFormat f = float_format(t);
  const B e = is_half(t) ? 0.5L + 2.5L * std::ldexp(1.0L, f.precision - 24) : 2.5L;
  const B u = unit_roundoff(t), ulp_min = min_subnormal(t);
  return {u, 2 * u * e, e * ulp_min, ulp_min, static_cast<B>(max_finite(t))};
}

B gamma(B u, std::size_t m) { return std::expm1(static_cast<B>(m) * std::log1p(u)); }

void set_bound(Exact& out, DType t, B b) { out.magnitude = Mp(b * kRoundUp) / Mp(unit_roundoff(t)); }

bool RowKey::same_or_set(const Row& r) {
  const double param = r.ctx.params && r.ctx.params->has("eps") ? r.ctx.params->real("eps") : 0.0;
  const bool same = set_ && t_ == r.ctx.dtype && bits_ == PrecisionScope::current() && a_.size() == r.a.size() &&
                    b_.size() == r.b.size() && std::memcmp(&param_, &param, sizeof param) == 0 &&
                    std::memcmp(a_.data(), r.a.data(), a_.size() * sizeof(double)) == 0 &&
                    std::memcmp(b_.data(), r.b.data(), b_.size() * sizeof(double)) == 0;
  if (same) return true;
  set_ = true;
  t_ = r.ctx.dtype;
  bits_ = PrecisionScope::current();
  a_.assign(r.a.begin(), r.a.end());
  b_.assign(r.b.begin(), r.b.end());
  param_ = param;
  return false;
}

void settle_overflow(const Row& in, double (*replay_fn)(const ReplayIn&), B bound, bool may_overflow, Exact& out) {
  std::vector<double> args(in.a.begin(), in.a.end());
  args.insert(args.end(), in.b.begin(), in.b.end());
  const double y = replay_fn(ReplayIn{in.ctx.dtype, in.ctx.dtype, in.ctx.params, args, false, static_cast<int>(in.i)});
  const Mp& z = out.value;
  if (std::isfinite(y) && !may_overflow) return;
  if ((std::isnan(y) && is_nan(z)) || (std::isinf(y) && is_inf(z) && mpfr_cmp_d(raw(z), y) == 0)) return;
  if (std::isfinite(y) && is_number(z) && std::isfinite(bound)) {
    // A finite replay past a stage that may overflow: only where the
    // reference's answer is not within the bound of the exact one already.
    const B off = std::fabs(static_cast<B>(y) - z.convert_to<long double>());
    if (off <= bound) return;
  }
  if (std::isfinite(bound) && is_number(z)) out.unreplayed = z;
  out.value = Mp(y);
  out.replayed = true;
  for (double v : {INFINITY, -INFINITY, NAN})
    if (!(v == y || (std::isnan(v) && std::isnan(y)))) out.alternatives.push_back(Mp(v));
}

Stage Stages::note(Stage s) {
  if (!(std::fabs(s.v) + s.e < un_.max)) overflow = true;
  return s;
}

Stage Stages::add_signed(Stage a, Stage b, int sign) {
  const B v = a.v + sign * b.v, e = a.e + b.e;
  return note({v, e + un_.u * (std::fabs(v) + e)});
}

Stage Stages::mul(Stage a, Stage b) {
  const B v = a.v * b.v, e = std::fabs(a.v) * b.e + std::fabs(b.v) * a.e + a.e * b.e;
  return note({v, e + un_.u * (std::fabs(v) + e) + un_.ulp_min});
}

Stage Stages::div(Stage a, Stage b) {
  if (!(std::fabs(b.v) > b.e)) return note({a.v / b.v, std::numeric_limits<B>::infinity()});
  const B v = a.v / b.v;
  const B e = (std::fabs(b.v) * a.e + std::fabs(a.v) * b.e) / (std::fabs(b.v) * (std::fabs(b.v) - b.e));
  return note({v, e + un_.u * (std::fabs(v) + e) + un_.ulp_min});
}

Stage Stages::sqrt(Stage a) {
  // (at or below 0 the computed value lies in [0, sqrt(a + ea)] rounded)
  if (!(a.v > 0)) return note({std::sqrt(std::max(a.v, B(0))), std::sqrt(std::max(a.v + a.e, B(0))) * (1 + un_.u)});
  const B v = std::sqrt(a.v), e = a.e / (v + std::sqrt(std::max(a.v - a.e, B(0))));
  return note({v, e + un_.u * (v + e)});
}

Stage Stages::fold(std::span<const Stage> terms) {
  B v = 0, e = 0, mag = 0;
  for (const Stage& t : terms) v += t.v, e += t.e, mag += std::fabs(t.v) + t.e;
  const B g = terms.empty() ? 0 : gamma(un_.u, terms.size() - 1);
  return note({v, e + g * mag});
}

}  // namespace kc::oracle::rows
