// The decision procedure of the fast paths (engine/fast_grading.cpp): an
// approximation v + tail of the exact value z, within err
// (oracles/fast.h), decides an element where nothing reported can depend on
// err; everything else is MPFR's. Templates over the figures' record
// (Figures, or a lane's LaneFigures), inlined where they run per element.
// Internal to engine/fast_grading.cpp (and its tests through
// decide_*_for_test).
#pragma once

#include <cmath>
#include <cstring>
#include <optional>

#include "contracts/contract.h"
#include "engine/context.h"
#include "engine/figure_grid.h"
#include "engine/grading.h"
#include "oracles/fast.h"

namespace kc::engine::detail {

using contract::AccuracyKind;

// 2^e <= |x| < 2^(e+1) for a normal double x, read from its bits (std::ilogb
// is a library call, and this runs per element).
[[gnu::always_inline]] inline int binade_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  return biased == 0 ? std::ilogb(x) : biased - 1023;
}

// The midpoints between the finite T value r and its neighbours below and
// above, exact in double (T values have <= 24 bits). Half an ulp of r on
// either side, except below a power of two r = 2^e above emin, where the
// spacing halves; the upper midpoint of the largest finite value is the
// overflow threshold max + ulp/2.
[[gnu::always_inline]] inline void midpoints(const FloatFormat& f, double r, double& lo, double& hi) {
  if (r == 0) {
    hi = pow2(f.emin - f.precision);
    lo = -hi;
    return;
  }
  const double a = std::fabs(r);
  const int e = std::max(binade_of(a), f.emin);
  const double away = pow2(e - f.precision);
  const double toward = a == pow2(e) && e > f.emin ? away / 2 : away;
  lo = r > 0 ? r - toward : r - away;
  hi = r > 0 ? r + away : r + toward;
}

// Where z lies with respect to the double b, for |v + tail - z| <= err:
// +1 above, -1 below, 0 when the bound cannot tell. t = v - b and s = t +
// tail each round once in double (relative error <= 2^-53), so |s - (v +
// tail - b)| <= 2^-52 (|t| + |tail|), taken as 2^-51 to spare the proof its
// second-order terms. (A sum whose result is subnormal is exact: both
// operands are multiples of 2^-1074, so no term for underflow is needed.)
[[gnu::always_inline]] inline int side(double v, double tail, double err, double b) {
  const double t = v - b, s = t + tail;
  const double slack = err + 0x1p-51 * (std::fabs(t) + std::fabs(tail));
  return s > slack ? 1 : s < -slack ? -1 : 0;
}

// The element graded from an approximation v + tail of z, within err
// (oracles/fast.h), when nothing reported can depend on err: the rounding
// RN_T(z) and the ulp of z are the same for every value within err, and
// the fractional error stays clear of the bound and of the histogram
// edges. Anything else (a failure, a near-tie, a zero whose sign is
// graded) returns false and is graded with MPFR at the working precision.
// The figures are those grade_at gives, to within the uncertainties set.
// The model's verdict on approximate figures g (decide()'s last step):
// true where it passes them with room to spare (off the bound and off
// every histogram edge by more than their uncertainty, and every figure
// within it on one point of the tallies' grid, engine/figure_grid.h),
// setting the bound and the bias sample; false: the element is MPFR's.
// exact_value: z itself is known exactly (err 0, no tail).
template <class Out>
[[gnu::always_inline]] inline bool model_decides(const contract::Accuracy& acc, bool exact_value, Out& g) {
  switch (acc.kind) {
    case AccuracyKind::exact:
      if (!exact_value || g.frac != 0) return false;
      g.bound = 0;
      break;
    case AccuracyKind::correctly_rounded:
      if (g.distance != 0) return false;
      g.bound = 0.5;
      break;
    case AccuracyKind::ulp_bound:
      g.bound = acc.max_frac_ulp;
      if (g.frac + g.uncertainty > g.bound || (acc.max_distance >= 0 && g.distance > acc.max_distance))
        return false;
      g.bias_sample = acc.check_bias;
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    case AccuracyKind::condition_aware: return false;
  }
  return !near_histogram_edge(g.frac, g.uncertainty) && one_grid_point(g.frac, g.uncertainty);
}

// 0 < |z| < 2^-1224 (Approx::tiny): RN_T(z) is a zero of z's sign, and
// for y = 0 every figure is exact in double (fast.h); anything else is
// MPFR's.
template <class Out>
[[gnu::always_inline]] inline bool decide_tiny(const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                                               Out& g) {
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (y != 0 || acc.kind == AccuracyKind::exact || (sign_graded && std::signbit(y) != (a.tiny < 0))) return false;
  g = Out{};
  g.approximate = true;
  g.rn = a.tiny < 0 ? -0.0 : 0.0;
  g.abs_err = 0;
  g.rel_err = 1;
  g.bound = acc.kind == AccuracyKind::ulp_bound ? acc.max_frac_ulp : 0.5;
  g.bias_sample = acc.kind == AccuracyKind::ulp_bound && acc.check_bias;
  return true;
}

