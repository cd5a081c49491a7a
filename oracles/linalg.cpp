// The evaluations of matmul's dot products and rope's rotations
// (oracles/oracle.h). The exact value of matmul (reference-semantics.md
// §8): out = sum_kk a_kk b_kk, exact, with the condition-aware bound of
// accuracy.md. After it, the replays: of matmul (reference-semantics.md §8): out[i, j] = the fold over
// kk ascending of the product a[i, kk] b[kk, j] rounded into T, added into
// an accumulator of T that starts at +0; no FMA, no wider accumulator. And
// of rope (§11), two products and their difference or sum.
#include <cmath>

#include "oracles/linalg.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"

KC_MATH_OF(Dot, dot)
KC_MATH_OF(Rotation, rope)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_PRODUCTS_AVX2 1
#include <immintrin.h>
#endif

#include "core/cpu.h"
#include "oracles/det_math.h"
#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/overflow_reach.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace {

// gamma_n = (1 + u)^n - 1 rounded up, valid for every n (n u may exceed 1
// for halves); (1 + u)^n the same way (oracles/det_math.h: the same bits on
// every CPU).
double gamma(double u, std::size_t n) { return det::gamma_up(u, static_cast<long>(n)); }
double pow1p(double u, std::size_t n) { return det::pow1p_up(u, static_cast<long>(n)); }

// What the bound and the overflow test need of a dot product's length n
// in dtype t: gamma_n, (1 + u)^(2n) and n eta (1 + u)^(n - 1), the last
// in MPFR (f64's eta = 2^-1075 lies below double's range: a double would
// hold it as 0 and drop the term). Kept for the last (t, n) asked: a
// case's outputs share their length.
struct Factors {
  DType t = DType::f32;
  std::size_t n = 0;
  double u = 0, gamma = 0, growth = 0;
  double max_finite = 0, zero_reach = 0;  // (per dtype; each ldexp a call, per output otherwise)
  // S's upper bound from the double sum of |p_k| (dot below): gamma_n / u
  // and n eta (1 + u)^(n - 1) / u as doubles, and the margin (1 -
  // 2^-53)^-(2n + 4) (1 + 2^-40)
  double gamma_over_u_d = 0, under_over_u_d = 0, s_margin = 0;
  // gamma_n / u and n eta (1 + u)^(n - 1) / u, for S (dot below; each a
  // double times a power of 2, exact at 53 bits)
  mpfr_t gamma_over_u, under_over_u;
  Factors() { mpfr_inits2(53, gamma_over_u, under_over_u, static_cast<mpfr_ptr>(nullptr)); }
  ~Factors() { mpfr_clears(gamma_over_u, under_over_u, static_cast<mpfr_ptr>(nullptr)); }
  Factors(const Factors&) = delete;
  Factors& operator=(const Factors&) = delete;
};
const Factors& factors(DType t, std::size_t n) {
  static thread_local Factors f;
  if (f.u != 0 && f.t == t && f.n == n) return f;
  f.t = t;
  f.n = n;
  f.u = unit_roundoff(t);
  f.gamma = gamma(f.u, n);
  f.growth = pow1p(f.u, 2 * n) * (1 + 0x1p-40);
  f.max_finite = max_finite(t);
  f.zero_reach = t == DType::f64 ? 0.0 : min_subnormal(t);
  const FloatFormat ff = float_format(t);
  const long log2_u = std::ilogb(f.u);  // (u = 2^-p)
  f.gamma_over_u_d = std::ldexp(f.gamma, static_cast<int>(-log2_u));
  f.under_over_u_d = std::ldexp(static_cast<double>(n) * pow1p(f.u, n > 0 ? n - 1 : 0),
                                ff.emin - ff.precision - static_cast<int>(log2_u));
  f.s_margin = det::pow1p_up(-0x1p-53, -static_cast<long>(2 * n + 4)) * (1 + 0x1p-40);
  // (the same doubles, exactly: gamma_n / u and U / u are normal doubles
  // for every dtype)
  mpfr_set_d(f.gamma_over_u, f.gamma_over_u_d, MPFR_RNDN);
  mpfr_set_d(f.under_over_u, f.under_over_u_d, MPFR_RNDN);
  return f;
}

