// For the checks relating row kernels of the last axis (softmax,
// log_softmax and their backwards): an element's exact value and the
// bound of its entry's accuracy model, from the entry's Row oracle
// (oracles/exact.h), at the working precision of the dtype.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "contracts/contract.h"
#include "core/tensor.h"
#include "engine/check.h"
#include "generators/case.h"
#include "oracles/exact_sum.h"
#include "oracles/mp.h"

namespace kc::oracle {
struct Row;
}

namespace kc::checks {

struct RowExact {
  oracle::Mp z;      // the exact value (NaN where the row's is)
  oracle::Mp bound;  // u_T S: |y - z| <= bound for a conforming y (inf where S is absent)
  // The grade is the reference's replay (its steps overflow or the exact
  // value is undefined): the relations about exact values do not apply.
  bool replayed = false;
};
// A row element's exact value and bound under entry k's oracle: an
// element's own typed input (drivers::Element::input<oracle::Row>()), or
// element i of the row(s) a (and b) read from a tensor, in dtype t.
RowExact row_exact(const contract::KernelSpec& k, const oracle::Row& in);
// Output element `out` (its index in the outputs' sequence) of the case's
// own kernel, from grading's evaluation of it (CaseView::exacts: the check
// asks for them by needs_exacts), never evaluated again: nullopt where
// grading decided it by a special-value rule (no relation about exact
// values applies); std::logic_error where the check did not ask.
std::optional<RowExact> graded_row_exact(const engine::CaseView& v, std::int64_t out);
RowExact row_exact(const contract::KernelSpec& k, DType t, const Params& p, std::span<const double> a,
                   std::span<const double> b, std::size_t i);

// The elements of one row under the Row oracles of entries, evaluated
// here: one Row, one Row::fill, for all of them, so that an oracle's row
// work (its row caches, oracles/row_support.h: a softmax row's n
// exponentials, which log_softmax shares) is done once a row, each element
// then O(1).
class RowOracle {
 public:
  RowOracle(DType t, const Params& p, std::span<const double> a, std::span<const double> b = {});
  // Element i under entry k's oracle.
  RowExact at(const contract::KernelSpec& k, std::size_t i);

 private:
  oracle::Row row_;
};
// Element j of `row` (output element `out` of the case's own kernel):
// grading's evaluation where it kept one (graded_row_exact); on a shaped
// case, whose exact sample grades few of its elements, row's evaluation of
// the others (nullopt, as graded_row_exact's, where grading decided the
// element by a special-value rule).
std::optional<RowExact> graded_or_evaluated(const engine::CaseView& v, std::int64_t out, RowOracle& row, std::size_t j);

// The case's elements that grading evaluated (CaseView::exacts holds
// them): every element of a random case, the exact sample of a shaped one
// (built alone, drivers::Driver::for_each_listed: an attention output of
// millions of elements is not walked).
void each_graded_element(const engine::CaseView& v, const std::function<void(const drivers::Element&)>& f);

// Each output element's bound under its entry's Row oracle (elements of
// the case's driver, in the order of its outputs' sequence, drivers::
// Expectation): nullopt where some element is graded against the replay,
// has no finite bound or a non-finite output (the relations about exact
// values do not apply to that case).
std::optional<std::vector<oracle::Mp>> output_bounds(const engine::CaseView& v);

// "" where entry k reads as the attention checks read it, from its own
// data (never its driver's name): inputs q, k, v first (then do_grad for
// the backward), a Row oracle, and one output (the forward) or dq, dk, dv
// (the backward); else what does not fit.
std::string attention_fit(const contract::KernelSpec& k, bool backward);

// sum_i a_i b_i exactly (oracles/exact_sum.h), rounded into the scope's precision.
class ExactDot {
 public:
  void add(double a, double b) { s_.add_product(a, b); }
  oracle::Mp value() {
    oracle::Mp z;
    s_.round_into(oracle::raw(z), MPFR_RNDN);
    return z;
  }

 private:
  oracle::ExactSum s_;
};

// The rows of the last axis of a tensor: calls f(first flat index, n).
template <class F>
void for_each_row(const Tensor& x, F f) {
  const std::int64_t n = x.rank() == 0 ? 1 : x.dims().back();
  if (n == 0) return;
  for (std::int64_t at = 0; at < x.numel(); at += n) f(at, n);
}
// The row's values (value_at), and whether all are finite.
bool row_values(const Tensor& x, std::int64_t at, std::int64_t n, std::vector<double>& out);

}  // namespace kc::checks
