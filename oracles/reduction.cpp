// The reductions' evaluations (reference-semantics.md §5-§7), each
// kernel's exact function and, after them, its replay of the reference's
// steps (oracles/oracle.h): folds in increasing index order, accumulators
// in T (§0.1).
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "oracles/det_math.h"
#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/fold_prefix.h"
#include "oracles/oracle.h"
#include "oracles/overflow_reach.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

KC_MATH_OF(Terms, sum)
KC_MATH_OF(Terms, sum_wide)
KC_MATH_OF(Terms, accumulate)
KC_MATH_OF(Terms, mean)
KC_MATH_OF(Terms, max_fold)
KC_MATH_OF(Terms, min_fold)
KC_MATH_OF(Terms, argmax)
KC_MATH_OF(Terms, argmin)
KC_MATH_OF(CellElement, max_backward)

namespace kc::oracle {

namespace {

SumParts sum_parts(const MpTerms& in, DType fold_dtype) {
  SumParts s;
  s.exact = Mp(0);
  s.abs_sum = Mp(0);
  // Summed exactly without MPFR per term (oracles/exact_sum.h: the result
  // mpfr_sum gives, rounded once). The terms are a case's values, built
  // from doubles (drivers/folds.cpp), so each converts back exactly.
  static thread_local ExactSum exact, abs_sum;
  exact.clear();
  abs_sum.clear();
  for (const Mp& a : in.terms) {
    const double v = mpfr_get_d(raw(a), MPFR_RNDN);
    if (!is_nan(a) && mpfr_cmp_d(raw(a), v) != 0)
      throw std::logic_error("sum oracle: a term is not a double (Terms hold a case's values)");
    exact.add(v);
    abs_sum.add(std::fabs(v));
  }
  exact.round_into(raw(s.exact), MPFR_RNDN);
  abs_sum.round_into(raw(s.abs_sum), MPFR_RNDN);
  s.fold = Mp(0);
  for (const Mp& a : in.terms) {
    s.fold = rn(fold_dtype, s.fold + a);
    s.overflowed |= (is_inf(s.fold) || is_nan(s.fold)) && !is_inf(a) && !is_nan(a);
  }
  return s;
}

// gamma_m / u with gamma_m = (1 + u)^m - 1, m = n - 1 roundings: the form of
// Higham's gamma that holds for every m (m u / (1 - m u) needs m u < 1,
// which bf16 sums of 256 or more terms break).
Mp gamma_over_u(DType t, std::size_t n) {
  if (n <= 1) return Mp(0);
  const double u = unit_roundoff(t);
  return Mp(det::gamma_up(u, static_cast<long>(n - 1)) / u);  // (a power of 2: exact)
}

// Expected mean square of the fold's error (docs/accuracy-bounds.md,
// "Statistics of a case"): each addition's rounding error is modelled as
// uniform on +-ulp(s_k)/2 with ulp(s_k) <= 2u|s_k|, so its variance is at
// most u^2 s_k^2 / 3; independent errors add: E[err^2] <= u^2/3 sum_{k>=2}
// s_k^2 over the partial sums s_k. The partial sums are those of the terms
// in double, which is all the model's precision needs.
std::optional<double> fold_error_variance(DType fold_dtype, const MpTerms& in) {
  if (in.terms.size() < 2) return std::nullopt;
  const double u = unit_roundoff(fold_dtype);
  double s_k = 0, sum_sq = 0;
  for (std::size_t a = 0; a < in.terms.size(); ++a) {
    s_k += in.terms[a].convert_to<double>();
    if (a > 0) sum_sq += s_k * s_k;
  }
  return (u * u / 3) * sum_sq;
}

// T(n) as NumCast converts a count (halves: f64 -> f32 -> T).
Mp count_in(DType t, std::size_t n) { return Mp(num_cast(t, static_cast<double>(n))); }

}  // namespace

// The overflow latitude (oracles/overflow_reach.h): each non-finite value
// some order of the terms' additions in `fold_dtype` reaches is another
// correct answer (a blocked or pairwise sum whose partial sum passes the
// range where the reference's fold does not, or the other way round).
void admit_reachable_overflows(std::span<const double> terms, const SumParts& s, DType fold_dtype, Exact& out) {
  if (is_number(s.abs_sum) && !OverflowReach::may_overflow(s.abs_sum.convert_to<long double>(), terms.size(), fold_dtype))
    return;
  OverflowReach reach;
  for (const double a : terms) reach.add(a);
  reach.admit(fold_dtype, out);
}
void admit_reachable_overflows(const MpTerms& in, const SumParts& s, DType fold_dtype, Exact& out) {
  std::vector<double> terms;
  for (const Mp& a : in.terms) terms.push_back(mpfr_get_d(raw(a), MPFR_RNDN));
  admit_reachable_overflows(terms, s, fold_dtype, out);
}

// S = gamma_{n-1}/u * sum |a_i|, so that the model's K u S is Higham's
// gamma_{n-1} sum |a_i| (docs/accuracy-bounds.md).
// (Through the prefix kept from the previous element: FoldPrefix.)
void sum(const Terms& in, Exact& out) {
  static thread_local FoldPrefix prefix;
  prefix.extend_to(in);
  const SumParts s = prefix.parts();
  out.replayed = s.overflowed;
  out.value = s.overflowed ? s.fold : s.exact;
  if (s.overflowed) out.unreplayed = s.exact;
  out.magnitude = gamma_over_u(in.ctx.dtype, in.terms.size()) * s.abs_sum;
  out.error_variance = prefix.error_variance();
  admit_reachable_overflows(prefix.terms(), s, in.ctx.dtype, out);
}

// pad_backward (§14): the reference folds f64(g) in an f64 accumulator
// from +0 and narrows the sum to T by NumCast (f64 -> f32 -> T for the
// halves). S = gamma_{k-1}(u_f64)/u_f64 sum |a_i|: the fold's error bound
// over u_f64; the narrowing's share is the model's A ulp_T(z) and its
// factor K (models::wide_sum_narrowed, docs/accuracy-bounds.md, "Sums in
// f64, narrowed"). Where the f64 fold overflows (f64 data only) the result
// is the fold's, graded against it. The expected mean square of the error:
// the narrowing's uniform rounding error, ulp_T(z)^2 / 12, plus the fold's.
void sum_wide(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  const SumParts s = sum_parts(in, DType::f64);
  const DType t = in.ctx.dtype;
  out.replayed = s.overflowed;
  out.value = s.overflowed ? Mp(num_cast(t, s.fold.convert_to<double>())) : s.exact;
  if (s.overflowed) out.unreplayed = s.exact;
  out.magnitude = gamma_over_u(DType::f64, in.terms.size()) * s.abs_sum;
  const std::optional<double> fold = fold_error_variance(DType::f64, in);
  if (is_number(s.exact) && !is_zero(s.exact)) {
    const double ulp = std::ldexp(1.0, ulp_exponent(t, s.exact));
    out.error_variance = (t == DType::f64 ? 0.0 : ulp * ulp / 12) + fold.value_or(0.0);
  }
  admit_reachable_overflows(in, s, DType::f64, out);  // (only f64 data can overflow an f64 fold)
}

// mean = sum / T(n) with the count rounded into T (§0.3): bf16 divides a
// 257-element sum by 256. Empty: 0/0 = NaN. The count exact (PyTorch's) is
// the definition's other reading (Exact::other_reading).
void mean(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  const SumParts s = sum_parts(in, in.ctx.dtype);
  const Mp n = count_in(in.ctx.dtype, in.terms.size());
  out.replayed = s.overflowed;
  out.magnitude = gamma_over_u(in.ctx.dtype, in.terms.size()) * s.abs_sum / n;
  out.value = s.overflowed ? rn(in.ctx.dtype, s.fold / n) : s.exact / n;
  if (s.overflowed) out.unreplayed = s.exact / n;
  if (const auto size = static_cast<double>(in.terms.size()); num_cast(in.ctx.dtype, size) != size && !s.overflowed)
    out.other_reading = [v = Mp(s.exact / Mp(size))] { return std::optional<Mp>(v); };
  admit_reachable_overflows(in, s, in.ctx.dtype, out);  // (an infinite sum over n is infinite, NaN stays NaN)
}

// The conformance profile's latitude for a max/min fold: NaN where a term
// is NaN (PyTorch propagates it), and the other zero where the result is a
// zero and both signs occur (the first of equals is the reference's choice).
void fold_choices(const MpTerms& in, Exact& out) {
  bool nan = false, pos_zero = false, neg_zero = false;
  for (const Mp& a : in.terms) {
    nan |= is_nan(a);
    if (is_zero(a)) (sign_bit(a) ? neg_zero : pos_zero) = true;
  }
  if (nan) out.alternatives.push_back(Mp(std::nan("")));
  if (is_zero(out.value) && pos_zero && neg_zero) out.alternatives.push_back(-out.value);
}

// Start at -inf (+inf), replace on strict > (<): NaN ignored, first of equals kept.
void max_fold(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  out.value = Mp(-INFINITY);
  for (const Mp& a : in.terms)
    if (a > out.value) out.value = a;
  fold_choices(in, out);
}
void min_fold(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  out.value = Mp(INFINITY);
  for (const Mp& a : in.terms)
    if (a < out.value) out.value = a;
  fold_choices(in, out);
}

// The conformance profile's latitude for argmax/argmin: any index of an
// equal best value (the smallest is the reference's tie order), and the
// first NaN's index (PyTorch's NaN rule).
void arg_choices(const MpTerms& in, std::size_t at, Exact& out) {
  bool nan_seen = false;
  for (std::size_t k = 0; k < in.terms.size(); ++k) {
    if (k != at && !is_nan(in.terms[at]) && in.terms[k] == in.terms[at]) out.alternatives.emplace_back(static_cast<double>(k));
    if (is_nan(in.terms[k]) && !nan_seen) {
      nan_seen = true;
      if (k != at) out.alternatives.emplace_back(static_cast<double>(k));
    }
  }
}

// The best starts as the first term, so a NaN at index 0 wins (§6).
void argmax(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  std::size_t at = 0;
  for (std::size_t k = 1; k < in.terms.size(); ++k)
    if (in.terms[k] > in.terms[at]) at = k;
  out.value = Mp(static_cast<double>(at));
  arg_choices(in, at, out);
}
void argmin(const Terms& given, Exact& out) { const MpTerms in = mp(given);
  std::size_t at = 0;
  for (std::size_t k = 1; k < in.terms.size(); ++k)
    if (in.terms[k] < in.terms[at]) at = k;
  out.value = Mp(static_cast<double>(at));
  arg_choices(in, at, out);
}

// The gradient at x_i: s * mask_i with s = up / max(count, 1), count the
// number of maxima of the cell counted in T (fair share, §7). Every step is
// a basic operation: the replay is the exact definition.
//
// The conformance profile's latitude (docs/conformance-audit.md): the
// gradient of a position that is not a maximum is zero, which a kernel
// that selects (where(mask, s, 0)) gives as +0 where the reference's s * 0
// gives -0 (s < 0) or NaN (s infinite or NaN): either zero, or the
// reference's value, is correct. A maximum's share is up / count with the
// count exact (PyTorch counts the mask as an integer), not rounded into T
// one tie at a time; for the halves also as PyTorch's opmath gives it,
// divided in f32 and rounded to T.
void max_backward(const CellElement& given, Exact& out) { const MpCell in = mp(given);
  const DType t = in.ctx.dtype;
  const Mp& y = in.cell_max;
  // The reference counts the ties one increment at a time in T (a bf16
  // count stops at 256: 256 + 1 rounds back to 256).
  Mp count(0);
  for (std::int64_t i = 0; i < in.ties; ++i) count = rn(t, count + Mp(1));
  const Mp safe = count < Mp(1) ? Mp(1) : count;
  const Mp s = rn(t, in.up / safe);
  const bool selected = in.x == y;
  out.value = rn(t, s * (selected ? Mp(1) : Mp(0)));
  if (!selected) {
    out.alternatives = {Mp(0), -Mp(0)};
    return;
  }
  const Mp exact_count(static_cast<double>(std::max<std::int64_t>(in.ties, 1)));
  out.alternatives = {rn(t, in.up / exact_count)};
  if (t == DType::bf16 || t == DType::f16) out.alternatives.push_back(rn(t, rn(DType::f32, in.up / exact_count)));
}

}  // namespace kc::oracle