// The products p_k = a_k b_k into `products` (exact in double below f64:
// at most 24-bit significands; for f64 one rounding), sum |p_k| (a bound
// for the tests below, within n 2^-53 relative: their margins hold it),
// and, with `variance`, the variance model's sum (case statistics: each
// product's and each addition's error uniform on +-ulp/2, variance <= u^2
// v^2 / 3, v the exact product or partial sum s_k; s_1 = p_1 is no
// addition). Its own function with restrict pointers and four partial
// sums of |p_k|: inlined into dot, GCC kept the sums in memory across the
// products' stores (a store-forwarding chain of ~9 cycles a term); the
// partial sums' s_k chain (4 cycles a term) runs only for the samples of
// a statistics case.
struct ProductSums {
  double abs, sum_sq;
};
#ifdef KC_PRODUCTS_AVX2
// The loop below, four products a step: the same products and the same
// four partial sums (lane j sums the terms k = j mod 4, in order).
[[gnu::target("avx2")]] std::size_t abs_products_avx2(const double* __restrict pairs, double* __restrict products,
                                                      std::size_t n, double* partial) {
  const __m256d abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffff));
  __m256d acc = _mm256_setzero_pd();
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    const __m256d v0 = _mm256_loadu_pd(pairs + 2 * k), v1 = _mm256_loadu_pd(pairs + 2 * k + 4);
    // (a0 a2 a1 a3) (b0 b2 b1 b3): the products in the order 0 2 1 3, put back in order
    const __m256d p = _mm256_permute4x64_pd(_mm256_mul_pd(_mm256_unpacklo_pd(v0, v1), _mm256_unpackhi_pd(v0, v1)), 0xd8);
    _mm256_storeu_pd(products + k, p);
    acc = _mm256_add_pd(acc, _mm256_and_pd(p, abs_mask));
  }
  _mm256_storeu_pd(partial, acc);
  return k;
}
#endif

[[gnu::noinline]] ProductSums product_sums(const double* __restrict pairs, double* __restrict products, std::size_t n,
                                           bool variance) {
  // (Four named partial sums, four terms a step: indexed as abs4[k % 4],
  // GCC kept them in memory, a store-forwarding chain again.)
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  std::size_t k = 0;
#ifdef KC_PRODUCTS_AVX2
  if (cpu_has_avx2_fma()) {  // (a third of this function's time; bench/exact_sum_bench.cpp)
    double partial[4];
    k = abs_products_avx2(pairs, products, n, partial);
    a0 = partial[0], a1 = partial[1], a2 = partial[2], a3 = partial[3];
  }
#endif
  for (; k + 4 <= n; k += 4) {
    const double p0 = pairs[2 * k] * pairs[2 * k + 1], p1 = pairs[2 * k + 2] * pairs[2 * k + 3];
    const double p2 = pairs[2 * k + 4] * pairs[2 * k + 5], p3 = pairs[2 * k + 6] * pairs[2 * k + 7];
    products[k] = p0, products[k + 1] = p1, products[k + 2] = p2, products[k + 3] = p3;
    a0 += std::fabs(p0), a1 += std::fabs(p1), a2 += std::fabs(p2), a3 += std::fabs(p3);
  }
  for (; k < n; ++k) {
    const double pd = pairs[2 * k] * pairs[2 * k + 1];
    products[k] = pd;
    (k % 4 == 0 ? a0 : k % 4 == 1 ? a1 : a2) += std::fabs(pd);  // (k % 4 < 3 here)
  }
  double sum_sq = 0.0;
  if (variance) {
    double s_k = 0.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double pd = products[k];
      s_k += pd;
      sum_sq += pd * pd + (k > 0 ? s_k * s_k : 0.0);
    }
  }
  return {(a0 + a1) + (a2 + a3), sum_sq};
}

