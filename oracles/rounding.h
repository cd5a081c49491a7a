// Rounding an exact MPFR value into a target format and measuring errors in
// that format's ulps (accuracy.md: ulp_T(z) = 2^(max(e, emin) - p + 1)).
#pragma once

#include <cstdint>

#include "core/dtype.h"
#include "oracles/mp.h"

namespace kc::oracle {

// RN_T(z): ties to even, gradual underflow, overflow to +-inf. Exact: the
// value is rounded once, from the MPFR number itself (no detour through
// double). The result is returned as a double, which holds every T exactly.
double round_to(DType t, const Mp& z);

// Same rounding, but also says whether z lies so close to a rounding
// boundary (a midpoint between two T values) that an oracle error of a few
// ulps at z's own precision could flip the result: the caller then
// re-evaluates at higher precision (Ziv). An exact midpoint is reported as
// near too; it stays one when the higher-precision value is still exact.
struct Rounded {
  double value;
  bool near_boundary;
  bool exactly_midpoint;
};
Rounded round_checked(DType t, const Mp& z);

// One correct rounding into T, as an Mp: every step the reference performs
// in T (halves: an f32 operation and RNE, the same thing, §0.2).
inline Mp rn(DType t, const Mp& v) { return Mp(round_to(t, v)); }

// T(c) for an f64 constant, a parameter or a count, as num-traits' NumCast
// converts it (reference-semantics.md §0.3): one RNE for f32, f64 -> f32 ->
// T (double rounding) for halves, identity for f64.
double num_cast(DType t, double c);

// u = 2^-p of a float format.
double unit_roundoff(DType t);

// ulp_T(z) as a power-of-two exponent: ulp = 2^ulp_exponent(t, z).
int ulp_exponent(DType t, const Mp& z);

// y - z, (y - z) / ulp_T(z) and |y - z| / |z| (NaN for z = 0), from one
// subtraction, each rounded once into double (the relative error divides in
// MPFR: |z| may lie below double's range, where a double quotient is 0/0).
// y and z finite.
struct Difference {
  double value, ulps, relative;
};
Difference difference(DType t, double y, const Mp& z);

// |y - z| / ulp_T(z), and (y - z) / ulp_T(z). y and z finite.
double frac_ulp(DType t, double y, const Mp& z);
double signed_frac_ulp(DType t, double y, const Mp& z);

// Number of representable T values between two T values (0 when equal,
// +0 and -0 are the same point), saturating at INT64_MAX.
std::int64_t ulp_distance(DType t, double a, double b);

}  // namespace kc::oracle
