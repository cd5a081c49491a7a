// The oracle's fast path: a unary kernel's exact function evaluated in
// double with a proven (or documented, then tested) error bound, for inputs
// and results of at most 24 bits (f32, bf16, f16). It decides an element
// only where the bound cannot change the verdict or the figures reported:
// the engine (engine/grading.cpp, grade_fast) accepts an approximation only
// when [v - err, v + err] rounds to one T value, lies in one binade, and
// keeps the fractional error off the bound and off every histogram edge;
// everything else (specials, failures, near-ties, possible worst cases and
// maxima) goes to MPFR. tests/fast_oracle_test.cpp holds both paths equal
// over millions of inputs, every near-tie of the sweeps included.
//
// Bounds (|value - z| <= err):
// * exact in double (identity neg abs relu step sign floor ceil round sqr
//   mul_scalar clamp): err = 0. A product of two 24-bit significands has 48 bits.
// * one rounding in double (sqrt, recip, add_scalar, add, sub, div):
//   err = 2^-53 |v| (0 for an exactly cancelling sum).
// * rsqrt, 1/sqrt(x): two roundings: |v - z| <= (2^-53 + 2^-53 + 2^-106)|z|,
//   taken as 2^-51 |v|.
// * glibc's double exp log sin cos tanh erf: glibc's libm-test-ulps for
//   x86_64 lists at most 2 ulp for each (0.5x ulp bounds for the
//   2.28+ exp and log); we take 4 ulp, 2^-50 |v|, and fall back to MPFR
//   where the result leaves the normal double range.
// * exp near 0, |x| < 2^-8: 1 + expm1(x) as a double-double, expm1 with the
//   same 4 ulp (libm-test-ulps: 1), err = 2^-50 |expm1(x)|; far outside,
//   intervals: x > 709.79, e^x > DBL_MAX (log DBL_MAX = 709.7827...);
//   -849 <= x < -690, 0 < e^x < e^-690 = 2^-995.45 < 2^-995, so e^x lies
//   within 2^-996 of 2^-996; x < -849, e^x < 2^-1224.8 (`tiny`); and below
//   -744261184 the oracle's own value, +0: MPFR's exponent range (emin =
//   1 - 2^30) ends at 2^(emin - 1), and e^x < 2^(emin - 2) = e^-744261118.4
//   rounds to +0 there (the few f32 inputs between go to MPFR).
// * sigmoid, 1 / (1 + e^-x): e^-x with 2^-50 relative error, one rounding
//   of the sum of positive terms and one of the division:
//   (1 + 2^-50)(1 + 2^-53)^2 - 1 < 2^-49.
// Light header: no MPFR.
#pragma once

#include <cmath>

#include "oracles/input.h"

namespace kc::oracle::fast {

struct Approx {
  double value = 0;
  // z is near value + tail, an unevaluated sum (a double-double), where one
  // double cannot hold how far z lies from a round number: e^x = 1 +
  // expm1(x) for a tiny x. 0 for a plain double.
  double tail = 0;
  double err = 0;  // |value + tail - exact| <= err
  // |exact| < below, strictly: a function that only approaches its limit
  // (tanh, erf, sigmoid and cos(x != 0) stay below 1 in magnitude, where
  // the double result may be within err of 1 or be 1 itself). It decides
  // the binade of the exact value just below a power of two.
  double below = __builtin_inf();
  // |exact| > above, strictly (-1: nothing known; 0: the exact value is not
  // zero, as e^x for an x whose e^x lies far below every dtype's range).
  double above = -1;
  // +-1: |exact| exceeds the largest double, with this sign (e^x for x >
  // 709.79): the value overflows every dtype; value, tail and err unused.
  int huge = 0;
  // +-1: 0 < +-exact < 2^-1224, with this sign (e^x for x < -849): every
  // figure of a zero result is then exact in double (its fractional error
  // z / ulp_T(z) < 2^-1075 and |z| both round to 0, the relative error is
  // 1); value, tail and err unused.
  int tiny = 0;
};

// Each kernel's fast path, `bool f(const In&, Approx&)`, is defined beside
// its exact function and replay (oracles/unary.cpp, activations.cpp,
// binary.cpp, cast.cpp; declared by KC_MATH_OF, oracles/oracle.h). It returns false
// where it has no fast answer at this input (a special value, an overflow,
// a range the bound does not cover): the caller evaluates with MPFR. The
// answers below are the bounds above, written once.

// Exact in double.
inline bool exact(double v, Approx& out) {
  out = {.value = v, .err = 0};
  return true;
}
// One rounding in double. Outside the normal double range the relative
// bound does not hold (a result that underflowed to 0 may be 1e-362): no
// fast answer there; MPFR has the exponent range.
inline bool rounded_once(double v, Approx& out) {
  if (!std::isfinite(v) || std::fabs(v) < 0x1p-1000) return false;
  out = {.value = v, .err = std::fabs(v) * 0x1p-53};
  return true;
}
// A sum that cancels exactly is an exact zero (x + (-x) = +0 in double as in
// MPFR's round-to-nearest); any other sum of two 24-bit values rounds once.
inline bool rounded_once_or_zero(double v, Approx& out) { return v == 0 ? exact(v, out) : rounded_once(v, out); }
// A value of glibc's double libm: 4 ulp, 2^-50 |v|, normal range only.
inline bool libm(double v, Approx& out) {
  if (!rounded_once(v, out)) return false;
  out.err = std::fabs(v) * 0x1p-50;
  return true;
}
// A function whose values stay strictly inside (-1, 1) for a finite
// non-zero argument: a double result of +-1 is the limit, not the value.
inline bool below_one(double v, Approx& out) {
  if (!libm(v, out)) return false;
  out.below = 1;
  return true;
}

}  // namespace kc::oracle::fast
