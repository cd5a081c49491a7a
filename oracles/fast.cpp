#include "oracles/fast.h"

#include <cmath>

namespace kc::oracle::fast {

namespace {

// glibc's double libm functions: 4 ulp of the result (fast.h). Outside the
// normal double range the relative bound does not hold (a result that
// underflowed to 0 may be 1e-362): no fast answer; MPFR has the exponent range.
bool libm(double v, Approx& out) {
  if (!std::isfinite(v) || std::fabs(v) < 0x1p-1000) return false;
  out = {.value = v, .err = std::fabs(v) * 0x1p-50};
  return true;
}
// A function whose values stay strictly inside (-1, 1) for a finite
// non-zero argument: a double result of +-1 is the limit, not the value.
bool below_one(double v, Approx& out) {
  if (!libm(v, out)) return false;
  out.below = 1;
  return true;
}
bool exact(double v, Approx& out) {
  out = {.value = v, .err = 0};
  return true;
}
bool rounded_once(double v, Approx& out) {
  if (!std::isfinite(v) || std::fabs(v) < 0x1p-1000) return false;
  out = {.value = v, .err = std::fabs(v) * 0x1p-53};
  return true;
}
// A sum that cancels exactly is an exact zero (x + (-x) = +0 in double as in
// MPFR's round-to-nearest); any other sum of two 24-bit values rounds once.
bool rounded_once_or_zero(double v, Approx& out) { return v == 0 ? exact(v, out) : rounded_once(v, out); }
// The reference's NumCast of an f64 parameter into T (oracles/rounding.h).
double num_cast(DType t, double c) {
  return t == DType::f64 ? c : round_to_format(round_to_format(c, DType::f32), t);
}

}  // namespace

bool identity(const Scalar& in, Approx& out) { return exact(in.x, out); }
bool neg(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(-x, out); }
bool abs(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(std::fabs(x), out); }
bool relu(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(x > 0 ? x : 0.0, out); }
bool step(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(x > 0 ? 1.0 : 0.0, out); }
bool sign(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0, out); }
bool floor(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(std::floor(x), out); }
bool ceil(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(std::ceil(x), out); }
bool round(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(std::nearbyint(x), out); }  // FE_TONEAREST: ties to even
bool sqr(const Scalar& in, Approx& out) {
  const double x = in.x; return exact(x * x, out); }
bool sqrt(const Scalar& in, Approx& out) {
  const double x = in.x; return x >= 0 && rounded_once(std::sqrt(x), out); }
bool recip(const Scalar& in, Approx& out) {
  const double x = in.x; return x != 0 && rounded_once(1.0 / x, out); }
bool rsqrt(const Scalar& in, Approx& out) {
  const double x = in.x;
  if (!(x > 0) || !std::isfinite(x)) return false;
  const double v = 1.0 / std::sqrt(x);
  out = {.value = v, .err = std::ldexp(v, -51)};
  return true;
}
bool exp(const Scalar& in, Approx& out) {
  const double x = in.x;
  if (x > 709.79) {  // beyond DBL_MAX: overflows every dtype
    out = {};
    out.huge = 1;
    return true;
  }
  if (x < -744261184) return exact(0.0, out);  // MPFR's e^x: +0 below its exponent range
  if (x < -744261000) return false;              // about where it ends: MPFR's
  if (x < -849) {  // (0, 2^-1224)
    out = {};
    out.tiny = 1;
    return true;
  }
  if (x < -690) {  // (0, 2^-995): far below every dtype's smallest subnormal
    out = {.value = 0x1p-996, .err = 0x1p-996, .above = 0};
    return true;
  }
  if (std::fabs(x) < 0x1p-8) {  // 1 + expm1(x): the distance from 1 kept exactly
    // Below 2^-27 (most of a sweep's inputs), expm1(x) = x + x^2/2 + r with
    // |r| <= |x|^3 / 5 < 2^-56 |x|; x has at most 24 bits, so x x / 2 is
    // exact and the sum rounds once: within 2^-53 |t| + 2^-56 |x| < 2^-52 |t|
    // of expm1(x), inside the libm bound taken below.
    const double t = std::fabs(x) < 0x1p-27 ? x + 0.5 * (x * x) : std::expm1(x);
    out = {.value = 1.0, .tail = t, .err = std::fabs(t) * 0x1p-50};
    return true;
  }
  return libm(std::exp(x), out);
}
bool log(const Scalar& in, Approx& out) {
  const double x = in.x; return x > 0 && libm(std::log(x), out); }
bool sin(const Scalar& in, Approx& out) {
  const double x = in.x; return libm(std::sin(x), out); }
bool cos(const Scalar& in, Approx& out) {
  const double x = in.x; return x == 0 ? exact(1.0, out) : below_one(std::cos(x), out); }
bool tanh(const Scalar& in, Approx& out) {
  const double x = in.x; return x == 0 ? exact(x, out) : below_one(std::tanh(x), out); }
bool erf(const Scalar& in, Approx& out) {
  const double x = in.x; return x == 0 ? exact(x, out) : below_one(std::erf(x), out); }
bool sigmoid(const Scalar& in, Approx& out) {
  const double x = in.x;
  const double e = std::exp(-x);
  if (!std::isfinite(e) || e < 0x1p-1000) return false;
  const double v = 1.0 / (1.0 + e);
  out = {.value = v, .err = std::ldexp(v, -49), .below = 1};  // 1 / (1 + e^-x) < 1
  return true;
}
bool add_scalar(const Scalar& in, Approx& out) {
  return rounded_once_or_zero(in.x + num_cast(in.ctx.dtype, in.ctx.params->real("c")), out);
}
bool mul_scalar(const Scalar& in, Approx& out) {
  return exact(in.x * num_cast(in.ctx.dtype, in.ctx.params->real("c")), out);
}
bool clamp(const Scalar& in, Approx& out) {
  const double x = in.x;
  const double lo = num_cast(in.ctx.dtype, in.ctx.params->real("min")), hi = num_cast(in.ctx.dtype, in.ctx.params->real("max"));
  return exact(x < lo ? lo : x > hi ? hi : x, out);
}

// Two operands of at most 24 bits each (binary.h): a sum or difference
// rounds once in double, a product is exact (48 bits), a quotient rounds
// once; the maximum and minimum are exact (their ties and NaNs, where the
// operation allows other answers, are MPFR's: see grade_fast).
bool add(const Pair& in, Approx& out) { return rounded_once_or_zero(in.a + in.b, out); }
bool sub(const Pair& in, Approx& out) { return rounded_once_or_zero(in.a - in.b, out); }
bool mul(const Pair& in, Approx& out) { return exact(in.a * in.b, out); }
bool div(const Pair& in, Approx& out) { return in.b != 0 && rounded_once(in.a / in.b, out); }
bool maximum(const Pair& in, Approx& out) { return in.a != in.b && exact(in.a > in.b ? in.a : in.b, out); }
bool minimum(const Pair& in, Approx& out) { return in.a != in.b && exact(in.a < in.b ? in.a : in.b, out); }

}  // namespace kc::oracle::fast
