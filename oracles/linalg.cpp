// Oracle of matmul (reference-semantics.md §8): out = sum_kk a_kk b_kk,
// exact, with the condition-aware bound of accuracy.md.
#include "oracles/linalg.h"

#include <cmath>

#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace {

// gamma_n = (1 + u)^n - 1, valid for every n (n u may exceed 1 for halves).
double gamma(double u, std::size_t n) { return std::expm1(static_cast<double>(n) * std::log1p(u)); }

}  // namespace

// The bound (docs/accuracy-bounds.md, "Dot products"). The reference
// computes s_0 = +0, s_k = fl(s_{k-1} + fl(a_k b_k)), in T. A product
// rounds as fl(p) = p (1 + d) + e with |d| <= u, |e| <= eta = 2^(emin - p)
// (half the subnormal spacing) and d e = 0 (halves: the f32 product and
// its narrowing are one correct rounding, Figueroa, 24 >= 2p + 2); an
// addition as (x + y)(1 + d), exactly where it underflows. s_1 = fl(p_1)
// is exact, so the n products carry at most n factors (1 + d) and
//   |y - z| <= gamma_n sum |a_k b_k| + n eta (1 + u)^(n - 1).
// S is that over u (the model's K = 1 times u_T times S gives it back).
// Where a partial sum or a product overflows although the exact sum is
// finite, the reference's result is the fold's (inf or NaN): graded
// against the replayed fold, as sum_all is.
void dot(const Dot& in, Exact& out) {
  const DType t = in.ctx.dtype;
  const std::size_t n = in.pairs.size() / 2;
  static thread_local ExactSum exact, abs_sum;
  static thread_local std::vector<double> products;
  exact.clear();
  abs_sum.clear();
  bool all_negative_zero = n > 0;
  // fl(a b) in T is a zero only for |a b| at most half T's smallest subnormal
  // (its tie rounds to 0, the even neighbour): only those are rounded here.
  const double zero_reach = t == DType::f64 ? 0.0 : min_subnormal(t);
  double sum_sq = 0.0, s_k = 0.0, abs_d = 0.0;
  double finite_pos = 0.0, finite_neg = 0.0;  // sums of the finite products of each sign (in double: a threshold test)
  products.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double a = in.pairs[2 * k], b = in.pairs[2 * k + 1];
    // Exact in double below f64 (at most 24-bit significands); for f64 one rounding.
    const double pd = a * b;
    products[k] = pd;
    if (all_negative_zero) {
      const double p = std::fabs(pd) < zero_reach ? round_to_format(pd, t) : pd;  // fl(a b) in T (halves: RN of the f32 product)
      all_negative_zero = p == 0 && std::signbit(p);
    }
    abs_d += std::fabs(pd);
    // The model of independent roundings (case statistics): each product's
    // and each addition's error uniform on +-ulp/2, variance <= u^2 v^2 / 3.
    const double finite = std::isfinite(pd) ? pd : 0.0;  // (branch-free: the signs are random)
    finite_pos += std::max(finite, 0.0);
    finite_neg += std::min(finite, 0.0);
    s_k += pd;
    sum_sq += pd * pd + (k > 0 ? s_k * s_k : 0.0);
  }
  // The exact sums, in bulk (oracles/exact_sum.h): f64 products exactly
  // as 106-bit ones, the others as the exact doubles they are.
  if (t == DType::f64) exact.add_products(in.pairs.data(), n, &abs_sum);
  else exact.add_all(products.data(), n, &abs_sum);
  // The fold in T (the reference's result where it overflows), replayed
  // only where it can: every partial sum is below sum |fl(p_k)| (1 + u)^n
  // <= sum |p_k| (1 + u)^(2n), so below max_T no product or partial sum
  // overflows (non-finite terms make abs_d inf or NaN: replayed).
  double fold = 0.0;
  const double u = unit_roundoff(t);
  if (!(abs_d * std::exp(2 * static_cast<double>(n) * std::log1p(u)) * (1 + 0x1p-40) < max_finite(t))) {
    const replay::InT in_t{t};
    for (std::size_t k = 0; k < n; ++k) fold = in_t.add(fold, in_t.mul(in.pairs[2 * k], in.pairs[2 * k + 1]));
  }
  Mp z(0), abs(0);
  exact.round_into(raw(z), MPFR_RNDN);
  abs_sum.round_into(raw(abs), MPFR_RNDN);
  // A zero result is +0: the fold starts at +0 and +0 + -0 = +0 in RN.
  if (is_zero(z)) z = Mp(0);
  // The fold overflowed where it is not the exact sum's special value: a
  // product or partial sum past the range (with infinite inputs too: an
  // overflowed +inf meeting a -inf input gives NaN where z is -inf).
  const bool overflowed = (std::isinf(fold) || std::isnan(fold)) &&
                          !(std::isnan(fold) && is_nan(z)) && !(std::isinf(fold) && is_inf(z) && Mp(fold) == z);
  out.replayed = overflowed;
  out.value = overflowed ? Mp(fold) : z;
  if (overflowed) {
    out.unreplayed = z;
    // Which non-finite value an overflowing fold ends with depends on its
    // order (an FMA fold that overflows to +inf where the reference's
    // +inf meets a -inf product and gives NaN): another order of the same
    // IEEE operations is as correct, so the conformance profile accepts
    // any of them here, as well as a finite result within the bound of z.
    for (double v : {INFINITY, -INFINITY, NAN})
      if (!(v == fold || (std::isnan(v) && std::isnan(fold)))) out.alternatives.push_back(Mp(v));
  }
  // Another correct kernel that does not start from +0 (fl(p_0) first, as
  // BLAS does) returns -0 when every product is -0.
  if (all_negative_zero && !overflowed) out.alternatives.push_back(Mp(-0.0));
  // An infinite exact sum (an infinite product) whose finite products of
  // the other sign can overflow on their own: an order that adds them
  // first reaches the opposite infinity, then NaN. (Their exact sum past
  // the threshold by a relative 2^-20: their rounded fold has overflowed.)
  const double limit = max_finite(t) * (1 + 0x1p-20);
  if (!overflowed && is_inf(z) && (sign_bit(z) ? finite_pos > limit : -finite_neg > limit))
    out.alternatives.push_back(Mp(NAN));
  const FloatFormat f = float_format(t);
  // n eta (1 + u)^(n - 1) in MPFR: f64's eta = 2^-1075 lies below double's
  // range (a double would hold it as 0 and drop the term).
  Mp under(static_cast<double>(n) * std::exp(static_cast<double>(n > 0 ? n - 1 : 0) * std::log1p(u)));
  mpfr_mul_2si(raw(under), raw(under), f.emin - f.precision, MPFR_RNDN);
  out.magnitude = (Mp(gamma(u, n)) * abs + under) / Mp(u);
  if (n >= 2) out.error_variance = (u * u / 3) * sum_sq;
}

double dot_bound_upper(DType t, std::span<const double> pairs) {
  // (f64's eta underflows to 0 here: a bound of f64 results near the
  // bottom of the range is then the gamma term alone; the checks that use
  // it skip nothing else, and compare doubles that carry the same loss.)
  const std::size_t n = pairs.size() / 2;
  double abs = 0;
  for (std::size_t k = 0; k < n; ++k) abs += std::fabs(pairs[2 * k] * pairs[2 * k + 1]);
  const double u = unit_roundoff(t);
  const FloatFormat f = float_format(t);
  const double eta = std::ldexp(1.0, f.emin - f.precision);
  const double under = static_cast<double>(n) * eta * std::exp(static_cast<double>(n > 0 ? n - 1 : 0) * std::log1p(u));
  return (gamma(u, n) * abs + under) * (1 + 0x1p-40);
}

}  // namespace kc::oracle
