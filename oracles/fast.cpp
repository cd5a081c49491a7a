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

bool identity(const double* args, DType, const Params&, Approx& out) { return exact(args[0], out); }
bool neg(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(-x, out); }
bool abs(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(std::fabs(x), out); }
bool relu(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(x > 0 ? x : 0.0, out); }
bool step(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(x > 0 ? 1.0 : 0.0, out); }
bool sign(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0, out); }
bool floor(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(std::floor(x), out); }
bool ceil(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(std::ceil(x), out); }
bool round(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(std::nearbyint(x), out); }  // FE_TONEAREST: ties to even
bool sqr(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return exact(x * x, out); }
bool sqrt(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x >= 0 && rounded_once(std::sqrt(x), out); }
bool recip(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x != 0 && rounded_once(1.0 / x, out); }
bool rsqrt(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0];
  if (!(x > 0) || !std::isfinite(x)) return false;
  const double v = 1.0 / std::sqrt(x);
  out = {.value = v, .err = std::ldexp(v, -51)};
  return true;
}
bool exp(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0];
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
bool log(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x > 0 && libm(std::log(x), out); }
bool sin(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return libm(std::sin(x), out); }
bool cos(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x == 0 ? exact(1.0, out) : below_one(std::cos(x), out); }
bool tanh(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x == 0 ? exact(x, out) : below_one(std::tanh(x), out); }
bool erf(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0]; return x == 0 ? exact(x, out) : below_one(std::erf(x), out); }
bool sigmoid(const double* args, DType, const Params&, Approx& out) {
  const double x = args[0];
  const double e = std::exp(-x);
  if (!std::isfinite(e) || e < 0x1p-1000) return false;
  const double v = 1.0 / (1.0 + e);
  out = {.value = v, .err = std::ldexp(v, -49), .below = 1};  // 1 / (1 + e^-x) < 1
  return true;
}
bool add_scalar(const double* args, DType t, const Params& p, Approx& out) {
  return rounded_once_or_zero(args[0] + num_cast(t, p.real("c")), out);
}
bool mul_scalar(const double* args, DType t, const Params& p, Approx& out) {
  return exact(args[0] * num_cast(t, p.real("c")), out);
}
bool clamp(const double* args, DType t, const Params& p, Approx& out) {
  const double x = args[0];
  const double lo = num_cast(t, p.real("min")), hi = num_cast(t, p.real("max"));
  return exact(x < lo ? lo : x > hi ? hi : x, out);
}

// Two operands of at most 24 bits each (binary.h): a sum or difference
// rounds once in double, a product is exact (48 bits), a quotient rounds
// once; the maximum and minimum are exact (their ties and NaNs, where the
// operation allows other answers, are MPFR's: see grade_fast).
bool add(const double* a, DType, const Params&, Approx& out) { return rounded_once_or_zero(a[0] + a[1], out); }
bool sub(const double* a, DType, const Params&, Approx& out) { return rounded_once_or_zero(a[0] - a[1], out); }
bool mul(const double* a, DType, const Params&, Approx& out) { return exact(a[0] * a[1], out); }
bool div(const double* a, DType, const Params&, Approx& out) { return a[1] != 0 && rounded_once(a[0] / a[1], out); }
bool maximum(const double* a, DType, const Params&, Approx& out) { return a[0] != a[1] && exact(a[0] > a[1] ? a[0] : a[1], out); }
bool minimum(const double* a, DType, const Params&, Approx& out) { return a[0] != a[1] && exact(a[0] < a[1] ? a[0] : a[1], out); }

}  // namespace kc::oracle::fast
