// Replay of matmul (reference-semantics.md §8): out[i, j] = the fold over
// kk ascending of the product a[i, kk] b[kk, j] rounded into T, added into
// an accumulator of T that starts at +0; no FMA, no wider accumulator. And
// of rope (§11), two products and their difference or sum.
#include "oracles/replay.h"

namespace kc::oracle::replay {

double dot(const Dot& in) {
  const InT a{in.ctx.dtype};
  double acc = 0.0;
  for (std::size_t k = 0; k + 1 < in.pairs.size(); k += 2) acc = a.add(acc, a.mul(in.pairs[k], in.pairs[k + 1]));
  return acc;
}

// rope (§11): the two products rounded into T, then one difference (the
// low half) or sum (the high half), the first operand's NaN kept.
double rope(const Rotation& in) {
  const InT a{in.ctx.dtype};
  const double p = a.mul(in.x_a, in.c), q = a.mul(in.x_b, in.s);
  return in.sum ? a.add(p, q) : a.sub(p, q);
}

}  // namespace kc::oracle::replay