// RN_T(z) = +-inf (sign sgn): as grade_at, a pass with no ulp figure where
// the kernel returns that infinity; anything else is a failure, MPFR's.
// g: freshly reset, approximate.
template <class Out>
[[gnu::always_inline]] inline bool decide_overflow(int sgn, double y, Out& g) {
  g.rn = sgn * INFINITY;
  g.overflow = true;
  g.distance = -1;
  g.frac = NAN;
  return y == g.rn;
}

// z = v = +-0 exactly (e^x below MPFR's exponent range, fast.h) and y a
// zero of the same sign: decide()'s branches for an exact value of the
// subnormal binade, taken in order (the figures are those it sets: no
// error, no relative error of a zero).
template <class Out>
[[gnu::always_inline]] inline bool decide_exact_zero(const FloatFormat& f, const contract::Accuracy& acc, double y,
                                                     double v, Out& g) {
  g = Out{};
  g.approximate = true;
  g.rn = v;
  const int q = f.emin - f.precision + 1;
  const double diff = y - v;
  g.signed_frac = diff * pow2(-q);
  g.frac = std::fabs(g.signed_frac);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = 0;
  g.uncertainty = 0;
  g.distance = 0;
  return model_decides(acc, true, g);
}

// The common case of decide() (most of a sweep), in a fraction of its
// instructions: z near one double s = v + tail (for a plain double, s = v
// and es = err, where err >= 2^-53 |v|, as every libm and once-rounded
// approximation gives, or err = 0: z = v exactly; a double-double's tail, at most |s| / 16, is folded
// in with one rounding more: |s - z| <= es = err + 2^-53 |s|) whose
// widened interval s +- 2 es lies, in magnitude, inside one normal binade
// of T, below `below` and below half the overflow threshold, and a finite
// non-zero y. Where a double-double's interval straddles one power of two
// P (e^x = 1 + expm1(x) for a tiny x sits at P = 1), its unrounded parts
// tell z's side as decide() tells it (side()), and the interval is cut
// there. Then the general procedure takes its plain branches only: no
// overflow, the midpoint test, the ulp from that binade, the relative
// error from 1/|s|, no sign of zero. nullopt: not this case (decide() goes
// on); else decide()'s answer, with the figures it sets
// (FastOracle.CommonCaseIsDecide holds the two equal). A double-double
// whose interval meets a midpoint also goes on: decide()'s own test of its
// parts is finer than the widened interval's. (w_lo and w_hi below are the
// magnitudes of decide's wide_lo and wide_hi: |s| -+ 2 es rounds as s -+ 2
// es does, mirrored.)
template <class Out>
[[gnu::always_inline]] inline std::optional<bool> decide_common(DType t_out, const FloatFormat& f,
                                                                const contract::Accuracy& acc, double y,
                                                                const oracle::fast::Approx& a, Out& g) {
  const double v = a.value, tail = a.tail, err = a.err, s = v + tail, as = std::fabs(s);
  if (a.tiny) return decide_tiny(acc, y, a, g);
  if (a.huge) {
    g = Out{};
    g.approximate = true;
    return decide_overflow(a.huge, y, g);
  }
  if (v == 0 && err == 0 && tail == 0 && !a.huge && a.above < 0 && y == 0 && std::signbit(y) == std::signbit(v))
    return decide_exact_zero(f, acc, y, v, g);
  const double es = tail == 0 ? err : err + 0x1p-53 * as;
  const bool exact_value = err == 0 && tail == 0;  // (the interval is the value: no rounding widens it)
  if (a.tiny || a.huge || !(es >= 0x1p-53 * as || exact_value) || !(es < INFINITY) || y == 0 || !std::isfinite(y) ||
      !(std::fabs(tail) <= 0x1p-4 * as))
    return std::nullopt;
  double w_lo = as - 2 * es, w_hi = as + 2 * es;
  const double min_norm = pow2(f.emin), half_threshold = (1 - pow2(-f.precision - 1)) * pow2(f.emax);
  int e = binade_of(w_lo);
  if (!(w_lo >= min_norm && w_hi < half_threshold && w_hi < a.below)) return std::nullopt;
  if (binade_of(w_hi) != e) {
    if (tail == 0 || binade_of(w_hi) != e + 1) return std::nullopt;
    const double p = pow2(e + 1);
    const int above = side(v, tail, err, std::copysign(p, s)) * (s < 0 ? -1 : 1);  // +1: |z| > P
    if (above == 0) return std::nullopt;
    if (above > 0) w_lo = p, e = e + 1;
    else w_hi = p;
  }
  g = Out{};
  g.approximate = true;
  const double ar = t_out == DType::f32 ? static_cast<double>(static_cast<float>(as)) : round_to_format(as, t_out);
  // midpoints() of |r| (>= 2^e >= 2^emin): half an ulp above, and below
  // too unless |r| is a power of two above emin, where the spacing halves.
  const int er = binade_of(ar);
  const double away = pow2(er - f.precision), toward = ar == pow2(er) && er > f.emin ? away / 2 : away;
  if (!(w_lo > ar - toward && w_hi < ar + away)) return tail == 0 ? std::optional<bool>(false) : std::nullopt;
  const double r = std::copysign(ar, s);
  const int q = e - f.precision + 1;
  g.rn = r;
  // y - v - tail: two roundings in double, so the error figures carry err
  // plus those (as decide's).
  const double d1 = y - v, diff = d1 - tail;
  const double abs_unc = err + 0x1p-52 * (std::fabs(d1) + std::fabs(tail));
  g.signed_frac = diff * pow2(-q);
  g.frac = std::fabs(g.signed_frac);
  g.uncertainty = abs_unc * pow2(-q);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = abs_unc;
  const double inv = 1 / as, d = 0x1p-52 + err * inv;
  if (!(d <= 0x1p-10)) return false;
  g.rel_err = g.abs_err * inv;
  g.rel_uncertainty = (g.abs_err + abs_unc) * inv * (1 + 2 * d) * (1 + 0x1p-50) - g.rel_err;
  g.distance = y == r ? 0 : std::abs(ordered_bits(t_out, double_to_bits(t_out, y)) - ordered_bits(t_out, double_to_bits(t_out, r)));
  return model_decides(acc, exact_value, g);
}

