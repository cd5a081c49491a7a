// The overflow latitude's test (oracles/overflow_reach.h). Derivation
// (docs/accuracy-bounds.md, "Overflow latitude"): rounding is monotone, so
// setting the negative terms to 0 raises every partial sum of an
// association (adding 0 is exact): an order that reaches +inf still does
// with the m positive terms alone, whose magnitudes sum to P. Its first
// overflowing operation is a product's rounding (|a b| >= Omega = (2 -
// 2^-p) 2^emax, RN's overflow threshold) or an addition of two finite
// partial sums over disjoint subsets, each term of which carries at most
// m - 2 rounding factors (1 + d), |d| <= u (m - 1 with its product's own),
// so the exact sum of its operands is at most P (1 + u)^(m - 2) (P (1 +
// u)^(m - 1) for products). +inf is reachable only if that reaches Omega: a
// sum of one positive term never overflows, a dot product of one only
// where the product does. Conversely adding the positive terms first
// reaches at least P (1 - u)^m, so what the test accepts beyond the
// reachable lies in a band of relative width about 2 m u + m 2^-63 below
// Omega. NaN from finite terms is +inf + -inf: both signs must reach their
// infinity.
#include "oracles/overflow_reach.h"

#include <cmath>

#include "oracles/exact.h"

namespace kc::oracle {

namespace {

using B = long double;

// (1 + u)^k, rounded up by what x87's own arithmetic may have lost: the
// sum of `terms` magnitudes (each product of two doubles and each
// addition within a relative 2^-64) and the at most 2 log2 k + 2 products
// of the squaring (x87's multiplication is IEEE's: the same bits on every
// CPU, unlike libm's powl): a relative (terms + 2 log2 k + 4) 2^-64 in
// all, taken as (terms + 132) 2^-63. A single exact term keeps the margin
// far below RN's overflow threshold's distance from max (2^-54).
B growth(B u, std::size_t k, std::size_t terms) {
  B r = 1, base = 1 + u;
  for (std::size_t e = k; e != 0; e >>= 1, base *= base)
    if (e & 1) r *= base;
  return r * (1 + static_cast<B>(terms + 132) * 0x1p-63L);
}

}  // namespace

void OverflowReach::add(double term) {
  if (std::isnan(term)) nan_ = true;
  else if (std::isinf(term)) (term > 0 ? pos_inf_ : neg_inf_) = true;
  else if (term != 0) (term > 0 ? pos_ : neg_) += std::fabs(static_cast<B>(term)), ++(term > 0 ? n_pos_ : n_neg_);
}

void OverflowReach::add_product(double a, double b) {
  products_ = true;
  if (std::isnan(a) || std::isnan(b)) {
    nan_ = true;
  } else if (std::isinf(a) || std::isinf(b)) {
    if (a == 0 || b == 0) nan_ = true;
    else ((a > 0) == (b > 0) ? pos_inf_ : neg_inf_) = true;
  } else {
    const B p = static_cast<B>(a) * static_cast<B>(b);
    if (p != 0) (p > 0 ? pos_ : neg_) += std::fabs(p), ++(p > 0 ? n_pos_ : n_neg_);
  }
}

// Whether m terms of one sign, magnitudes summing to `magnitude`, can
// overflow in some order (the derivation above).
bool OverflowReach::sign_overflows(B magnitude, std::size_t m, DType t) const {
  if (m == 0 || (!products_ && m < 2)) return false;
  const std::size_t factors = products_ ? m - 1 : m - 2;
  const FloatFormat f = float_format(t);
  const B omega = std::ldexp(2 - std::ldexp(B{1}, -f.precision), f.emax);
  return !(magnitude * growth(std::ldexp(B{1}, -f.precision), factors, m) < omega);
}

bool OverflowReach::may_overflow(B total, std::size_t n, DType t) {
  const FloatFormat f = float_format(t);
  const B omega = std::ldexp(2 - std::ldexp(B{1}, -f.precision), f.emax);
  return !(total * growth(std::ldexp(B{1}, -f.precision), n, n) < omega);
}

bool OverflowReach::reaches_nan(DType t) const {
  return nan_ || ((pos_inf_ || sign_overflows(pos_, n_pos_, t)) && (neg_inf_ || sign_overflows(neg_, n_neg_, t)));
}
// +inf: some order reaches it (a +inf term added at any point, or the
// positive terms added first) unless a -inf term is there to meet it.
bool OverflowReach::reaches_pos_inf(DType t) const {
  return !nan_ && !neg_inf_ && (pos_inf_ || sign_overflows(pos_, n_pos_, t));
}
bool OverflowReach::reaches_neg_inf(DType t) const {
  return !nan_ && !pos_inf_ && (neg_inf_ || sign_overflows(neg_, n_neg_, t));
}

void OverflowReach::admit(DType t, Exact& out) const {
  const auto add = [&out](double v) {
    const bool same = std::isnan(v) ? is_nan(out.value) : is_inf(out.value) && out.value == Mp(v);
    if (!same) out.alternatives.push_back(Mp(v));
  };
  if (reaches_pos_inf(t)) add(INFINITY);
  if (reaches_neg_inf(t)) add(-INFINITY);
  if (reaches_nan(t)) add(NAN);
}

}  // namespace kc::oracle
