// The overflow latitude's test (oracles/overflow_reach.h). Derivation
// (docs/accuracy-bounds.md, "Overflow latitude"): before the first partial
// sum overflows, every partial sum of any association is sum_i t_i pi_i,
// each pi_i a product of at most n - 1 factors (1 + d), |d| <= u (and a
// product's own rounding one more), so a positive partial sum, and the
// exact sum of the two finite operands of the addition that overflows, is
// at most P (1 + u)^n, P the sum of the positive terms' magnitudes. An
// addition rounds to +inf only when that exact sum is >= Omega = (2 -
// 2^-p) 2^emax (RN's overflow threshold), and a product only when |a b| >=
// Omega; so +inf is reachable only if P (1 + u)^n >= Omega. Conversely
// adding the positive terms first reaches at least P (1 - u)^n, so the
// test accepts at most the band [Omega (1 + u)^-n, Omega (1 - u)^-n) that
// no order may reach. NaN from finite terms is +inf + -inf: both signs
// must reach their infinity.
#include "oracles/overflow_reach.h"

#include <cmath>

#include "oracles/exact.h"

namespace kc::oracle {

namespace {

using B = long double;

// (1 + u)^m rounded up, by squaring: x87's multiplication is IEEE's (the
// same bits on every CPU, unlike libm's powl), each product within a
// relative 2^-64, covered by the 2^-40 margin for m < 2^20.
B growth(B u, std::size_t m) {
  B r = 1, base = 1 + u;
  for (; m != 0; m >>= 1, base *= base)
    if (m & 1) r *= base;
  return r * (1 + 0x1p-40L);
}

}  // namespace

void OverflowReach::add(double term) {
  ++n_;
  if (std::isnan(term)) nan_ = true;
  else if (std::isinf(term)) (term > 0 ? pos_inf_ : neg_inf_) = true;
  else (term > 0 ? pos_ : neg_) += std::fabs(static_cast<B>(term));
}

void OverflowReach::add_product(double a, double b) {
  ++n_;
  if (std::isnan(a) || std::isnan(b)) {
    nan_ = true;
  } else if (std::isinf(a) || std::isinf(b)) {
    if (a == 0 || b == 0) nan_ = true;
    else ((a > 0) == (b > 0) ? pos_inf_ : neg_inf_) = true;
  } else {
    const B p = static_cast<B>(a) * static_cast<B>(b);
    (p > 0 ? pos_ : neg_) += std::fabs(p);
  }
}

bool OverflowReach::may_overflow(B total, std::size_t n, DType t) {
  const FloatFormat f = float_format(t);
  const B omega = std::ldexp(2 - std::ldexp(B{1}, -f.precision), f.emax);
  return !(total * growth(std::ldexp(B{1}, -f.precision), n) < omega);
}

bool OverflowReach::reaches_nan(DType t) const {
  return nan_ || ((pos_inf_ || may_overflow(pos_, n_, t)) && (neg_inf_ || may_overflow(neg_, n_, t)));
}
// +inf: some order reaches it (a +inf term added at any point, or the
// positive terms added first) unless a -inf term is there to meet it.
bool OverflowReach::reaches_pos_inf(DType t) const {
  return !nan_ && !neg_inf_ && (pos_inf_ || may_overflow(pos_, n_, t));
}
bool OverflowReach::reaches_neg_inf(DType t) const {
  return !nan_ && !pos_inf_ && (neg_inf_ || may_overflow(neg_, n_, t));
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
