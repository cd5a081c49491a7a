#include "contracts/accuracy_models.h"

#include <cmath>
#include <cstdlib>

#include "oracles/det_math.h"

namespace kc::contract::models {

namespace {
int prec(DType t) { return float_format(t).precision; }
double unit_roundoff(DType t) { return std::ldexp(1.0, -prec(t)); }
// A result within L integer steps of RN(z) is within 2L + 1/2 ulp_T(z) of z
// (L + 1/2 inside a binade; steps above a power of two are twice as wide).
double frac_of_distance(int L) { return 2.0 * L + 0.5; }
// Rounding a value that is within e ulps of z in a format of precision pw
// into T (precision pt <= pw) leaves it within 1/2 + e 2^(pt - pw) ulp_T(z).
double narrowed(double e, int pw, int pt) { return 0.5 + e * std::ldexp(1.0, pt - pw); }
}  // namespace

std::vector<DTypeAccuracy> per_float_dtype(const std::function<Accuracy(DType)>& model) {
  std::vector<DTypeAccuracy> v;
  for (DType t : kFloatSet.list()) v.push_back({t, model(t)});
  return v;
}
std::vector<DTypeAccuracy> exact_everywhere() { return per_float_dtype([](DType) { return exact(); }); }
std::vector<DTypeAccuracy> exact_on(DTypeSet ts) {
  std::vector<DTypeAccuracy> v;
  for (DType t : ts.list()) v.push_back({t, exact()});
  return v;
}
std::vector<DTypeAccuracy> correctly_rounded_everywhere() {
  return per_float_dtype([](DType) { return correctly_rounded(); });
}

Accuracy exact() {
  return {.kind = AccuracyKind::exact,
          .max_frac_ulp = 0,
          .max_distance = 0,
          .derivation = "the exact result is representable in T and the reference computes it without rounding"};
}

Accuracy correctly_rounded() {
  return {.kind = AccuracyKind::correctly_rounded,
          .max_frac_ulp = 0.5,
          .max_distance = 0,
          .derivation = "one IEEE operation in T; halves do it in f32 and round once more, which is innocuous "
                        "because 24 >= 2p + 2 (Figueroa)"};
}

double libm_frac(DType t, int L) {
  return is_half(t) ? narrowed(frac_of_distance(L), 24, prec(t)) : frac_of_distance(L);
}

Accuracy libm(DType t, int L) {
  if (is_half(t))
    return {.kind = AccuracyKind::ulp_bound,
            .max_frac_ulp = libm_frac(t, L),
            .max_distance = 1,
            .derivation = "rne_T(f32 libm): within 2L + 1/2 f32 ulps before the final rounding, so 1/2 + "
                          "(2L + 1/2) 2^(p-24) ulp_T, and at most one step from RN_T"};
  return {.kind = AccuracyKind::ulp_bound,
          .max_frac_ulp = libm_frac(t, L),
          .max_distance = L,
          .derivation = "glibc 2.36 libm-test-ulps: distance <= L; fractional <= 2L + 1/2 (steps double above a "
                        "power of two)"};
}

Accuracy libm_f64_narrowed(DType t, int L) {
  if (t == DType::f64) return libm(t, L);
  double e = frac_of_distance(L);  // in f64 ulps
  if (is_half(t)) e = narrowed(e, 53, 24);  // first rounding, to f32 (reference-semantics §0.3)
  const int pw = is_half(t) ? 24 : 53;
  return {.kind = AccuracyKind::ulp_bound,
          .max_frac_ulp = narrowed(e, pw, prec(t)),
          .max_distance = 1,
          .derivation = "f64 libm (2L + 1/2 f64 ulps), narrowed once (f32) or twice via f32 (halves)"};
}

Accuracy two_roundings(DType t) {
  const double u = unit_roundoff(t);
  return {.kind = AccuracyKind::ulp_bound,
          .max_frac_ulp = 2.0 / (1.0 - u),
          .max_distance = 2,
          .derivation = "s = sqrt(x)(1+d1), y = (1/s)(1+d2): relative error <= 2u/(1-u), and |z|/ulp(z) < 2^p"};
}

Accuracy sigmoid(DType t) {
  // e within E ulps (relative 2Eu); the x < 0 branch e/(1+e) is the worse:
  // relative error <= 3(2E/2)u... first order: 3E u + 2u, times |z|/ulp < 2^p,
  // with (1 + 16u) covering second-order terms.
  const double E = is_half(t) ? libm_frac(t, kGlibcUlpsExp) : frac_of_distance(kGlibcUlpsExp);
  const double u = unit_roundoff(t);
  return {.kind = AccuracyKind::ulp_bound,
          .max_frac_ulp = (3 * E + 2) * (1 + 16 * u),
          .max_distance = -1,
          .derivation = "exp within E ulps, then 1+e and one division in T: (3E + 2)(1 + 16u) ulps"};
}

Accuracy silu(DType t) {
  const double E = is_half(t) ? libm_frac(t, kGlibcUlpsExp) : frac_of_distance(kGlibcUlpsExp);
  const double u = unit_roundoff(t);
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = (3 * E + 3) * (1 + 16 * u),
          .magnitude_coeff = E + 1,
          .work = t,
          .derivation = "sigmoid's (3E + 2) ulps plus the product's rounding; where sigmoid is subnormal its "
                        "absolute error (E + 1) ulp_min is multiplied by |x|: S = |x| 2^(emin+1), so that "
                        "K u S = (E + 1) |x| ulp_min"};
}

