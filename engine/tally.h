// Everything a kernel x dtype run accumulates over its cases: the check
// tallies and kept failures, the accuracy statistics (errors, histogram,
// error profile over the input domain, normalized errors, the bias sums),
// the coverage of value and shape classes, and the worst cases; `finish`
// turns them into the result the JSON and the report show.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drivers/driver.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "engine/results.h"

namespace kc::engine {

struct Tallies {
  std::vector<CheckTally> tallies;
  std::vector<ElementReport> worst, failures;
  std::int64_t failed = 0;  // failures recorded, all checks
  // accuracy statistics
  std::vector<double> fracs;
  std::int64_t elements = 0, special = 0, replayed = 0, escalations = 0, cr = 0, n_dist = 0, max_dist = 0;
  double sum_norm = 0, max_norm = -1;
  std::int64_t n_norm = 0;
  double bias_sum = 0, bias_sq = 0;  // signed ulp errors of the bias samples
  std::int64_t bias_n = 0;
  std::vector<std::int64_t> hist;
  std::vector<double> prof_max;  // per slice of the input domain
  Coverage coverage;

  Tallies();
  // The tally of a check, created (in the order the run meets them) on first use.
  CheckTally& tally(const std::string& name, const std::string& kind);
  // One outcome of a check; a failure keeps its report (up to the run's cap per check).
  void record(const Context& c, CheckTally& t, bool ok, const ElementReport* report);
  // A check that could not judge (too few samples): says why, fails nothing.
  void not_graded(CheckTally& t, const std::string& why);

  void add_shape(const Tensor& x);  // shape classes of a case's first input
  // Coverage of one element's inputs and output.
  void add_coverage(const Context& c, const drivers::Element& e, const Grade& g, double y);
  // Error statistics of one graded element (not decided by a special rule, not a replay).
  void add_error(const Context& c, const drivers::Element& e, const Grade& g);
  void add_normalized(const Grade& g);
  // Reports are built only where one is kept: a failure, or an element that
  // enters the current top 5 (formatting every element would dominate a sweep).
  bool could_be_worst(const Grade& g) const;
  void keep_worst(const ElementReport& r);

  // The result's statistics, tallies, coverage, error profile and verdict.
  void finish(const Context& c, KernelDTypeResult& res) const;
};

}  // namespace kc::engine
