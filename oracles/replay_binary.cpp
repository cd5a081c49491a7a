// Replays of the binary families (reference-semantics.md §2, §3): the same
// rule at the two source elements, broadcasting or not.
#include "oracles/replay.h"

namespace kc::oracle::replay {

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

}  // namespace kc::oracle::replay