Accuracy gelu_erf(DType t) {
  // f64: a = f/sqrt2 (2 roundings incl. the constant), erf(a) (<= 2.5 ulp),
  // 1 + e, (0.5 f)(1 + e): absolute error <= 5 u64 |x|. Then narrowed.
  const double a = t == DType::f64 ? 1.0 : (is_half(t) ? narrowed(0.5, 24, prec(t)) : 0.5);
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = a,
          .magnitude_coeff = 5,
          .work = DType::f64,
          .derivation = "in f64: |y64 - z| <= 5 u64 |x| (erf 2.5 ulp, argument and constant 2 roundings, "
                        "1 + e and the product one each); narrowing adds 1/2 ulp_T (1/2 + 2^(p-25) for the "
                        "double rounding of halves; 1 for f64, whose last steps may underflow)"};
}

Accuracy gelu_tanh(DType t) {
  // All in T with tanh within E ulps: absolute error <= (3.125 + E) u |x|,
  // plus 1 ulp for the two products that may underflow.
  const double E = libm_frac(t, kGlibcUlpsTanh);
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = 1.0,
          .magnitude_coeff = 3.125 + E,
          .work = t,
          .derivation = "inner (5 roundings, damped by 1 - tanh^2 to 2.25u), tanh (E ulps, 2Eu absolute), "
                        "1 + t and the product: |y - z| <= (3.125 + E) u |x| + 1 ulp_T(z)"};
}

double powi_frac_bound(DType t, std::int64_t n) {
  // r = x^|n| by square-and-multiply: every path of the multiplication tree
  // carries a product of a = |n| - 1 rounding factors (1 + d), |d| <= u, so
  // r = x^|n| Theta with (1 - u)^a <= Theta <= (1 + u)^a. For n < 0 the
  // result is RN(1/r): its factor lies in [(1 - u)(1 + u)^-a, (1 + u)(1 - u)^-a].
  // The relative error is then at most (1 + u)^a - 1, or (1 + u)(1 - u)^-a - 1,
  // both finite for every i32 n (unlike Higham's a u / (1 - a u), which needs
  // a u < 1: f32 with |n| > 2^24 breaks it); |z| / ulp_T(z) < 1/u turns it
  // into ulps.
  const long a = n < 0 ? -(n + 1) : n - 1;  // |n| - 1, no overflow at INT32_MIN
  if (n == 0 || (n > 0 && a == 0)) return 0.5;
  const double u = std::ldexp(1.0, -(is_half(t) ? 24 : prec(t)));  // halves run the loop in f32
  // (rounded up, the same bits on every CPU: oracles/det_math.h)
  const double rel = n > 0 ? oracle::det::gamma_up(u, a) : oracle::det::gamma_up(u, 1, -u, -a);
  const double ulps = rel / u;
  return is_half(t) ? narrowed(ulps, 24, prec(t)) : std::max(0.5, ulps);
}