// Whether every fl(a b) in T is -0 (another correct order's result, in
// dot below): only where every product is below T's zero reach (|a b| at
// most half T's smallest subnormal, whose tie rounds to 0, the even
// neighbour; f64's products are fl(a b) already), so abs_d <= n reach
// (twice that: abs_d is rounded) or 0; then each is rounded to see.
bool all_products_negative_zero(const std::vector<double>& products, std::size_t n, double abs_d, const Factors& f,
                                DType t) {
  bool all_negative_zero = false;
  if (n > 0 && abs_d <= 2 * static_cast<double>(n) * f.zero_reach) {
    all_negative_zero = true;
    for (std::size_t k = 0; k < n && all_negative_zero; ++k) {
      const double pd = products[k];
      const double p = std::fabs(pd) < f.zero_reach ? round_to_format(pd, t) : pd;  // fl(a b) in T (halves: RN of the f32 product)
      all_negative_zero = p == 0 && std::signbit(p);
    }
  }
  return all_negative_zero;
}

// The fold in T (the reference's result where it overflows), replayed
// only where it can: every partial sum is below sum |fl(p_k)| (1 + u)^n
// <= sum |p_k| (1 + u)^(2n), so below max_T no product or partial sum
// overflows (non-finite terms make abs_d inf or NaN: replayed); 0 where
// not replayed.
double overflow_fold(const Dot& in, std::size_t n, double abs_d, const Factors& f, DType t) {
  double fold = 0.0;
  if (!(abs_d * f.growth < f.max_finite)) {
    const replay::InT in_t{t};
    for (std::size_t k = 0; k < n; ++k) fold = in_t.add(fold, in_t.mul(in.pairs[2 * k], in.pairs[2 * k + 1]));
  }
  return fold;
}

// Whether the fold overflowed where it is not the exact sum z's special
// value (a product or partial sum past the range, with infinite inputs
// too: an overflowed +inf meeting a -inf input gives NaN where z is -inf);
// if so, out takes the fold as its value (the reference profile's grade)
// and keeps z as the unreplayed value (a finite result within the bound of
// z passes the conformance profile).
bool take_overflowed_fold(double fold, mpfr_srcptr z, Exact& out) {
  const bool overflowed = (std::isinf(fold) || std::isnan(fold)) && !(std::isnan(fold) && mpfr_nan_p(z)) &&
                          !(std::isinf(fold) && mpfr_inf_p(z) && mpfr_cmp_d(z, fold) == 0);
  out.replayed = overflowed;
  if (overflowed) {
    out.unreplayed = out.value;
    out.value = Mp(fold);
  }
  return overflowed;
}

// The overflow latitude (oracles/overflow_reach.h): each non-finite value
// some order of the products' additions reaches is another correct answer
// (an FMA fold that overflows to +inf where the reference's +inf meets a
// -inf product and gives NaN; a blocked GEMM's partial sum past the range
// where the exact sum is finite).
void admit_reachable_overflows(const Dot& in, std::size_t n, DType t, Exact& out) {
  OverflowReach reach;
  for (std::size_t k = 0; k < n; ++k) reach.add_product(in.pairs[2 * k], in.pairs[2 * k + 1]);
  reach.admit(t, out);
}

