#include "oracles/row_support.h"

#include <bit>
#include <cstring>
#include <type_traits>
#include <variant>
#include <limits>

#include "oracles/det_math.h"
#include "oracles/mp.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

namespace kc::oracle::rows {

Units units(DType t) {
  const FloatFormat f = float_format(t);
  const auto ulps = [&](B steps) { return is_half(t) ? 0.5L + (2 * steps + 0.5L) * std::ldexp(1.0L, f.precision - 24) : 2 * steps + 0.5L; };
  const B e = ulps(1), et = ulps(2);
  const B u = unit_roundoff(t), ulp_min = min_subnormal(t);
  const B sqrt3 = std::sqrt(3.0L);
  // (halves: 2u (E - 1/2) is the f32 call's part of eps)
  const auto libm_rms = [&](B ulps_t) { return is_half(t) ? u / sqrt3 + 2 * u * (ulps_t - 0.5L) : 2 * u * ulps_t; };
  return {u, 2 * u * e, e * ulp_min, ulp_min, static_cast<B>(max_finite(t)), 2 * u * et, et * ulp_min,
          u / sqrt3, ulp_min / (2 * sqrt3), libm_rms(e), libm_rms(et)};
}

B gamma(B u, std::size_t m) { return det::gamma_up(u, static_cast<long>(m)); }

void set_bound(Exact& out, DType t, B b) { out.magnitude = Mp(b * kRoundUp) / Mp(unit_roundoff(t)); }
void set_bound(Exact& out, DType t, B b, B rms) {
  set_bound(out, t, b);
  const B up = rms * kRoundUp;
  out.error_variance = static_cast<double>(up * up) * (1 + 0x1p-40);
}

namespace {
// The same bits (memcmp, which NaN payloads and -0 need); empty spans
// compare equal without a call (their data() may be null: memcmp's UB).
bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}
}  // namespace

bool RowKey::same_or_set(const Row& r) { return same_or_set(r, PrecisionScope::current()); }

namespace {
// Every parameter by name and bits (a real's -0 and NaN payload count):
// the names, NUL-terminated, into names; each value's kind and bits into
// values.
void encode_params(const Params* params, std::string& names, std::vector<std::uint64_t>& values) {
  names.clear();
  values.clear();
  if (!params) return;
  for (const auto& [name, value] : params->values()) {
    names.append(name);
    names.push_back('\0');
    values.push_back(value.index());
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, double>) values.push_back(std::bit_cast<std::uint64_t>(v));
          else if constexpr (std::is_same_v<V, std::int64_t>) values.push_back(static_cast<std::uint64_t>(v));
          else {
            values.push_back(v.size());
            for (std::int64_t x : v) values.push_back(static_cast<std::uint64_t>(x));
          }
        },
        value);
  }
}
}  // namespace

bool RowKey::filled(const Row& r) const {
  // (A row of the same fill at the same storage has the same bits.)
  return set_ && r.fill != 0 && r.fill == fill_ && r.a.data() == a_at_ && r.b.data() == b_at_ &&
         r.a.size() == a_.size() && r.b.size() == b_.size();
}

bool RowKey::matches(const Row& r, unsigned precision, bool same_values) {
  // (Asked at every element of a row: the parameters are encoded into
  // buffers kept between calls, not fresh ones.)
  encode_params(r.ctx.params, scratch_names_, scratch_values_);
  return set_ && t_ == r.ctx.dtype && bits_ == precision && scratch_names_ == names_ && scratch_values_ == values_ &&
         (same_values || (same_bits(a_, r.a) && same_bits(b_, r.b)));
}

bool RowKey::same_or_set(const Row& r, unsigned precision) {
  const bool same = matches(r, precision, filled(r));
  if (!same) {  // (matches left r's parameters in the scratch buffers)
    set_ = true;
    t_ = r.ctx.dtype;
    bits_ = precision;
    a_.assign(r.a.begin(), r.a.end());
    b_.assign(r.b.begin(), r.b.end());
    names_.swap(scratch_names_);
    values_.swap(scratch_values_);
  }
  fill_ = r.fill, a_at_ = r.a.data(), b_at_ = r.b.data();
  return same;
}

bool RowKey::holds(const Row& r, bool identity_only) {
  const bool by_identity = filled(r);
  if (identity_only && !by_identity) return false;
  const bool same = matches(r, PrecisionScope::current(), by_identity);
  if (same) fill_ = r.fill, a_at_ = r.a.data(), b_at_ = r.b.data();
  return same;
}