// The exponent q of the ulp of z, 2^(max(e, emin) - p + 1) for 2^e <= |z|
// < 2^(e+1), where it is the same for every value within err: below the
// normal range it does not depend on e; above, |z| must lie in one binade,
// which `below` and `above` (strict bounds the function knows) may close at
// a power of two. nullopt: it is not (MPFR's). decide()'s step; wide_lo and
// wide_hi are its widened interval, reach >= |z|.
[[gnu::always_inline]] inline std::optional<int> ulp_quantum(const FloatFormat& f, const oracle::fast::Approx& a,
                                                            int sgn, bool plain, double wide_lo, double wide_hi,
                                                            double reach) {
  const double v = a.value, tail = a.tail, err = a.err, min_norm = pow2(f.emin);
  int q = f.emin - f.precision + 1;
  const double mag = std::fabs(v + tail);
  const bool exact_value = err == 0 && tail == 0;
  const double wide_mag_lo = std::fabs(sgn > 0 ? wide_lo : wide_hi), wide_mag_hi = std::fabs(sgn > 0 ? wide_hi : wide_lo);
  if (exact_value && mag >= min_norm) {
    q = binade_of(mag) - f.precision + 1;
  } else if (plain && wide_mag_hi < min_norm && (sgn > 0 ? wide_lo : -wide_hi) >= 0) {
    // (below the normal range: the subnormal ulp)
  } else if (plain && wide_mag_lo >= min_norm && wide_mag_hi < a.below && (sgn > 0 ? wide_lo : -wide_hi) > 0 &&
             binade_of(wide_mag_lo) == binade_of(wide_mag_hi)) {
    q = binade_of(wide_mag_lo) - f.precision + 1;
  } else if (!exact_value && (reach >= 2 * min_norm || side(v, tail, err, sgn * min_norm) != -sgn)) {
    if (mag == 0) return std::nullopt;
    int ev = binade_of(mag);
    // v + tail rounded may sit at the power of two just above z's binade.
    int lo_side = side(v, tail, err, sgn * pow2(ev));
    if (lo_side == -sgn) lo_side = side(v, tail, err, sgn * pow2(--ev));
    const double lo = pow2(ev), hi = pow2(ev + 1);
    const bool lo_ok = lo_side == sgn || a.above >= lo;
    const bool hi_ok = side(v, tail, err, sgn * hi) == -sgn || a.below <= hi;
    if (!lo_ok || !hi_ok || ev < f.emin) return std::nullopt;
    q = ev - f.precision + 1;
  }
  return q;
}

