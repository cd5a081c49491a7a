// Oracles of the binary families (reference-semantics.md §2, §3).
#include "oracles/binary.h"

#include <cmath>

#include "oracles/exact.h"
#include "oracles/rounding.h"

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

}  // namespace kc::oracle
