// Everything a kernel x dtype run accumulates over its cases: the check
// tallies and kept failures, the accuracy statistics (errors, histograms
// per metric with their failing elements, the error profile over the input
// domain, normalized errors, the bias sums), the ways elements failed and
// the worst figure of each, the coverage of value, result and shape
// classes, and the worst cases; `finish` turns them into the result the
// JSON and the report show, led by the finding that failed it.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "drivers/driver.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "engine/results.h"

namespace kc::engine {

struct Tallies {
  // A deque: tally() hands out references that must stay valid while
  // later checks add their tallies (a vector's growth would dangle them).
  std::deque<CheckTally> tallies;
  std::vector<ElementReport> worst, failures, differences;
  std::int64_t failed = 0;  // failures recorded, all checks
  // accuracy statistics
  std::vector<double> fracs;  // finite fractional errors of the graded elements
  std::int64_t elements = 0, special = 0, replayed = 0, escalations = 0, cr = 0, n_dist = 0, max_dist = 0;
  double sum_norm = 0, max_norm = -1;
  std::int64_t n_norm = 0;
  double bias_sum = 0, bias_sq = 0;  // signed ulp errors of the bias samples
  std::int64_t bias_n = 0;
  double max_failing_frac = 0;   // over failing elements (inf for non-finite and special-value failures)
  double max_abs_err = 0, max_rel_err = 0;  // over graded elements (inf where a failure has no finite error)
  std::optional<ElementReport> at_max_dist, at_max_rel;  // the first element at each maximum
  Histogram frac_hist, dist_hist, norm_hist;
  // The ways elements failed: count and worst figure of each.
  struct FailureTally {
    std::int64_t count = 0;
    double worst = 0;
  };
  std::array<FailureTally, kFailureKinds> by_failure{};
  // One-input elementwise elements, for the error profile: ordered input bits, input, errors, failed.
  struct ProfilePoint {
    std::int64_t order;
    double x, frac, distance, normalized;
    bool failed;
  };
  std::vector<ProfilePoint> profile_points;
  Coverage coverage;  // its value and result classes are counted below, named in finish()
  static constexpr std::size_t kValueClasses = 8;
  std::array<std::int64_t, kValueClasses> value_class_counts{};
  std::array<std::int64_t, 8> result_class_counts{};  // by contract::ResultClass

  Tallies();
  // The tally of a check, created (in the order the run meets them) on first use.
  CheckTally& tally(const std::string& name, const std::string& kind, Profile profile = Profile::conformance);
  // One outcome of a check. A failure's report is built (by `make`) and kept
  // only if the check has fewer than the run's cap and no failure with the
  // same `key` (the input bits, or the case) yet: kept failures are
  // distinct, and formatting is paid only for what is shown.
  void record(const Context& c, CheckTally& t, bool ok, const std::string& key,
              const std::function<ElementReport()>& make);
  void record(const Context& c, CheckTally& t, bool ok) { record(c, t, ok, "", nullptr); }
  // A check that could not judge (too few samples): says why, fails nothing.
  void not_graded(CheckTally& t, const std::string& why);

  void add_shape(const Tensor& x);  // shape classes of a case's first input
  // Coverage of one element's inputs (args) and result.
  void add_coverage(const Context& c, const drivers::Element& e, const Figures& g, double y) {
    add_coverage(c, e.args, g, y);
  }
  void add_coverage(const Context& c, std::span<const double> args, const Figures& g, double y);
  // Error statistics of one element graded against the oracle (not decided
  // by a special rule, not a replay), failing or not.
  void add_error(const Context& c, const drivers::Element& e, const Figures& g) {
    const bool profiled = e.replayable && e.shown.size() == 1;
    add_error(c, g, profiled, profiled ? e.shown[0] : 0, profiled ? e.args[0] : 0.0);
  }
  // profiled: a one-input element, at input x (bits x_bits) of the error profile.
  void add_error(const Context& c, const Figures& g, bool profiled, std::uint64_t x_bits, double x);
  // Before add_error: whether g raises the maximum distance or relative
  // error (then `make` builds the element's report, kept as the one at it).
  void note_extremes(const Figures& g, const std::function<ElementReport()>& make);
  void add_normalized(const Figures& g);
  // An element that failed its accuracy or special-value check.
  void add_failure(const Figures& g);
  bool could_be_worst(const Figures& g) const;
  // A fast-path grade whose figures could be shown (a worst case, the
  // element at a maximum) or could move a maximum: grade it with MPFR.
  bool needs_exact(const Figures& g) const;
  void keep_worst(const ElementReport& r);
  // Of a block of approximate grades (those with passed[i]), the ones whose
  // figures could still be shown or set a maximum once the whole block is
  // graded: candidate[i] set. The others need no exact regrade.
  void block_candidates(std::span<const Figures> g, std::span<const char> passed, std::vector<char>& candidate) const;

  // The result's statistics, findings, tallies, coverage, error profile and verdict.
  void finish(const Context& c, KernelDTypeResult& res) const;

 private:
  std::set<std::pair<std::string, std::string>> kept_;  // (check, key) of kept failures
};

}  // namespace kc::engine