void settle_overflow(const Row& in, double (*replay_fn)(const Row&), B bound, bool may_overflow, Exact& out) {
  const double y = replay_fn(in);
  const Mp& z = out.value;
  if (std::isfinite(y) && !may_overflow) return;
  if ((std::isnan(y) && is_nan(z)) || (std::isinf(y) && is_inf(z) && mpfr_cmp_d(raw(z), y) == 0)) return;
  B off = 0;
  if (std::isfinite(y) && is_number(z) && std::isfinite(bound)) {
    // A finite replay past a stage that may overflow: only where the
    // reference's answer is not within the bound of the exact one already.
    off = std::fabs(static_cast<B>(y) - z.convert_to<long double>());
    if (off <= bound) return;
  }
  if (std::isfinite(bound) && is_number(z)) {
    out.unreplayed = z;
    // The reference's finite answer lies outside the bound (an
    // intermediate of its steps overflowed): another evaluation is held to
    // no worse than the reference plus the bound, |y - z| <= |ref - z| + bound.
    if (off > bound) set_bound(out, in.ctx.dtype, off + bound);
  }
  // No finite bound at all: only the reference profile grades it.
  out.unbounded = is_number(z) && !std::isfinite(bound);
  out.value = Mp(y);
  out.replayed = true;
  for (double v : {INFINITY, -INFINITY, NAN})
    if (!(v == y || (std::isnan(v) && std::isnan(y)))) out.alternatives.push_back(Mp(v));
}

Stage Stages::note(Stage s) {
  if (!(std::fabs(s.v) + s.e < un_.max)) overflow = true;
  if (!(s.r <= s.e)) s.r = s.e;  // (rms <= the worst case; NaN too)
  return s;
}

// The rms of one correct rounding of a result of magnitude at most m.
B Stages::rounding_rms(B m) const { return un_.round_rms * m + un_.underflow_rms; }

Stage Stages::add_signed(Stage a, Stage b, int sign) {
  const B v = a.v + sign * b.v, e = a.e + b.e;
  // (an addition that underflows is exact: no absolute term)
  return note({v, e + un_.u * (std::fabs(v) + e), a.rms() + b.rms() + un_.round_rms * (std::fabs(v) + e)});
}

namespace {
// x y with 0 * inf = 0 (an exact zero times an unbounded error bounds nothing).
B times(B x, B y) { return x == 0 || y == 0 ? 0 : x * y; }
}  // namespace

Stage Stages::mul(Stage a, Stage b) {
  const B v = a.v * b.v, e = times(std::fabs(a.v), b.e) + times(std::fabs(b.v), a.e) + times(a.e, b.e);
  // (a^ b^ - a b = a db + b da + da db, |da db| <= ea |db|)
  const B r = times(std::fabs(a.v), b.rms()) + times(std::fabs(b.v), a.rms()) + times(a.e, b.rms());
  return note({v, e + un_.u * (std::fabs(v) + e) + un_.ulp_min, r + rounding_rms(std::fabs(v) + e)});
}

Stage Stages::div(Stage a, Stage b) {
  if (!(std::fabs(b.v) > b.e)) return note({a.v / b.v, std::numeric_limits<B>::infinity()});
  const B v = a.v / b.v;
  const B den = std::fabs(b.v) * (std::fabs(b.v) - b.e);
  const B e = (std::fabs(b.v) * a.e + std::fabs(a.v) * b.e) / den;
  const B r = (std::fabs(b.v) * a.rms() + std::fabs(a.v) * b.rms()) / den;
  return note({v, e + un_.u * (std::fabs(v) + e) + un_.ulp_min, r + rounding_rms(std::fabs(v) + e)});
}

Stage Stages::sqrt(Stage a) {
  // (at or below 0 the computed value lies in [0, sqrt(a + ea)] rounded)
  if (!(a.v > 0)) return note({std::sqrt(std::max(a.v, B(0))), std::sqrt(std::max(a.v + a.e, B(0))) * (1 + un_.u)});
  const B v = std::sqrt(a.v), den = v + std::sqrt(std::max(a.v - a.e, B(0))), e = a.e / den;
  return note({v, e + un_.u * (v + e), a.rms() / den + un_.round_rms * (v + e)});
}

