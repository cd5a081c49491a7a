// The binary families' evaluations (same-shape and broadcasting; one pair
// (a, b) of input elements per output element; reference-semantics.md §2,
// §3), the three of each kernel (oracles/oracle.h): its exact function,
// its replay of the reference's steps, the same rule at the two source
// elements broadcasting or not, and its double fast path (oracles/fast.h).
#include <cmath>

#include "oracles/exact.h"
#include "oracles/fast.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

KC_MATH_OF(Pair, add)
KC_MATH_OF(Pair, sub)
KC_MATH_OF(Pair, mul)
KC_MATH_OF(Pair, div)
KC_MATH_OF(Pair, maximum)
KC_MATH_OF(Pair, minimum)
KC_MATH_OF(Pair, rem)
KC_MATH_OF(Pair, pow)

namespace kc::oracle {

void add(const Pair& given, Exact& out) { const MpPair in = mp(given); out.value = in.a + in.b; }
void sub(const Pair& given, Exact& out) { const MpPair in = mp(given); out.value = in.a - in.b; }
void mul(const Pair& given, Exact& out) { const MpPair in = mp(given); out.value = in.a * in.b; }
void div(const Pair& given, Exact& out) { const MpPair in = mp(given); out.value = in.a / in.b; }
// a if a > b else b: NaN in a gives b, NaN in b gives NaN, ties give b (§2).
// The conformance profile also accepts what other correct kernels return:
// NaN when either operand is (PyTorch), the number (IEEE maxNum/minNum),
// and a on a tie (+0 vs -0).
void nan_and_tie_choices(const MpPair& in, Exact& out) {
  if (is_nan(in.a) || is_nan(in.b)) out.alternatives = {Mp(std::nan("")), is_nan(in.a) ? in.b : in.a};
  else if (in.a == in.b) out.alternatives = {in.a};
}
void maximum(const Pair& given, Exact& out) { const MpPair in = mp(given);
  out.value = in.a > in.b ? in.a : in.b;
  nan_and_tie_choices(in, out);
}
void minimum(const Pair& given, Exact& out) { const MpPair in = mp(given);
  out.value = in.a < in.b ? in.a : in.b;
  nan_and_tie_choices(in, out);
}

// rem is defined by its steps (§2): q = a/b, floor, p = floor(q) b, a - p,
// each rounded in T. Not the mathematical remainder for large quotients, so
// the oracle is the exact replay of those steps. The conformance profile
// also accepts PyTorch's CPU remainder, the operation the inventory names
// evaluated exactly: m = fmod(a, b) (exact), then m + b rounded once where
// m and b differ in sign (so rem(1, -inf) = -inf and rem(0, -inf) = 0,
// where the reference's steps give NaN).
void rem(const Pair& given, Exact& out) { const MpPair in = mp(given);
  const DType t = in.ctx.dtype;
  const Mp q = rn(t, in.a / in.b);
  Mp f = q;
  mpfr_floor(raw(f), raw(q));
  const Mp p = rn(t, f * in.b);
  out.value = rn(t, in.a - p);
  // 2200 bits hold m + b exactly for every pair of f64 (exponents -1074 to
  // 1023, 53-bit significands), so the one rounding is round_to's, to T.
  mpfr_t m;
  mpfr_init2(m, 2200);
  mpfr_fmod(m, raw(in.a), raw(in.b), MPFR_RNDN);
  if (!mpfr_nan_p(m) && !mpfr_zero_p(m) && (mpfr_sgn(m) < 0) != (mpfr_signbit(raw(in.b)) != 0))
    mpfr_add(m, m, raw(in.b), MPFR_RNDN);
  Mp torch;
  mpfr_set_prec(raw(torch), 2200);
  mpfr_set(raw(torch), m, MPFR_RNDN);
  mpfr_clear(m);
  const bool same = (is_nan(torch) && is_nan(out.value)) || (torch == out.value && mpfr_signbit(raw(torch)) == mpfr_signbit(raw(out.value)));
  if (!same) out.alternatives = {torch};
}

// pow: MPFR follows C99 Annex F (pow(x, +-0) = 1, pow(1, y) = 1, ...), as
// glibc does, except that glibc returns NaN when an operand is a signalling
// NaN (IEEE 754-2008). Halves are widened to f32 first, which quiets them.
void pow(const Pair& given, Exact& out) { const MpPair in = mp(given);
  if (in.ctx.signaling_nan && !is_half(in.ctx.dtype)) {
    out.value = Mp(std::nan(""));
    // glibc (the reference) quiets a signalling NaN and returns NaN even for
    // pow(sNaN, 0) and pow(1, sNaN), as IEEE 754-2019 9.2.1 does; C99 Annex
    // F.9.4.4 gives 1 there "even for a NaN", without telling signalling
    // from quiet (SLEEF's answer). The conformance profile accepts both.
    if (is_zero(in.b) || in.a == 1) out.alternatives = {Mp(1)};
    return;
  }
  out.value = in.a;
  mpfr_pow(raw(out.value), raw(in.a), raw(in.b), MPFR_RNDN);
}

namespace replay {

namespace {
using D2 = double (*)(double, double);
}

double add(const Pair& in) { return InT{in.ctx.dtype}.add(in.a, in.b); }
double sub(const Pair& in) { return InT{in.ctx.dtype}.sub(in.a, in.b); }
double mul(const Pair& in) { return InT{in.ctx.dtype}.mul(in.a, in.b); }
double div(const Pair& in) { return InT{in.ctx.dtype}.div(in.a, in.b); }
// a > b ? a : b: a NaN in a gives b, in b gives b's NaN, ties give b (§0.5).
double maximum(const Pair& in) { return in.a > in.b ? in.a : in.b; }
double minimum(const Pair& in) { return in.a < in.b ? in.a : in.b; }
// q = a/b, floor(q), p = floor(q) b, a - p, each rounded in T (§2).
double rem(const Pair& in) {
  const InT t{in.ctx.dtype};
  const double a = in.a, b = in.b;
  return t.sub(a, t.mul(t.floor(t.div(a, b)), b));
}
// glibc's powf/pow return NaN for a signalling NaN operand, even where a
// quiet one gives 1 (pow(sNaN, 0)); the halves' widening quiets it first.
double pow(const Pair& in) {
  const InT t{in.ctx.dtype};
  if (in.ctx.signaling_nan && !is_half(in.ctx.dtype)) return t.add(in.a, in.b);  // the NaN operand's, quieted
  return t.call2(::powf, static_cast<D2>(::pow), in.a, in.b);
}

}  // namespace replay

namespace fast {

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

}  // namespace fast
}  // namespace kc::oracle
