// The evaluations of the unary family's composed activations, gelu (erf
// and tanh forms), sigmoid and silu (reference-semantics.md §1), the three
// of each kernel (oracles/oracle.h), as oracles/unary.cpp writes them for
// the elementary functions. Their exact values cancel for x << 0 (1 + erf,
// 1 + tanh), so their accuracy models are condition-aware: the exact
// functions also give the magnitude S of the element (accuracy_models.cpp).
#include <cmath>

#include "core/rust_libm.h"
#include "oracles/exact.h"
#include "oracles/fast.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

KC_MATH_OF(Scalar, gelu_erf)
KC_MATH_OF(Scalar, sigmoid)
KC_MATH_OF(Scalar, silu)
KC_MATH_OF(Scalar, gelu_tanh)

namespace kc::oracle {

namespace bm = boost::multiprecision;

namespace {
Mp zero_like(bool negative) { return negative ? -Mp(0) : Mp(0); }

// gelu's constants as the reference defines them: c = sqrt_T(T(2/pi)),
// k = T(0.044715). The square root is rounded to T once (sqrt is correctly
// rounded in every dtype: hardware for f32/f64, f32 sqrt then RNE for halves,
// which is correct rounding since 24 >= 2p + 2).
Mp gelu_c(DType t) { return rn(t, bm::sqrt(Mp(num_cast(t, 2.0 / M_PI)))); }
}  // namespace

// gelu_erf(x) = (x/2)(1 + erf(x/sqrt 2)). The reference forms 1 + erf(a) in
// f64, which cancels for x << 0; the condition-aware model scales its error
// allowance with S = |x| (docs/accuracy-bounds.md).
void gelu_erf(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  if (is_nan(in.x)) {  // (+-inf are covered by the contract's special-value rules.)
    out.value = in.x;
    out.magnitude = Mp(0);
    return;
  }
  Mp a = in.x / bm::sqrt(Mp(2));
  Mp e = a;
  mpfr_erf(raw(e), raw(a), MPFR_RNDN);
  out.value = (in.x / 2) * (Mp(1) + e);
  if (out.value == 0) out.value = zero_like(sign_bit(in.x));
  out.magnitude = bm::abs(in.x);
}

// sigmoid(x) = 1/(1 + e^-x); silu(x) = x sigmoid(x).
void sigmoid(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = Mp(1) / (Mp(1) + bm::exp(-in.x)); }
void silu(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  out.value = in.x / (Mp(1) + bm::exp(-in.x));
  // S = |x| 2^(emin+1): with u = 2^-p, K u S = K |x| ulp_min, the absolute
  // error of a subnormal sigmoid times |x| (accuracy_models.cpp, silu).
  Mp s = bm::abs(in.x);
  mpfr_mul_2si(raw(s), raw(s), float_format(in.ctx.dtype).emin + 1, MPFR_RNDN);
  out.magnitude = s;
}

// gelu (tanh form) with the reference's constants c and k in T:
// (x/2)(1 + tanh(c (x + k x^3))). 1 + tanh cancels for x << 0, so the
// model is condition-aware with S = |x|.
void gelu_tanh(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  if (is_nan(in.x)) {
    out.value = in.x;
    out.magnitude = Mp(0);
    return;
  }
  const DType t = in.ctx.dtype;
  const Mp c = gelu_c(t);
  const Mp k(num_cast(t, 0.044715));
  Mp inner = c * (in.x + k * in.x * in.x * in.x);
  out.value = (in.x / 2) * (Mp(1) + bm::tanh(inner));
  if (out.value == 0) out.value = zero_like(sign_bit(in.x));
  out.magnitude = bm::abs(in.x);
}

namespace replay {

namespace {
using D1 = double (*)(double);
double x_of(const Scalar& in) { return in.x; }
InT arith(const Scalar& in) { return {in.ctx.dtype}; }
}  // namespace

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

}  // namespace replay

namespace fast {

bool sigmoid(const Scalar& in, Approx& out) {
  const double x = in.x;
  const double e = std::exp(-x);
  if (!std::isfinite(e) || e < 0x1p-1000) return false;
  const double v = 1.0 / (1.0 + e);
  out = {.value = v, .err = std::ldexp(v, -49), .below = 1};  // 1 / (1 + e^-x) < 1
  return true;
}

}  // namespace fast
}  // namespace kc::oracle