Stage Stages::exp(Stage a) {
  const B v = det::exp(a.v);
  // (where e^a underflows even in B, the computed value lies below e^(a + ea))
  if (v == 0) return note({v, det::exp(a.v + a.e) * (1 + un_.eps) + un_.libm_abs});
  // (|e^(a + d) - e^a| <= e^a |d| e^(ea); then the libm's own, relative to
  // e^(a^) <= e^a e^(ea): in all (1 + eps) e^(ea) - 1 relative, evaluated as
  // eps + (1 + eps)(e^(ea) - 1), where a small ea is not lost to rounding
  // (1 + ea is 1 in B below 2^-64))
  const B grow_m1 = det::expm1(a.e);
  return note({v, times(v, un_.eps + (1 + un_.eps) * grow_m1) + un_.libm_abs,
               times(v, (1 + grow_m1) * (a.rms() + un_.eps_rms)) + un_.libm_abs});
}

namespace {
// cosh x, from e^|x| (a sum of positive terms: within 2^-55.8 relative).
B cosh(B x) {
  const B big = det::exp(std::fabs(x));
  return (big + 1 / big) / 2;
}
}  // namespace

Stage Stages::tanh(Stage a) {
  // tanh is increasing: the argument's error moves it by at most the
  // larger of tanh(a + ea) - tanh(a) and tanh(a) - tanh(a - ea) (at most
  // 2, and far less where it saturates), rounded up; then libm's own.
  // That larger one is q = sinh(ea) / (cosh a cosh x), x = |a| - ea (tanh
  // y - tanh z = sinh(y - z) / (cosh y cosh z), and cosh x <= cosh(a +-
  // ea)): sums of positive terms, no cancellation, so a small ea is not
  // lost (the difference of two tanh values in B was only as good as
  // their last bits). x rounds once (a and ea are exact here):
  // - x <= -24 (ea > |a| + 24): tanh(|a| + ea) is 1 to within e^-48, and
  //   q = 2 (1 - e^-2ea) / ((1 + e^-2|a|)(1 + e^-2|x|)) <= 2 / (1 + e^-2|a|)
  //   = 1 + tanh |a|, taken (within 2^-55: one exp, a sum, a quotient).
  // - x >= 24: q <= (e^ea / 2) / (e^|a| e^x / 4) = 2 e^(-2x) < 2^-68: taken
  //   as 2^-66, below the 2^-60 added.
  // - |x| < 24: x's rounding moves cosh x by 24 2^-64 relative at most.
  //   Below 11000 (no overflow in B): sinh from two expm1 (within
  //   2^-53.9), each cosh within 2^-55.8, the product and the quotient
  //   2^-63: within 2^-52.7 relative, inside the factor 1 + 2^-50 below.
  //   Past it, |a| and ea are within 24 of each other, both >= 10976, so x
  //   is exact (Sterbenz) and q = e^-x / cosh x (1 - d) = 2 / (e^2x + 1)
  //   (1 - d), |d| < e^-21952: within 2^-55 relative.
  const B v = det::tanh(a.v);
  const B x = std::fabs(a.v) - a.e;
  B q = 2;  // (NaN)
  if (x >= 24) {
    q = 0x1p-66L;
  } else if (x <= -24) {
    q = 2 / (1 + det::exp(-2 * std::fabs(a.v)));
  } else if (x > -24) {
    q = a.e < 11000 && std::fabs(a.v) < 11000
            ? (det::expm1(a.e) - det::expm1(-a.e)) / 2 / (cosh(a.v) * cosh(x))
            : 2 / (det::exp(2 * x) + 1);
  }
  const B moved = std::min(B(2), q * (1 + 0x1p-50L) + 0x1p-60L);
  // (tanh is 1-Lipschitz: the argument's rms moves it by at most as much)
  return note({v, moved + un_.eps_tanh * (std::fabs(v) + moved) + un_.tanh_abs,
               a.rms() + un_.eps_tanh_rms * (std::fabs(v) + moved) + un_.tanh_abs});
}

Stage Stages::fold(std::span<const Stage> terms) {
  const B g = terms.empty() ? 0 : gamma(un_.u, terms.size() - 1);
  B v = 0, e = 0, mag = 0, r = 0, steps = 0;
  for (std::size_t k = 0; k < terms.size(); ++k) {
    const Stage& t = terms[k];
    v += t.v, e += t.e, mag += std::fabs(t.v) + t.e, r += t.rms();
    // Step k >= 1 rounds the computed s_k, within e + gamma_k mag <= e +
    // gamma_(n-1) mag of the exact one.
    if (k > 0) {
      const B at = std::fabs(v) + e + g * mag;
      steps += at * at;
    }
  }
  // (additions that underflow are exact: no absolute term)
  return note({v, e + g * mag, r + un_.round_rms * std::sqrt(steps)});
}

}  // namespace kc::oracle::rows

