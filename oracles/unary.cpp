// Exact functions of the unary family, evaluated by MPFR at the working
// precision (oracles/mp.h). Each comment says which mathematical function
// the kernel is graded against and where the reference's definition, not
// pure mathematics, fixes it.
#include "oracles/unary.h"

#include <cmath>

#include "oracles/mp.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace bm = boost::multiprecision;

namespace {
mpfr_t& raw(Mp& m) { return m.backend().data(); }
const mpfr_t& raw(const Mp& m) { return m.backend().data(); }
Mp zero_like(bool negative) { return negative ? -Mp(0) : Mp(0); }
bool is_nan(const Mp& m) { return mpfr_nan_p(raw(m)) != 0; }

// T(c) for an f64 literal, as num-traits converts it: one RNE for f32,
// f64 -> f32 -> T for halves (reference-semantics.md §0.3). Computed with
// the core conversions, independently of the kernels' own `cst`.
double literal_in(DType t, double c) {
  if (t == DType::f64) return c;
  return round_to_format(round_to_format(c, DType::f32), t);
}

// gelu's constants as the reference defines them: c = sqrt_T(T(2/pi)),
// k = T(0.044715). The square root is rounded to T once (sqrt is correctly
// rounded in every dtype: hardware for f32/f64, f32 sqrt then RNE for halves,
// which is correct rounding since 24 >= 2p + 2).
Mp gelu_c(DType t) {
  Mp two_over_pi(literal_in(t, 2.0 / M_PI));
  return Mp(round_to(t, bm::sqrt(two_over_pi)));
}
}  // namespace

void neg(OracleIO& io) { io.out = -io.x; }
void abs(OracleIO& io) { io.out = bm::abs(io.x); }
void sqr(OracleIO& io) { io.out = io.x * io.x; }
void sqrt(OracleIO& io) { io.out = bm::sqrt(io.x); }  // sqrt(-0) = -0, sqrt(<0) = NaN
void exp(OracleIO& io) { io.out = bm::exp(io.x); }
void log(OracleIO& io) { io.out = bm::log(io.x); }    // log(+-0) = -inf, log(<0) = NaN
void sin(OracleIO& io) { io.out = bm::sin(io.x); }
void cos(OracleIO& io) { io.out = bm::cos(io.x); }
void tanh(OracleIO& io) { io.out = bm::tanh(io.x); }
void floor(OracleIO& io) { io.out = bm::floor(io.x); }
void ceil(OracleIO& io) { io.out = bm::ceil(io.x); }
void recip(OracleIO& io) { io.out = Mp(1) / io.x; }   // 1/(+-0) = +-inf
void rsqrt(OracleIO& io) { io.out = Mp(1) / bm::sqrt(io.x); }

// relu / step / sign compare with 0 exactly as the reference does: NaN and
// -0 fail `x > 0`, so they give +0 (reference-semantics.md §1).
void relu(OracleIO& io) { io.out = (!is_nan(io.x) && io.x > 0) ? io.x : Mp(0); }
void step(OracleIO& io) { io.out = (!is_nan(io.x) && io.x > 0) ? Mp(1) : Mp(0); }
void sign(OracleIO& io) {
  if (is_nan(io.x)) io.out = Mp(0);
  else if (io.x > 0) io.out = Mp(1);
  else if (io.x < 0) io.out = Mp(-1);
  else io.out = Mp(0);
}

// IEEE roundTiesToEven (mpfr_roundeven keeps the sign of a zero result).
void round(OracleIO& io) {
  io.out = io.x;
  mpfr_roundeven(raw(io.out), raw(io.x));
}

void erf(OracleIO& io) {
  io.out = io.x;
  mpfr_erf(raw(io.out), raw(io.x), MPFR_RNDN);
}

// gelu_erf(x) = (x/2)(1 + erf(x/sqrt 2)). The reference forms 1 + erf(a) in
// f64, which cancels for x << 0; the condition-aware model scales its error
// allowance with S = |x| (docs/accuracy-bounds.md).
void gelu_erf(OracleIO& io) {
  if (is_nan(io.x)) { io.out = io.x; io.magnitude = 0; return; }
  // (+-inf are covered by the contract's special-value rules.)
  Mp a = io.x / bm::sqrt(Mp(2));
  Mp e = a;
  mpfr_erf(raw(e), raw(a), MPFR_RNDN);
  io.out = (io.x / 2) * (Mp(1) + e);
  if (io.out == 0) io.out = zero_like(mpfr_signbit(raw(io.x)) != 0);
  io.magnitude = bm::abs(io.x);
}

