// Elementary functions that give the same bits on every CPU, for the
// grading side's own arithmetic: the inputs the drivers and thresholds
// build, and the bounds the oracles compute.
//
// Why not <cmath>. glibc picks much of its libm at load time by CPU: exp,
// log, pow, sin, cos, expm1, log1p, tanh, erf, atan have FMA, AVX2 and
// SSE2 variants that round differently in the last bit (a 20M-input hash
// of each differs under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA), and
// the long double functions run x87's f2xm1, fyl2x and fyl2xp1, whose last
// bits differ between Intel and AMD. A figure computed with them (a bound,
// a generated input, a threshold) could differ from machine to machine.
//
// Two kinds here, neither of which reads the CPU:
// * MPFR's value correctly rounded to the type's precision (53 bits for
//   double, 64 for long double, x87's significand), converted exactly
//   where the result is normal: one number whatever the CPU (MPFR's
//   arithmetic is GMP's integers, whose CPU-specific code computes the
//   same integers), and within half an ulp, where the glibc functions
//   they replace promise 1 to 4. About a microsecond a call: for inputs,
//   thresholds, and a row's or a case's constants.
// * exp, expm1 and tanh in long double, which the row and attention
//   bounds call per element (MPFR there made attention's oracle half
//   again as slow): a polynomial in x87's basic operations alone (+ - * /,
//   each correctly rounded by IEEE 754, so the same bits everywhere),
//   within 2^-56, 2^-54 and 2^-53.9 relative of the exact value
//   (derivation in det_math.cpp; a unit test holds them to it against
//   MPFR). The bounds' arithmetic
//   takes its roundings as relative 2^-64 each and covers them with a
//   factor 1 + 2^-30 (oracles/row_support.h): these are far inside it.
//
// tests/libm_wall_test.sh keeps <cmath>'s inexact functions out of the
// grading side's objects.
#pragma once

namespace kc::oracle::det {

// MPFR, correctly rounded (a result in the subnormal range of the type is
// rounded a second time by the conversion, the same way everywhere).
double exp(double x);
double exp2(double x);
double expm1(double x);
double log(double x);
double log1p(double x);
double log10(double x);
double pow(double x, double y);
double sin(double x);
double cos(double x);
double tanh(double x);
double asinh(double x);
double cbrt(double x);

long double log(long double x);
long double log1p(long double x);
long double pow(long double x, long double y);

// x87's basic operations: e^x within 2^-56 relative (ldexp's rounding
// where the result is subnormal; +inf past ln(max), +0 far below the
// subnormals), e^x - 1 within 2^-54 relative (no cancellation near 0),
// tanh x within 2^-53.9 relative.
long double exp(long double x);
long double expm1(long double x);
long double tanh(long double x);

// (1 + u)^m and Higham's gamma_m = (1 + u)^m - 1 (u > -1, u = +-2^-p in the
// bounds of a fold of m roundings), rounded up: the least double (long
// double) at or above the exact value, as a bound needs it. Computed in
// MPFR at 256 bits with every step rounded the way that raises the result.
double pow1p_up(double u, long m);
double gamma_up(double u, long m);
// (1 + u)^m (1 + v)^k - 1, rounded up (powi's reciprocal: (1 + u)(1 - u)^-a - 1).
double gamma_up(double u, long m, double v, long k);
long double pow1p_up(long double u, long m);
long double gamma_up(long double u, long m);

}  // namespace kc::oracle::det
