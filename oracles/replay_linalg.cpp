// Replay of matmul (reference-semantics.md §8): out[i, j] = the fold over
// kk ascending of the product a[i, kk] b[kk, j] rounded into T, added into
// an accumulator of T that starts at +0; no FMA, no wider accumulator.
#include "oracles/replay.h"

namespace kc::oracle::replay {

double dot(const ReplayIn& in) {
  const InT a{in.t};
  double acc = 0.0;
  for (std::size_t k = 0; k + 1 < in.args.size(); k += 2) acc = a.add(acc, a.mul(in.args[k], in.args[k + 1]));
  return acc;
}

}  // namespace kc::oracle::replay
