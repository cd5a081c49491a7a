#include "oracles/fast.h"

#include <cmath>

namespace kc::oracle::fast {

namespace {

// glibc's double libm functions: 4 ulp of the result (fast.h). Outside the
// normal double range the relative bound does not hold (a result that
// underflowed to 0 may be 1e-362): no fast answer; MPFR has the exponent range.
bool libm(double v, Approx& out) {
  if (!std::isfinite(v) || std::fabs(v) < 0x1p-1000) return false;
  out = {v, std::ldexp(std::fabs(v), -50)};
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
  out = {v, 0};
  return true;
}
bool rounded_once(double v, Approx& out) {
  if (!std::isfinite(v) || std::fabs(v) < 0x1p-1000) return false;
  out = {v, std::ldexp(std::fabs(v), -53)};
  return true;
}
// The reference's NumCast of an f64 parameter into T (oracles/rounding.h).
double num_cast(DType t, double c) {
  return t == DType::f64 ? c : round_to_format(round_to_format(c, DType::f32), t);
}

}  // namespace

bool neg(double x, DType, const Params&, Approx& out) { return exact(-x, out); }
bool abs(double x, DType, const Params&, Approx& out) { return exact(std::fabs(x), out); }
bool relu(double x, DType, const Params&, Approx& out) { return exact(x > 0 ? x : 0.0, out); }
bool step(double x, DType, const Params&, Approx& out) { return exact(x > 0 ? 1.0 : 0.0, out); }
bool sign(double x, DType, const Params&, Approx& out) { return exact(x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0, out); }
bool floor(double x, DType, const Params&, Approx& out) { return exact(std::floor(x), out); }
bool ceil(double x, DType, const Params&, Approx& out) { return exact(std::ceil(x), out); }
bool round(double x, DType, const Params&, Approx& out) { return exact(std::nearbyint(x), out); }  // FE_TONEAREST: ties to even
bool sqr(double x, DType, const Params&, Approx& out) { return exact(x * x, out); }
bool sqrt(double x, DType, const Params&, Approx& out) { return x >= 0 && rounded_once(std::sqrt(x), out); }
bool recip(double x, DType, const Params&, Approx& out) { return x != 0 && rounded_once(1.0 / x, out); }
bool rsqrt(double x, DType, const Params&, Approx& out) {
  if (!(x > 0) || !std::isfinite(x)) return false;
  const double v = 1.0 / std::sqrt(x);
  out = {v, std::ldexp(v, -51)};
  return true;
}
bool exp(double x, DType, const Params&, Approx& out) { return libm(std::exp(x), out); }
bool log(double x, DType, const Params&, Approx& out) { return x > 0 && libm(std::log(x), out); }
bool sin(double x, DType, const Params&, Approx& out) { return libm(std::sin(x), out); }
bool cos(double x, DType, const Params&, Approx& out) { return x == 0 ? exact(1.0, out) : below_one(std::cos(x), out); }
bool tanh(double x, DType, const Params&, Approx& out) { return x == 0 ? exact(x, out) : below_one(std::tanh(x), out); }
bool erf(double x, DType, const Params&, Approx& out) { return x == 0 ? exact(x, out) : below_one(std::erf(x), out); }
bool sigmoid(double x, DType, const Params&, Approx& out) {
  const double e = std::exp(-x);
  if (!std::isfinite(e) || e < 0x1p-1000) return false;
  const double v = 1.0 / (1.0 + e);
  out = {v, std::ldexp(v, -49), 1};  // 1 / (1 + e^-x) < 1
  return true;
}
bool add_scalar(double x, DType t, const Params& p, Approx& out) { return rounded_once(x + num_cast(t, p.real("c")), out); }
bool mul_scalar(double x, DType t, const Params& p, Approx& out) { return exact(x * num_cast(t, p.real("c")), out); }
bool clamp(double x, DType t, const Params& p, Approx& out) {
  const double lo = num_cast(t, p.real("min")), hi = num_cast(t, p.real("max"));
  return exact(x < lo ? lo : x > hi ? hi : x, out);
}

}  // namespace kc::oracle::fast
