// The words of a result: its findings (how it failed, each with the figure
// that failed it and the bound it crossed) and the headline a page and the
// terminal lead with. Written from the findings' fields alone, so that
// `kconform report` describes the sums of several merged runs in exactly
// the words a single run uses (reports/merge.cpp).
#pragma once

#include <optional>
#include <string>

#include "contracts/contract.h"
#include "engine/results.h"

namespace kc::engine {

// "2.5", "inf", "179".
std::string figure_text(double v);

// The text of a finding of the accuracy or special-value grading, led by
// its check ("accuracy: integer distance 2 > 1 on 476 elements")
// (failure: a Failure's name, e.g. "spurious_inf"), from its count, worst
// figure and bound (bound_text: the bound as written, e.g. "2.5" or "its
// bound" for a bound that depends on a parameter).
std::string accuracy_finding_text(const std::string& failure, std::int64_t count, double figure,
                                  const std::string& bound_text);

// Where a finding of the accuracy grading is listed: wrong NaNs and
// infinities first (their error is infinite), then the bounds.
int accuracy_finding_rank(const std::string& failure);

// The finding of a failed check other than accuracy: its statistic when it
// has one, else how many of its instances failed.
Finding check_finding(const CheckTally& t);

// A pass, in the figure that decides it: the model's kind (none: no
// accuracy model), its bounds, and the run's statistics.
struct PassFigures {
  std::optional<contract::AccuracyKind> kind;
  std::string frac_bound_text;  // "2.5" or "its bound"
  std::int64_t distance_bound = -1;  // -1: none
  std::int64_t graded = 0, special = 0;
  double max_frac_ulp = 0;
  std::int64_t max_distance = 0;
  std::optional<double> max_normalized;
};
std::string pass_headline(const PassFigures& p);

}  // namespace kc::engine
