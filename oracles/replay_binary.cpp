// Replays of the binary families (reference-semantics.md §2, §3): the same
// rule at the two source elements, broadcasting or not.
#include "oracles/replay.h"

namespace kc::oracle::replay {

namespace {
using D2 = double (*)(double, double);
}

double add(const ReplayIn& in) { return InT{in.t}.add(in.args[0], in.args[1]); }
double sub(const ReplayIn& in) { return InT{in.t}.sub(in.args[0], in.args[1]); }
double mul(const ReplayIn& in) { return InT{in.t}.mul(in.args[0], in.args[1]); }
double div(const ReplayIn& in) { return InT{in.t}.div(in.args[0], in.args[1]); }
// a > b ? a : b: a NaN in a gives b, in b gives b's NaN, ties give b (§0.5).
double maximum(const ReplayIn& in) { return in.args[0] > in.args[1] ? in.args[0] : in.args[1]; }
double minimum(const ReplayIn& in) { return in.args[0] < in.args[1] ? in.args[0] : in.args[1]; }
// q = a/b, floor(q), p = floor(q) b, a - p, each rounded in T (§2).
double rem(const ReplayIn& in) {
  const InT t{in.t};
  const double a = in.args[0], b = in.args[1];
  return t.sub(a, t.mul(t.floor(t.div(a, b)), b));
}
// glibc's powf/pow return NaN for a signalling NaN operand, even where a
// quiet one gives 1 (pow(sNaN, 0)); the halves' widening quiets it first.
double pow(const ReplayIn& in) {
  const InT t{in.t};
  if (in.signaling_nan && !is_half(in.t)) return t.add(in.args[0], in.args[1]);  // the NaN operand's, quieted
  return t.call2(::powf, static_cast<D2>(::pow), in.args[0], in.args[1]);
}

}  // namespace kc::oracle::replay