template <class Out, bool kCommon = true>
bool decide(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a, Out& g) {
  const DType t_out = c.out_dtype();
  if constexpr (kCommon)
    if (const auto common = decide_common(t_out, float_format(t_out), acc, y, a, g)) return *common;
  const double v = a.value, tail = a.tail, err = a.err;
  if (a.tiny) return decide_tiny(acc, y, a, g);
  if (!a.huge && !(std::isfinite(v) && std::isfinite(tail) && std::isfinite(err))) return false;
  const FloatFormat f = float_format(t_out);
  // RN_T ties to even at the overflow threshold max + ulp/2 (max is odd),
  // so an exact value at or above it rounds to infinity.
  const double threshold = (2 - pow2(-f.precision)) * pow2(f.emax);
  g = Out{};
  g.approximate = true;  // (precision 0: no MPFR evaluation decided it)
  // The sign of z (of v for an exact zero: -0 stays -0).
  const int sgn = a.huge ? a.huge : std::signbit(tail == 0 ? v : v + tail) ? -1 : 1;
  // (The comparisons with side() are skipped where a margin of a factor of
  // two, far beyond any rounding of these sums, decides them.)
  const double reach = std::fabs(v) + std::fabs(tail) + err;  // >= |z|, to within a rounding
  if (a.huge || (reach >= threshold / 2 && side(v, tail, err, sgn * threshold) == sgn)) return decide_overflow(sgn, y, g);
  if (std::isinf(y)) return false;  // a spurious infinity: MPFR's
  // RN_T(z): the T value r nearest v + tail, when every value within err
  // of it lies strictly between the midpoints around r (exact in double,
  // midpoints(); above max, the overflow threshold).
  // (f32 inline: a call per element otherwise)
  const double r = std::copysign(t_out == DType::f32 ? static_cast<double>(static_cast<float>(v + tail))
                                                    : round_to_format(v + tail, t_out), sgn);
  if (!std::isfinite(r)) return false;
  double mid_lo, mid_hi;
  midpoints(f, r, mid_lo, mid_hi);
  // The common case, a plain double with a relative bound of at least
  // 2^-53: the interval widened to v +- 2 err contains [v - err, v + err]
  // even after its own rounding (<= 2^-53 |v| <= err), so plain
  // comparisons decide what side() decides in general.
  const bool plain = tail == 0 && err >= 0x1p-53 * std::fabs(v);
  const double wide_lo = v - 2 * err, wide_hi = v + 2 * err;
  if (plain ? !(wide_lo > mid_lo && wide_hi < mid_hi)
            : side(v, tail, err, mid_lo) != 1 || side(v, tail, err, mid_hi) != -1)
    return false;
  const std::optional<int> quantum = ulp_quantum(f, a, sgn, plain, wide_lo, wide_hi, reach);
  if (!quantum) return false;
  const int q = *quantum;
  const double mag = std::fabs(v + tail);
  const bool exact_value = err == 0 && tail == 0;
  g.rn = r;
  g.overflow = false;
  // y - v - tail: two roundings in double, so the error figures carry err
  // plus those.
  const double d1 = y - v, diff = d1 - tail;
  const double abs_unc = err + 0x1p-52 * (std::fabs(d1) + std::fabs(tail));  // (subnormal differences: exact)
  g.signed_frac = diff * pow2(-q);  // exact: a power of two within range
  g.frac = std::fabs(g.signed_frac);
  g.uncertainty = abs_unc * pow2(-q);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = abs_unc;
  if (y == 0 && (a.above >= 0 || side(v, tail, err, 0) != 0)) {
    g.rel_err = 1;  // |0 - z| / |z| for a z known not to be zero
  } else if (mag != 0 || err != 0) {
    // |z| >= |v + tail| (1 - d) with d = 2^-52 + err / |v + tail| (the
    // rounding of v + tail, then err); for d <= 2^-10, 1 / (1 - d) <= 1 + 2d,
    // and the products with the rounded reciprocal stay within another
    // 2^-50: one division per element, not two.
    if (mag == 0) return false;
    const double inv = 1 / mag, d = 0x1p-52 + err * inv;
    if (!(d <= 0x1p-10)) return false;
    g.rel_err = g.abs_err * inv;
    g.rel_uncertainty = (g.abs_err + abs_unc) * inv * (1 + 2 * d) * (1 + 0x1p-50) - g.rel_err;
  }
  // (T has at most 24 bits here: the images' difference fits, and f32's is inline.)
  g.distance = y == r ? 0 : std::abs(ordered_bits(t_out, double_to_bits(t_out, y)) - ordered_bits(t_out, double_to_bits(t_out, r)));
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (sign_graded && c.k.zero_sign_checked && y == 0 && r == 0 && (!exact_value || std::signbit(y) != std::signbit(r)))
    return false;  // the sign of a zero: MPFR's
  return model_decides(acc, exact_value, g);
}

}  // namespace kc::engine::detail
