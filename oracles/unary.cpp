// The unary family's evaluations (reference-semantics.md §1, §0.2, §0.3),
// the three of each kernel (oracles/oracle.h): its exact function, its
// replay of the reference's steps and its double fast path.
//
// The exact functions are evaluated by MPFR at the working precision
// (oracles/mp.h); each comment says which mathematical function the kernel
// is graded against and where the reference's definition, not pure
// mathematics, fixes it. The replays repeat the reference's own steps in
// its order and precision (oracles/replay.h); the fast paths' error bounds
// are derived in oracles/fast.h.
#include <cmath>
#include <cstdint>

#include "core/rust_libm.h"
#include "oracles/exact.h"
#include "oracles/fast.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

KC_MATH_OF(Scalar, neg)
KC_MATH_OF(Scalar, relu)
KC_MATH_OF(Scalar, sqr)
KC_MATH_OF(Scalar, sqrt)
KC_MATH_OF(Scalar, exp)
KC_MATH_OF(Scalar, sign)
KC_MATH_OF(Scalar, log)
KC_MATH_OF(Scalar, sin)
KC_MATH_OF(Scalar, cos)
KC_MATH_OF(Scalar, abs)
KC_MATH_OF(Scalar, recip)
KC_MATH_OF(Scalar, tanh)
KC_MATH_OF(Scalar, floor)
KC_MATH_OF(Scalar, ceil)
KC_MATH_OF(Scalar, erf)
KC_MATH_OF(Scalar, round)
KC_MATH_OF(Scalar, step)
KC_MATH_OF(Scalar, rsqrt)
KC_MATH_OF(Scalar, powi)
KC_MATH_OF(Scalar, add_scalar)
KC_MATH_OF(Scalar, mul_scalar)
KC_MATH_OF(Scalar, clamp)

namespace kc::oracle {

namespace bm = boost::multiprecision;

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

// Parameters are converted into T as the reference's NumCast does. The
// conformance profile also accepts the scalar kept in f32 or exact (f64),
// with one rounding to T, or for the halves PyTorch's opmath: x and f32(c)
// in f32, rounded to f32 and then to T. The operation is x + c; where c
// and the sum are rounded is the implementation's (docs/conformance-audit.md).
template <class Op>
void with_scalar(const MpScalar& in, Exact& out, Op op) {
  const double c = in.ctx.params->real("c");
  const double c32 = static_cast<double>(static_cast<float>(c));
  out.value = op(in.x, Mp(num_cast(in.ctx.dtype, c)));
  const bool half = in.ctx.dtype == DType::bf16 || in.ctx.dtype == DType::f16;
  for (Mp v : {op(in.x, Mp(c32)), op(in.x, Mp(c)), half ? rn(DType::f32, op(in.x, Mp(c32))) : out.value})
    if (!(v == out.value) && !is_nan(v)) out.alternatives.push_back(std::move(v));
}
void add_scalar(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  with_scalar(in, out, [](const Mp& x, const Mp& c) { return Mp(x + c); });
}
void mul_scalar(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  with_scalar(in, out, [](const Mp& x, const Mp& c) { return Mp(x * c); });
}
// The conformance profile also accepts PyTorch's answers where the
// reference's is one choice among valid ones: max everywhere when min >
// max (torch.clamp's documented rule), and either zero where x and a bound
// are zeros of opposite signs (a max/min that orders -0 below +0).
void clamp(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  const Mp lo(num_cast(in.ctx.dtype, in.ctx.params->real("min")));
  const Mp hi(num_cast(in.ctx.dtype, in.ctx.params->real("max")));
  if (is_nan(in.x)) out.value = in.x;
  else if (in.x < lo) out.value = lo;
  else if (in.x > hi) out.value = hi;
  else out.value = in.x;
  if (is_nan(in.x)) return;
  if (hi < lo && !(out.value == hi)) out.alternatives.push_back(hi);
  if (is_zero(in.x) && (is_zero(lo) || is_zero(hi))) out.alternatives.push_back(-out.value);
}

// ---- The replays: the reference's bits. ----
namespace replay {

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

}  // namespace replay

// ---- The fast paths: the exact value within a bound, in double. ----
namespace fast {

bool neg(const Scalar& in, Approx& out) { const double x = in.x; return exact(-x, out); }
bool abs(const Scalar& in, Approx& out) { const double x = in.x; return exact(std::fabs(x), out); }
bool relu(const Scalar& in, Approx& out) { const double x = in.x; return exact(x > 0 ? x : 0.0, out); }
bool step(const Scalar& in, Approx& out) { const double x = in.x; return exact(x > 0 ? 1.0 : 0.0, out); }
bool sign(const Scalar& in, Approx& out) { const double x = in.x; return exact(x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0, out); }
bool floor(const Scalar& in, Approx& out) { const double x = in.x; return exact(std::floor(x), out); }
bool ceil(const Scalar& in, Approx& out) { const double x = in.x; return exact(std::ceil(x), out); }
bool round(const Scalar& in, Approx& out) { const double x = in.x; return exact(std::nearbyint(x), out); }  // FE_TONEAREST: ties to even
bool sqr(const Scalar& in, Approx& out) { const double x = in.x; return exact(x * x, out); }
bool sqrt(const Scalar& in, Approx& out) { const double x = in.x; return x >= 0 && rounded_once(std::sqrt(x), out); }
bool recip(const Scalar& in, Approx& out) { const double x = in.x; return x != 0 && rounded_once(1.0 / x, out); }
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
bool log(const Scalar& in, Approx& out) { const double x = in.x; return x > 0 && libm(std::log(x), out); }
bool sin(const Scalar& in, Approx& out) { const double x = in.x; return libm(std::sin(x), out); }
bool cos(const Scalar& in, Approx& out) { const double x = in.x; return x == 0 ? exact(1.0, out) : below_one(std::cos(x), out); }
bool tanh(const Scalar& in, Approx& out) { const double x = in.x; return x == 0 ? exact(x, out) : below_one(std::tanh(x), out); }
bool erf(const Scalar& in, Approx& out) { const double x = in.x; return x == 0 ? exact(x, out) : below_one(std::erf(x), out); }
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

}  // namespace fast
}  // namespace kc::oracle