// sigmoid(x) = 1/(1 + e^-x); silu(x) = x sigmoid(x).
void sigmoid(OracleIO& io) { io.out = Mp(1) / (Mp(1) + bm::exp(-io.x)); }
void silu(OracleIO& io) {
  io.out = io.x / (Mp(1) + bm::exp(-io.x));
  // S = |x| 2^(emin+1): with u = 2^-p, K u S = K |x| ulp_min, the absolute
  // error of a subnormal sigmoid times |x| (accuracy_models.cpp, silu).
  io.magnitude = bm::abs(io.x);
  mpfr_mul_2si(raw(io.magnitude), raw(io.magnitude), float_format(io.dtype).emin + 1, MPFR_RNDN);
}

// gelu (tanh form) with the reference's constants c and k in T:
// (x/2)(1 + tanh(c (x + k x^3))). 1 + tanh cancels for x << 0, so the
// model is condition-aware with S = |x|.
void gelu_tanh(OracleIO& io) {
  if (is_nan(io.x)) { io.out = io.x; io.magnitude = 0; return; }
  const Mp c = gelu_c(io.dtype);
  const Mp k(literal_in(io.dtype, 0.044715));
  Mp inner = c * (io.x + k * io.x * io.x * io.x);
  io.out = (io.x / 2) * (Mp(1) + bm::tanh(inner));
  if (io.out == 0) io.out = zero_like(mpfr_signbit(raw(io.x)) != 0);
  io.magnitude = bm::abs(io.x);
}

// powi(x, n) = x^n, except where the reference's evaluation order leaves
// T's normal range: then the exact result is the reference's own
// square-and-multiply replayed with one correct rounding per step in the
// format it runs in (f32 for f32 and the halves, f64 for f64), which is
// bit-exact because every step is a basic operation. See the contract.
void powi(OracleIO& io) {
  const DType loop_t = io.dtype == DType::f64 ? DType::f64 : DType::f32;
  const FloatFormat lf = float_format(loop_t);
  const double min_normal = std::ldexp(1.0, lf.emin);
  const double max_fin = std::ldexp(2.0 - std::ldexp(1.0, 1 - lf.precision), lf.emax);
  // Replay: r = 1; for each bit: if set r = r*a; a = a*a.
  bool left_range = false;
  auto rnd = [&](const Mp& v) {
    double d = round_to(loop_t, v);
    if (d != 0 && !(std::fabs(d) >= min_normal && std::fabs(d) <= max_fin)) left_range = true;
    if (d == 0 && v != 0) left_range = true;
    return Mp(d);
  };
  const bool recip = io.n < 0;
  std::uint32_t m = recip ? 0u - static_cast<std::uint32_t>(io.n) : static_cast<std::uint32_t>(io.n);
  Mp a = io.x, r = Mp(1);
  while (true) {
    if (m & 1u) r = rnd(r * a);
    m >>= 1;
    if (m == 0) break;
    a = rnd(a * a);
  }
  if (!mpfr_number_p(raw(io.x)) || io.x == 0 || !left_range) {
    // Exact x^n. MPFR's pow follows IEEE pow's special cases, which agree
    // with the loop's: pow(x, 0) = 1 even for NaN, (+-0)^-n = +-inf, ...
    io.out = io.x;
    mpfr_pow_si(raw(io.out), raw(io.x), io.n, MPFR_RNDN);
    return;
  }
  io.out = recip ? Mp(round_to(loop_t, Mp(1) / r)) : r;
  io.replayed = true;  // graded as exact against the replay
}

// Parameters arrive already rounded into T (OracleIO::c/lo/hi).
void add_scalar(OracleIO& io) { io.out = io.x + io.c; }
void mul_scalar(OracleIO& io) { io.out = io.x * io.c; }
void clamp(OracleIO& io) {
  if (is_nan(io.x)) io.out = io.x;
  else if (io.x < io.lo) io.out = io.lo;
  else if (io.x > io.hi) io.out = io.hi;
  else io.out = io.x;
}

}  // namespace kc::oracle
