// Replays of the unary family (reference-semantics.md §1, §0.2, §0.3).
#include <cstdint>

#include "core/rust_libm.h"
#include "oracles/replay.h"

namespace kc::oracle::replay {

namespace {

double x_of(const Scalar& in) { return in.x; }
InT arith(const Scalar& in) { return {in.ctx.dtype}; }
using D1 = double (*)(double);

}  // namespace

// Sign-bit operations and comparisons: exact in every dtype, on the value
// (neg is half's bit flip; abs of a half is a Float method, through f32,
// which quiets a signalling NaN).
double neg(const Scalar& in) { return -x_of(in); }
double abs(const Scalar& in) {
  return is_half(in.ctx.dtype) ? arith(in).call(::fabsf, static_cast<D1>(::fabs), x_of(in)) : std::fabs(x_of(in));
}
// NaN and -0 fail `x > 0`: both give +0 (§1).
double relu(const Scalar& in) { return x_of(in) > 0 ? x_of(in) : 0.0; }
double step(const Scalar& in) { return x_of(in) > 0 ? 1.0 : 0.0; }
double sign(const Scalar& in) {
  const double x = x_of(in);
  return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
}

double sqr(const Scalar& in) { return arith(in).mul(x_of(in), x_of(in)); }
double sqrt(const Scalar& in) { return arith(in).sqrt(x_of(in)); }
double recip(const Scalar& in) { return arith(in).div(1.0, x_of(in)); }
double rsqrt(const Scalar& in) {
  const InT a = arith(in);
  return a.div(1.0, a.sqrt(x_of(in)));
}

// Single Float calls: the platform libm's float function for f32 and the
// halves, its double function for f64 (§0.2).
double exp(const Scalar& in) { return arith(in).call(::expf, static_cast<D1>(::exp), x_of(in)); }
double log(const Scalar& in) { return arith(in).call(::logf, static_cast<D1>(::log), x_of(in)); }
double sin(const Scalar& in) { return arith(in).call(::sinf, static_cast<D1>(::sin), x_of(in)); }
double cos(const Scalar& in) { return arith(in).call(::cosf, static_cast<D1>(::cos), x_of(in)); }
double tanh(const Scalar& in) { return arith(in).call(::tanhf, static_cast<D1>(::tanh), x_of(in)); }
double floor(const Scalar& in) { return arith(in).floor(x_of(in)); }
double ceil(const Scalar& in) { return arith(in).ceil(x_of(in)); }

// trunc, the exact tie test, else Float::round: IEEE roundTiesToEven in
// every dtype, exact; nearbyint in the default mode is that operation.
double round(const Scalar& in) { return std::nearbyint(x_of(in)); }

// erf in f64 with the Rust libm crate's erf, then T::from(f64) (§1).
double erf(const Scalar& in) { return arith(in).from_f64(rust_libm::erf(x_of(in))); }

// gelu_erf in f64: a = f * (1/sqrt 2) with the f64 constant, e = erf(a),
// r = (0.5 f)(1 + e), then T::from(f64) (§1).
double gelu_erf(const Scalar& in) {
  const double f = x_of(in);
  const double a = f * 0x1.6a09e667f3bcdp-1;
  const double e = rust_libm::erf(a);
  const double r = (0.5 * f) * (1.0 + e);
  return arith(in).from_f64(r);
}

// sigmoid: x >= 0 (true for -0): e = exp(-x), 1 / (1 + e); else (NaN too)
// e = exp(x), e / (1 + e). Three roundings in T (§1).
double sigmoid_in(const InT& a, double x) {
  const auto exp_t = [&](double v) { return a.call(::expf, static_cast<D1>(::exp), v); };
  if (x >= 0) return a.div(1.0, a.add(1.0, exp_t(-x)));
  const double e = exp_t(x);
  return a.div(e, a.add(1.0, e));
}
double sigmoid(const Scalar& in) { return sigmoid_in(arith(in), x_of(in)); }
// silu: the sigmoid above, then x * s (§1).
double silu(const Scalar& in) { return arith(in).mul(x_of(in), sigmoid_in(arith(in), x_of(in))); }

// gelu, tanh form: c = sqrt_T(T(2/pi)), k = T(0.044715), computed in T;
// inner = c (x + ((k x) x) x); (0.5 x)(1 + tanh(inner)) (§1).
double gelu_tanh(const Scalar& in) {
  const InT a = arith(in);
  const double x = x_of(in);
  const double c = a.sqrt(a.from_f64(0.63661977236758134308));  // 2/pi, the f64 nearest
  const double k = a.from_f64(0.044715);
  const double inner = a.mul(c, a.add(x, a.mul(a.mul(a.mul(k, x), x), x)));
  const double t = a.call(::tanhf, static_cast<D1>(::tanh), inner);
  return a.mul(a.mul(a.from_f64(0.5), x), a.add(1.0, t));
}

// powi: compiler-builtins' square-and-multiply from the lowest bit of |n|,
// 1/r for n < 0, in f64 for f64 and in f32 (then RNE) for the rest (§0.2).
template <class F>
F powi_loop(F x, std::int32_t n) {
  std::uint32_t m = n < 0 ? 0u - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
  F r = 1;
  while (true) {
    if (m & 1u) r = r * x;
    m >>= 1;
    if (m == 0) break;
    x = x * x;
  }
  return n < 0 ? F(1) / r : r;
}
double powi(const Scalar& in) {
  const auto n = static_cast<std::int32_t>(in.ctx.params->integer("n"));
  if (in.ctx.dtype == DType::f64) return powi_loop<double>(x_of(in), n);
  const double r = powi_loop<float>(static_cast<float>(x_of(in)), n);
  return in.ctx.dtype == DType::f32 ? r : narrow(in.ctx.dtype, r);
}

// The scalar parameters arrive as f64 and become T by NumCast (§0.3).
double add_scalar(const Scalar& in) {
  const InT a = arith(in);
  return a.add(x_of(in), a.from_f64(in.ctx.params->real("c")));
}
double mul_scalar(const Scalar& in) {
  const InT a = arith(in);
  return a.mul(x_of(in), a.from_f64(in.ctx.params->real("c")));
}
// x < lo ? lo : x > hi ? hi : x; NaN passes through (§0.5).
double clamp(const Scalar& in) {
  const InT a = arith(in);
  const double x = x_of(in), lo = a.from_f64(in.ctx.params->real("min")), hi = a.from_f64(in.ctx.params->real("max"));
  return x < lo ? lo : x > hi ? hi : x;
}

}  // namespace kc::oracle::replay