Accuracy powi(DType t) {
  return {.kind = AccuracyKind::ulp_bound,
          .max_frac_ulp = powi_frac_bound(t, 8),  // printed figure for |n| <= 8; the check uses each case's n
          .max_distance = -1,
          .derivation = "square-and-multiply: |n| - 1 rounding factors on every path, so relative error <= "
                        "(1+u)^(|n|-1) - 1, or (1+u)(1-u)^-(|n|-1) - 1 for n < 0, over u in ulps (halves: in f32, "
                        "then narrowed); where an intermediate leaves the normal range the oracle replays the "
                        "reference's loop and the result must match it",
          .param_bound = powi_frac_bound,
          .bound_param = "n"};
}

Accuracy recursive_sum(DType t) {
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = 0,
          .magnitude_coeff = 1,
          .work = t,
          .derivation = "fold from +0 in T: |y - z| <= gamma_{n-1} sum |a_i| with gamma_m = (1+u)^m - 1 (Higham "
                        "4.4; additions that underflow are exact); S = gamma_{n-1}/u sum |a_i|"};
}

Accuracy wide_sum_narrowed(DType t) {
  const int p = float_format(t).precision;
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = t == DType::f64 ? 0.0 : t == DType::f32 ? 0.5 : 0.5 + std::ldexp(1.0, -(24 - p)),
          .magnitude_coeff = t == DType::f64 ? 1.0 : t == DType::f32 ? 2.0 : 4.0,
          .work = DType::f64,
          .derivation = "fold in f64 from +0: |f - z| <= E = gamma_{k-1}(u_64) sum |a_i| (Higham 4.4); then N(f) "
                        "rounds to the T value nearest f, no farther from f than RN(z) is: |N(f) - z| <= 2E + "
                        "ulp_T(z)/2; halves round twice (f64 -> f32 -> T): 4E + ulp_32(z) + ulp_T(z)/2 with "
                        "ulp_32 = 2^-(24-p) ulp_T (docs/accuracy-bounds.md, \"Sums in f64, narrowed\")"};
}

Accuracy dot_product(DType t) {
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = 0,
          .magnitude_coeff = 1,
          .work = t,
          .check_case_statistics = true,
          .derivation = "fold of n rounded products from +0 in T: |y - z| <= gamma_n sum |a_k b_k| + n eta (1+u)^(n-1), "
                        "gamma_n = (1+u)^n - 1, eta = 2^(emin-p) for a product that underflows (Higham 3.1; additions "
                        "that underflow are exact); S is that over u"};
}

Accuracy stage_bound(DType t, std::string_view derivation) {
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = 0,
          .magnitude_coeff = 1,
          .work = t,
          .check_case_statistics = true,
          .derivation = derivation};
}

Accuracy mean(DType t) {
  return {.kind = AccuracyKind::condition_aware,
          .max_frac_ulp = 1,
          .magnitude_coeff = 1,
          .work = t,
          .derivation = "y = RN(s / T(n)): |y - z| <= ulp_T(z) + gamma_{n-1} sum |a_i| / T(n), z = sum / T(n) "
                        "with the count rounded into T as the reference does"};
}

Accuracy near_correct(double slack, std::string_view derivation) {
  return {.kind = AccuracyKind::ulp_bound, .max_frac_ulp = 0.5 + slack, .max_distance = 1, .derivation = derivation};
}

}  // namespace kc::contract::models
