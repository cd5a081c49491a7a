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

namespace {
// Scratch numbers for the rounding and the error figures, reused across
// elements: every grade needs them, and a fresh MPFR number is an
// allocation (mpfr_set_prec reuses the storage whenever it is large
// enough). One set per process: kconform grades in one thread per process
// (engine/parallel.cpp), as the precision policy already requires (mp.h).
struct Scratch {
  mpfr_t a, b;
  Scratch() {
    mpfr_init2(a, 64);
    mpfr_init2(b, 64);
  }
  ~Scratch() {
    mpfr_clear(a);
    mpfr_clear(b);
  }
};
Scratch& scratch(mpfr_prec_t prec) {
  static Scratch s;
  if (mpfr_get_prec(s.a) != prec) {
    mpfr_set_prec(s.a, prec);
    mpfr_set_prec(s.b, prec);
  }
  return s;
}
}  // namespace

Rounded round_checked(DType t, const Mp& z) {
  if (mpfr_nan_p(raw(z))) return {NAN, false, false};
  if (mpfr_inf_p(raw(z))) return {mpfr_signbit(raw(z)) ? -INFINITY : INFINITY, false, false};
  if (mpfr_zero_p(raw(z))) return {mpfr_signbit(raw(z)) ? -0.0 : 0.0, false, false};
  const FloatFormat f = float_format(t);
  const bool neg = mpfr_signbit(raw(z)) != 0;
  if (exponent_of(z) > f.emax) return {neg ? -INFINITY : INFINITY, false, false};
  const int q = ulp_exponent(t, z);
  const mpfr_prec_t prec = mpfr_get_prec(raw(z));
  Scratch& k = scratch(prec);
  // s = z / 2^q: the last bit of T has weight 1 in s. Rounding s to an
  // integer (ties to even) is rounding z to T. Every step is exact at z's
  // precision: a power-of-two scaling, an integer of at most p + 1 bits,
  // and d = s - RN(s), |d| <= 1/2, whose distance from the midpoint is
  // 1/2 - |d|.
  mpfr_mul_2si(k.a, raw(z), -q, MPFR_RNDN);      // s
  mpfr_rint(k.b, k.a, MPFR_RNDN);                // RN(s)
  mpfr_sub(k.a, k.a, k.b, MPFR_RNDN);            // d
  const long s_exp = exponent_of(z) - q;         // the exponent of s
  const bool midpoint = mpfr_cmp_ui_2exp(k.a, 1, -1) == 0 || mpfr_cmp_si_2exp(k.a, -1, -1) == 0;  // d = +-1/2
  mpfr_abs(k.a, k.a, MPFR_RNDN);
  mpfr_sub_d(k.a, k.a, 0.5, MPFR_RNDN);  // |d| - 1/2, exact (in MPFR: not 0.5 - |d| in double, which cancels)
  const double d = std::fabs(mpfr_get_d(k.a, MPFR_RNDN));
  // s carries working_bits of precision; its absolute uncertainty is a few
  // units of 2^(exp(s) - prec). Call it near when within 2^10 of those.
  const double slack = std::ldexp(1.0, static_cast<int>(s_exp - prec + 10));
  mpfr_mul_2si(k.b, k.b, q, MPFR_RNDN);  // exact
  double v = mpfr_get_d(k.b, MPFR_RNDN);  // exact: a T value
  if (v == 0) v = neg ? -0.0 : 0.0;
  if (std::fabs(v) > max_finite(t)) v = neg ? -INFINITY : INFINITY;
  return {v, d <= slack, midpoint};
}

double round_to(DType t, const Mp& z) { return round_checked(t, z).value; }

Difference difference(DType t, double y, const Mp& z) {
  // y - z rounded once at the working precision (not z's: one read from a
  // double has 53 bits, and y - z may need more).
  Scratch& k = scratch(PrecisionScope::current());
  mpfr_d_sub(k.a, y, raw(z), MPFR_RNDN);
  Difference d;
  d.value = mpfr_get_d(k.a, MPFR_RNDN);
  d.relative = NAN;
  if (!mpfr_zero_p(raw(z))) {
    mpfr_div(k.b, k.a, raw(z), MPFR_RNDN);
    d.relative = std::fabs(mpfr_get_d(k.b, MPFR_RNDN));
  }
  mpfr_mul_2si(k.a, k.a, -ulp_exponent(t, z), MPFR_RNDN);
  d.ulps = mpfr_get_d(k.a, MPFR_RNDN);
  return d;
}

double signed_frac_ulp(DType t, double y, const Mp& z) { return difference(t, y, z).ulps; }

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
