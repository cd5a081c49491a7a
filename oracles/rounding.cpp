#include "oracles/rounding.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace kc::oracle {

namespace {

// Exponent e with 2^e <= |z| < 2^(e+1); z finite non-zero.
long exponent_of(const Mp& z) { return static_cast<long>(mpfr_get_exp(raw(z))) - 1; }

}  // namespace

double num_cast(DType t, double c) {
  if (t == DType::f64) return c;
  return round_to_format(round_to_format(c, DType::f32), t);
}

double unit_roundoff(DType t) { return std::ldexp(1.0, -float_format(t).precision); }

int ulp_exponent(DType t, const Mp& z) {
  const FloatFormat f = float_format(t);
  long e = (mpfr_zero_p(raw(z)) || !mpfr_number_p(raw(z))) ? f.emin : std::max<long>(exponent_of(z), f.emin);
  return static_cast<int>(e - f.precision + 1);
}

Rounded round_checked(DType t, const Mp& z) {
  if (mpfr_nan_p(raw(z))) return {NAN, false, false};
  if (mpfr_inf_p(raw(z))) return {mpfr_signbit(raw(z)) ? -INFINITY : INFINITY, false, false};
  if (mpfr_zero_p(raw(z))) return {mpfr_signbit(raw(z)) ? -0.0 : 0.0, false, false};
  const FloatFormat f = float_format(t);
  const bool neg = mpfr_signbit(raw(z)) != 0;
  if (exponent_of(z) > f.emax) return {neg ? -INFINITY : INFINITY, false, false};
  const int q = ulp_exponent(t, z);
  // s = z / 2^q: the last bit of T has weight 1 in s. Rounding s to an
  // integer (ties to even) is rounding z to T.
  Mp s = z;
  mpfr_mul_2si(s.backend().data(), raw(z), -q, MPFR_RNDN);  // exact
  Mp r = s;
  mpfr_rint(r.backend().data(), raw(s), MPFR_RNDN);
  // Distance of s from the nearest midpoint (k + 1/2).
  Mp fl = s;
  mpfr_floor(fl.backend().data(), raw(s));
  Mp frac = s - fl;  // in [0, 1)
  Mp dist = frac - Mp(0.5);
  const double d = std::fabs(dist.convert_to<double>());
  // s carries working_bits of precision; its absolute uncertainty is a few
  // units of 2^(exp(s) - prec). Call it near when within 2^10 of those.
  const long prec = static_cast<long>(mpfr_get_prec(raw(s)));
  const double slack = std::ldexp(1.0, static_cast<int>(exponent_of(s) - prec + 10));
  mpfr_mul_2si(r.backend().data(), raw(r), q, MPFR_RNDN);  // exact
  double v = r.convert_to<double>();  // exact: r is a T value
  if (v == 0) v = neg ? -0.0 : 0.0;
  if (std::fabs(v) > max_finite(t)) v = neg ? -INFINITY : INFINITY;
  return {v, d <= slack, d == 0};
}

double round_to(DType t, const Mp& z) { return round_checked(t, z).value; }

double signed_frac_ulp(DType t, double y, const Mp& z) {
  Mp diff = Mp(y) - z;
  mpfr_mul_2si(diff.backend().data(), raw(diff), -ulp_exponent(t, z), MPFR_RNDN);
  return diff.convert_to<double>();
}

double frac_ulp(DType t, double y, const Mp& z) { return std::fabs(signed_frac_ulp(t, y, z)); }

std::int64_t ulp_distance(DType t, double a, double b) {
  // The difference of two f64 images can reach 2^64 - 2: take it in 128
  // bits and saturate (no distance that large is ever within a bound).
  const __int128 oa = ordered_bits(t, double_to_bits(t, a));
  const __int128 ob = ordered_bits(t, double_to_bits(t, b));
  const __int128 d = oa > ob ? oa - ob : ob - oa;
  return static_cast<std::int64_t>(std::min<__int128>(d, INT64_MAX));
}

}  // namespace kc::oracle