namespace kc::oracle::replay {

namespace {
double fold_sum(DType t, std::span<const double> terms) {
  const InT a{t};
  double acc = 0.0;  // +0
  for (double v : terms) acc = a.add(acc, v);
  return acc;
}
template <class Better>
double fold_select(std::span<const double> terms, double start, Better better) {
  double acc = start;
  for (double v : terms)
    if (better(v, acc)) acc = v;
  return acc;
}
template <class Better>
double arg_select(std::span<const double> terms, Better better) {
  std::size_t at = 0;  // the best starts as the first element: a NaN there wins
  for (std::size_t k = 1; k < terms.size(); ++k)
    if (better(terms[k], terms[at])) at = k;
  return static_cast<double>(at);
}
}  // namespace

// pad_backward (§14): an f64 accumulator from +0, then NumCast into T.
double sum_wide(const Terms& in) {
  const InT wide{DType::f64};
  double acc = 0.0;
  for (double v : in.terms) acc = wide.add(acc, v);
  return InT{in.ctx.dtype}.from_f64(acc);
}

// index_add / scatter_add (§16): the output starts as a copy of base (a -0
// stays -0), then each contribution is added in src's flat order.
double accumulate(const Terms& in) {
  if (in.terms.empty()) return 0.0;
  const InT a{in.ctx.dtype};
  double acc = in.terms[0];
  for (std::size_t k = 1; k < in.terms.size(); ++k) acc = a.add(acc, in.terms[k]);
  return acc;
}

double sum(const Terms& in) { return fold_sum(in.ctx.dtype, in.terms); }
// The sum, then / T(n) with the count converted by NumCast (§0.3).
double mean(const Terms& in) {
  const InT a{in.ctx.dtype};
  return a.div(fold_sum(in.ctx.dtype, in.terms), a.from_f64(static_cast<double>(in.terms.size())));
}
double max_fold(const Terms& in) { return fold_select(in.terms, -INFINITY, [](double v, double b) { return v > b; }); }
double min_fold(const Terms& in) { return fold_select(in.terms, INFINITY, [](double v, double b) { return v < b; }); }
double argmax(const Terms& in) { return arg_select(in.terms, [](double v, double b) { return v > b; }); }
double argmin(const Terms& in) { return arg_select(in.terms, [](double v, double b) { return v < b; }); }

// §7's steps at one element: y = the cell's max, mask = (x == y), count =
// the fold of the cell's masks in T, s = up / (count < 1 ? 1 : count),
// grad = s * mask (NaN where s is inf or NaN and the mask is 0).
// (The cell's y and count kept for its next elements: a cell of n
// elements is asked n times, n^2 rounded additions when each scanned it
// again. Kept per cell by the driver's fill, several at once, since a
// cell's members interleave with other cells' in x's order; a cell without
// one (0) is compared bit for bit with the last.)
double max_backward(const CellElement& in) {
  struct Scan {
    DType t = DType::f32;
    std::vector<double> cell;
    double y = 0, count = 0;
    bool set = false;
  };
  static thread_local Scan kept;
  static thread_local std::unordered_map<std::uint64_t, Scan> by_fill;
  const InT a{in.ctx.dtype};
  const std::span<const double> cell = in.cell;
  const auto scan = [&](Scan& s) {
    s.y = fold_select(cell, -INFINITY, [](double v, double b) { return v > b; });
    s.count = 0.0;
    for (double v : cell) s.count = a.add(s.count, v == s.y ? 1.0 : 0.0);
    s.t = in.ctx.dtype, s.set = true;
  };
  Scan* s = &kept;
  if (in.fill != 0) {
    if (by_fill.size() > 4096 && !by_fill.contains(in.fill)) by_fill.clear();
    s = &by_fill[in.fill];
    if (!s->set || s->t != in.ctx.dtype) scan(*s);
  } else if (!kept.set || kept.t != in.ctx.dtype || kept.cell.size() != cell.size() ||
             (!cell.empty() && std::memcmp(kept.cell.data(), cell.data(), cell.size() * sizeof(double)) != 0)) {
    scan(kept);
    kept.cell.assign(cell.begin(), cell.end());
  }
  const double sc = a.div(in.up, s->count < 1 ? 1.0 : s->count);
  return a.mul(sc, in.x == s->y ? 1.0 : 0.0);
}

}  // namespace kc::oracle::replay
