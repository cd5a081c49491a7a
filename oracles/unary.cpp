// Exact functions of the unary family, evaluated by MPFR at the working
// precision (oracles/mp.h). Each comment says which mathematical function
// the kernel is graded against and where the reference's definition, not
// pure mathematics, fixes it.
#include "oracles/unary.h"

#include <cmath>

#include "oracles/exact.h"
#include "oracles/rounding.h"

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

void neg(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = -in.x; }
void abs(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = bm::abs(in.x); }
void sqr(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = in.x * in.x; }
// The functions that round once (KernelSpec::oracle_rounds_once) write
// MPFR's result into out.value directly, at its working precision: one
// number fewer per element than a Boost temporary moved into place.
void sqrt(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_sqrt(raw(out.value), raw(in.x), MPFR_RNDN); }  // sqrt(-0) = -0, sqrt(<0) = NaN
void exp(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_exp(raw(out.value), raw(in.x), MPFR_RNDN); }
void log(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_log(raw(out.value), raw(in.x), MPFR_RNDN); }  // log(+-0) = -inf, log(<0) = NaN
void sin(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_sin(raw(out.value), raw(in.x), MPFR_RNDN); }
void cos(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_cos(raw(out.value), raw(in.x), MPFR_RNDN); }
void tanh(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_tanh(raw(out.value), raw(in.x), MPFR_RNDN); }
void floor(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = bm::floor(in.x); }
void ceil(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = bm::ceil(in.x); }
void recip(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_ui_div(raw(out.value), 1, raw(in.x), MPFR_RNDN); }  // 1/(+-0) = +-inf
void rsqrt(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = Mp(1) / bm::sqrt(in.x); }

// relu / step / sign compare with 0 exactly as the reference does: NaN and
// -0 fail `x > 0`, so they give +0 (reference-semantics.md §1).
void relu(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = (!is_nan(in.x) && in.x > 0) ? in.x : Mp(0); }
void step(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = (!is_nan(in.x) && in.x > 0) ? Mp(1) : Mp(0); }
void sign(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  if (is_nan(in.x)) out.value = Mp(0);
  else if (in.x > 0) out.value = Mp(1);
  else if (in.x < 0) out.value = Mp(-1);
  else out.value = Mp(0);
}

// IEEE roundTiesToEven (mpfr_roundeven keeps the sign of a zero result).
void round(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  out.value = in.x;
  mpfr_roundeven(raw(out.value), raw(in.x));
}

void erf(const Scalar& given, Exact& out) { const MpScalar in = mp(given); mpfr_erf(raw(out.value), raw(in.x), MPFR_RNDN); }

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

// powi(x, n) = x^n, except where the reference's evaluation order leaves
// T's normal range: then the exact result is the reference's own
// square-and-multiply replayed with one correct rounding per step in the
// format it runs in (f32 for f32 and the halves, f64 for f64), which is
// bit-exact because every step is a basic operation. See the contract.
void powi(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  const auto n = static_cast<std::int32_t>(in.ctx.params->integer("n"));
  const DType loop_t = in.ctx.dtype == DType::f64 ? DType::f64 : DType::f32;
  const double lo = min_normal(loop_t), hi = max_finite(loop_t);
  // Replay: r = 1; for each bit: if set r = r*a; a = a*a.
  bool left_range = false;
  auto rnd = [&](const Mp& v) {
    const double d = round_to(loop_t, v);
    if (d != 0 && !(std::fabs(d) >= lo && std::fabs(d) <= hi)) left_range = true;
    if (d == 0 && v != 0) left_range = true;
    return Mp(d);
  };
  const bool recip = n < 0;
  std::uint32_t m = recip ? 0u - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
  Mp a = in.x, r = Mp(1);
  while (true) {
    if (m & 1u) r = rnd(r * a);
    m >>= 1;
    if (m == 0) break;
    a = rnd(a * a);
  }
  if (!is_number(in.x) || in.x == 0 || !left_range) {
    // Exact x^n. MPFR's pow follows IEEE pow's special cases, which agree
    // with the loop's: pow(x, 0) = 1 even for NaN, (+-0)^-n = +-inf, ...
    out.value = in.x;
    mpfr_pow_si(raw(out.value), raw(in.x), n, MPFR_RNDN);
    return;
  }
  out.value = recip ? rn(loop_t, Mp(1) / r) : r;
  out.replayed = true;  // graded as exact against the replay
  out.unreplayed = in.x;
  mpfr_pow_si(raw(*out.unreplayed), raw(in.x), n, MPFR_RNDN);
}

// Parameters are converted into T as the reference's NumCast does.
void add_scalar(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  out.value = in.x + Mp(num_cast(in.ctx.dtype, in.ctx.params->real("c")));
}
void mul_scalar(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  out.value = in.x * Mp(num_cast(in.ctx.dtype, in.ctx.params->real("c")));
}
void clamp(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  const Mp lo(num_cast(in.ctx.dtype, in.ctx.params->real("min")));
  const Mp hi(num_cast(in.ctx.dtype, in.ctx.params->real("max")));
  if (is_nan(in.x)) out.value = in.x;
  else if (in.x < lo) out.value = lo;
  else if (in.x > hi) out.value = hi;
  else out.value = in.x;
}

}  // namespace kc::oracle
