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
// * exact in double (neg abs relu step sign floor ceil round sqr mul_scalar
//   clamp): err = 0. A product of two 24-bit significands has 48 bits.
// * one rounding in double (sqrt, recip, add_scalar): err = 2^-53 |v|.
// * rsqrt, 1/sqrt(x): two roundings: |v - z| <= (2^-53 + 2^-53 + 2^-106)|z|,
//   taken as 2^-51 |v|.
// * glibc's double exp log sin cos tanh erf: glibc's libm-test-ulps for
//   x86_64 lists at most 2 ulp for each (0.5x ulp bounds for the
//   2.28+ exp and log); we take 4 ulp, 2^-50 |v|, and fall back to MPFR
//   where the result leaves the normal double range.
// * sigmoid, 1 / (1 + e^-x): e^-x with 2^-50 relative error, one rounding
//   of the sum of positive terms and one of the division:
//   (1 + 2^-50)(1 + 2^-53)^2 - 1 < 2^-49.
// Light header: no MPFR.
#pragma once

#include "core/dtype.h"
#include "core/params.h"

namespace kc::oracle::fast {

struct Approx {
  double value = 0;
  double err = 0;  // |value - exact| <= err
  // |exact| < below, strictly: a function that only approaches its limit
  // (tanh, erf, sigmoid and cos(x != 0) stay below 1 in magnitude, where
  // the double result may be within err of 1 or be 1 itself). It decides
  // the binade of the exact value just below a power of two.
  double below = __builtin_inf();
};

// false: no fast answer at this input (a special value, an overflow, a
// range the bound does not cover): the caller evaluates with MPFR.
using Fn = bool (*)(double x, DType t, const Params& params, Approx& out);

bool neg(double x, DType t, const Params& p, Approx& out);
bool abs(double x, DType t, const Params& p, Approx& out);
bool relu(double x, DType t, const Params& p, Approx& out);
bool step(double x, DType t, const Params& p, Approx& out);
bool sign(double x, DType t, const Params& p, Approx& out);
bool floor(double x, DType t, const Params& p, Approx& out);
bool ceil(double x, DType t, const Params& p, Approx& out);
bool round(double x, DType t, const Params& p, Approx& out);
bool sqr(double x, DType t, const Params& p, Approx& out);
bool sqrt(double x, DType t, const Params& p, Approx& out);
bool recip(double x, DType t, const Params& p, Approx& out);
bool rsqrt(double x, DType t, const Params& p, Approx& out);
bool exp(double x, DType t, const Params& p, Approx& out);
bool log(double x, DType t, const Params& p, Approx& out);
bool sin(double x, DType t, const Params& p, Approx& out);
bool cos(double x, DType t, const Params& p, Approx& out);
bool tanh(double x, DType t, const Params& p, Approx& out);
bool erf(double x, DType t, const Params& p, Approx& out);
bool sigmoid(double x, DType t, const Params& p, Approx& out);
// x + T(c), x * T(c), clamp(x, T(min), T(max)): T(c) as the reference's
// NumCast rounds it (oracles/rounding.h num_cast); a sum of two 24-bit
// values rounds once in double, a product and a clamp are exact.
bool add_scalar(double x, DType t, const Params& p, Approx& out);
bool mul_scalar(double x, DType t, const Params& p, Approx& out);
bool clamp(double x, DType t, const Params& p, Approx& out);

}  // namespace kc::oracle::fast
