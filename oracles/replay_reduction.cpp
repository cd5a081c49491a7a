// Replays of the reductions (reference-semantics.md §5-§7): folds in
// increasing index order, accumulators in T (§0.1).
#include <cstddef>

#include "oracles/replay.h"

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
double max_backward(const CellElement& in) {
  const InT a{in.ctx.dtype};
  const double x = in.x, up = in.up;
  const std::span<const double> cell = in.cell;
  const double y = fold_select(cell, -INFINITY, [](double v, double b) { return v > b; });
  double count = 0.0;
  for (double v : cell) count = a.add(count, v == y ? 1.0 : 0.0);
  const double s = a.div(up, count < 1 ? 1.0 : count);
  return a.mul(s, x == y ? 1.0 : 0.0);
}

double identity(const Scalar& in) { return in.x; }

}  // namespace kc::oracle::replay