// S = (gamma_n P + U) / u, P = sum |a_k b_k|, U = n eta (1 + u)^(n - 1),
// into out's magnitude, as an upper bound within a relative (4n + 8)
// 2^-53 + 2^-39 of it, in double from abs_d (an exact P cost a second
// exact sum and three MPFR operations per output, a third of a 64^3
// matmul oracle's time; bench/exact_sum_bench.cpp). Derivation, with c =
// 1 / (1 - 2^-53):
// - abs_d adds the n doubles |fl(p_k)| (p_k = a_k b_k) in some order; an
//   addition of non-negative doubles rounds down by at most a factor
//   1 - 2^-53 (and is exact where subnormal): sum |fl(p_k)| <= c^(n - 1)
//   abs_d.
// - Below f64 fl(p_k) = p_k. For f64 |p_k| <= c |fl(p_k)| + 2^-1075
//   (relative where normal, half the subnormal spacing where not), so P
//   <= c^n abs_d + n 2^-1075, and the tail's part of S, gamma_n n 2^-1075
//   / u <= n^2 2^-1075 (1 + u)^(n - 1), is n 2^-53 of U / u (= n 2^-1022
//   (1 + u)^(n - 1) for f64): S <= c^(2n) (gamma_n / u abs_d + U / u).
// - The three roundings below (the product, the sum, the margin) each
//   lose at most a factor c where normal; where the product falls below
//   2^-1022 its absolute error 2^-1075 is below 2^-53 of the sum, which
//   is at least U / u >= 2^-1022 for every dtype: c again.
// - gamma_n / u, U / u and the margin come from gamma_up and pow1p_up
//   (rounded up), times n and a power of 2: the factor 1 + 2^-40 covers
//   that product's rounding many times over.
// So s_margin = c^(2n + 4) (1 + 2^-40) makes s_up an upper bound; from
// above, abs_d <= (1 + 2^-53)^(n - 1) sum |fl(p_k)|, |fl(p_k)| <= (1 +
// 2^-53) |p_k| for f64, the roundings and the margin give the relative
// (4n + 8) 2^-53 + 2^-39 (tests/dot_magnitude_test.cpp checks both
// sides). s_up is exact in the working precision (>= 53 bits). Where it
// is not finite (a non-finite product, or P past double's range), P is
// summed exactly (in `exact`, cleared, and `abs_sum`) and S rounded in
// MPFR.
void set_dot_magnitude(const Dot& in, const std::vector<double>& products, std::size_t n, double abs_d,
                       const Factors& f, DType t, ExactSum& exact, ExactSum& abs_sum, Exact& out) {
  mpfr_ptr m = raw(out.set_magnitude());
  const double s_up = (f.gamma_over_u_d * abs_d + f.under_over_u_d) * f.s_margin;
  if (std::isfinite(s_up)) {
    mpfr_set_d(m, s_up, MPFR_RNDN);
  } else {
    // (the value into `exact` again, cleared: only abs_sum is wanted)
    exact.clear();
    abs_sum.clear();
    if (t == DType::f64) exact.add_products(in.pairs.data(), n, &abs_sum);
    else exact.add_all(products.data(), n, &abs_sum);
    // The product and the sum rounded once each at the working precision,
    // the division by u (a power of 2, exact) taken into both constants.
    abs_sum.round_into(m, MPFR_RNDN);
    mpfr_mul(m, m, f.gamma_over_u, MPFR_RNDN);
    mpfr_add(m, m, f.under_over_u, MPFR_RNDN);
  }
}

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
  products.resize(n);
  const ProductSums ps = product_sums(in.pairs.data(), products.data(), n, out.variance_wanted);
  const double sum_sq = ps.sum_sq, abs_d = ps.abs;
  // The factors of n for this dtype, computed once per length: a run's
  // outputs of a case share n (factors() above).
  const Factors& f = factors(t, n);
  const bool all_negative_zero = all_products_negative_zero(products, n, abs_d, f, t);
  // The exact sum, in bulk (oracles/exact_sum.h): f64 products exactly
  // as 106-bit ones, the others as the exact doubles they are.
  if (t == DType::f64) exact.add_products(in.pairs.data(), n, nullptr);
  else exact.add_all(products.data(), n, nullptr);
  const double fold = overflow_fold(in, n, abs_d, f, t);
  // The exact sum z straight into out.value (at the working precision).
  mpfr_ptr z = raw(out.value);
  exact.round_into(z, MPFR_RNDN);
  // A zero result is +0: the fold starts at +0 and +0 + -0 = +0 in RN.
  if (mpfr_zero_p(z)) mpfr_set_zero(z, 1);
  const bool overflowed = take_overflowed_fold(fold, z, out);
  // Another correct kernel that does not start from +0 (fl(p_0) first, as
  // BLAS does) returns -0 when every product is -0.
  if (all_negative_zero && !overflowed) out.alternatives.push_back(Mp(-0.0));
  // (Below the gate no order overflows: P (1 + u)^n <= abs_d growth < max_T.)
  if (!(abs_d * f.growth < f.max_finite)) admit_reachable_overflows(in, n, t, out);
  set_dot_magnitude(in, products, n, abs_d, f, t, exact, abs_sum, out);
  if (n >= 2 && out.variance_wanted) out.error_variance = (f.u * f.u / 3) * sum_sq;
}

void rope(const Rotation& in, Exact& out) {
  dot(Dot{in.ctx, {in.x_a, in.c, in.sum ? in.x_b : -in.x_b, in.s}}, out);
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
  const double under = static_cast<double>(n) * eta * pow1p(u, n > 0 ? n - 1 : 0);
  return (gamma(u, n) * abs + under) * (1 + 0x1p-40);
}

}  // namespace kc::oracle

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
