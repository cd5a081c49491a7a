// Which non-finite results some evaluation order of a sum can reach: the
// conformance profile's overflow latitude for folds (sums, dot products,
// matmul, conv, linear). A kernel may associate the additions of a sum in
// any order (blocked, pairwise, several accumulators, FMA), each rounded
// to the working precision; where the exact sum is finite one order can
// still overflow a partial sum to +inf or -inf, or reach both and give
// NaN. Such a result is correct exactly when some order reaches it.
// Derivation and the test's width: docs/accuracy-bounds.md, "Overflow
// latitude". Internal to oracles/.
#pragma once

#include <cstddef>

#include "core/dtype.h"

namespace kc::oracle {

struct Exact;  // oracles/exact.h

class OverflowReach {
 public:
  // One term of a sum: a finite value joins its sign's magnitude total,
  // an infinity or a NaN is kept as such.
  void add(double term);
  // One product a b of a dot product (NaN for 0 x inf), its magnitude
  // exact to a relative 2^-64 (x87's product: no overflow, no underflow
  // below double's range that matters to an overflow).
  void add_product(double a, double b);

  // Whether some order of the terms' additions, each rounded to t (and
  // each product rounded to t, where products are), reaches +inf, -inf,
  // or NaN. Necessary conditions (never refuses a reachable result), within
  // a relative (1 + u)^(2m) (1 + (m + 132) 2^-63) of sufficient ones, m the terms of
  // the sign that overflows.
  bool reaches_pos_inf(DType t) const;
  bool reaches_neg_inf(DType t) const;
  bool reaches_nan(DType t) const;

  // Whether any order of n terms whose magnitudes sum to `total` may
  // overflow in t at all (the test's gate: below it no order does).
  static bool may_overflow(long double total, std::size_t n, DType t);

  // Adds to out.alternatives each reachable non-finite value that is not
  // out.value already.
  void admit(DType t, Exact& out) const;

 private:
  bool sign_overflows(long double magnitude, std::size_t m, DType t) const;
  long double pos_ = 0, neg_ = 0;  // sums of the finite non-zero terms' magnitudes, by sign
  std::size_t n_pos_ = 0, n_neg_ = 0;  // how many there are
  bool pos_inf_ = false, neg_inf_ = false, nan_ = false, products_ = false;
};

}  // namespace kc::oracle
