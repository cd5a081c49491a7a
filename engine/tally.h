// Everything a kernel x dtype run accumulates over its cases: the check
// tallies and kept failures, the accuracy statistics (errors, histograms
// per metric with their failing elements, the error profile over the input
// domain, normalized errors, the bias sums), the ways elements failed and
// the worst figure of each, the coverage of value, result and shape
// classes, and the worst cases; `finish` turns them into the result the
// JSON and the report show, led by the finding that failed it.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "drivers/driver.h"
#include "engine/context.h"
#include "engine/error_profile.h"
#include "engine/figure_grid.h"
#include "engine/graded_outputs.h"
#include "engine/grading.h"
#include "engine/results.h"
#include "engine/worst.h"

namespace kc::engine {

// The 99th percentile of v (no NaN): the element of rank floor(0.99 (n -
// 1)), as nth_element over a copy finds it (Statistics::p99_frac_ulp).
double quantile_99(const std::vector<double>& v);

// Value classes of the coverage (of the inputs, and overflowing results),
// counted per element and named once at the end (Tallies::finish).
#define KC_COVERAGE_CLASSES(X)                                                                          \
  X(zero, "zero") X(subnormal, "subnormal") X(normal, "normal") X(inf, "inf") X(nan, "nan") X(tie, "tie") \
  X(integer, "integer") X(overflow, "overflow")
KC_VOCABULARY(CoverageClass, std::uint8_t, kCoverageClasses, KC_COVERAGE_CLASSES);
using CoverageCounts = ByWord<CoverageClass, std::int64_t, kCoverageClasses.size()>;
using ResultClassCounts = ByWord<contract::ResultClass, std::int64_t, contract::kResultClassNames.size()>;

inline CoverageClass classify_value(DType t, double x) {
  using enum CoverageClass;
  if (!is_float(t)) return x == 0 ? zero : integer;
  if (std::isnan(x)) return nan;
  if (std::isinf(x)) return inf;
  if (x == 0) return zero;
  if (std::fabs(x) < pow2(float_format(t).emin)) return subnormal;
  return normal;
}

// The class of a correct result in its dtype (contract::ResultClass).
inline contract::ResultClass classify_result(DType t, double r) {
  using RC = contract::ResultClass;
  if (std::isnan(r)) return RC::nan;
  if (std::isinf(r)) return RC::inf;
  if (r == 0) return RC::zero;
  const double a = std::fabs(r);
  const FloatFormat f = float_format(t);
  if (a < pow2(f.emin)) return RC::subnormal;
  if (a < pow2(f.emin + 1)) return RC::near_underflow;
  if (a >= pow2(f.emax)) return RC::near_overflow;
  return RC::normal;
}

// The bin of v in a histogram's edges (bin i: [edges[i], edges[i+1]), the
// last open; v >= edges[0], not NaN): a scan from the first, since most
// errors fall in the first few bins.
inline std::size_t bin_of(std::span<const double> edges, double v) {
  std::size_t i = 0;
  while (i + 2 < edges.size() && v >= edges[i + 1]) ++i;
  return i;
}

struct Tallies {
  // A deque: tally() hands out references that must stay valid while
  // later checks add their tallies (a vector's growth would dangle them).
  std::deque<CheckTally> tallies;
  std::vector<ElementReport> worst, failures, differences;
  std::int64_t failed = 0;  // failures recorded, all checks
  // accuracy statistics
  // The finite fractional errors of the graded elements on the grid
  // (engine/figure_grid.h), with their exact sum, and their maximum as
  // graded (always MPFR's figure: needs_exact regrades an element that
  // could reach it), kept as they come (a sweep's block has 2^22: two
  // passes over it fewer at the end).
  struct FracList {
    std::vector<double> values;
    GridSum sum;
    double max = -INFINITY;
    // Room for `more` values ahead, growing geometrically (a sweep's block
    // pushes 2^22: grown by doubling, its copies were 2% of the sweep).
    void expect(std::size_t more) {
      const std::size_t need = values.size() + more;
      if (need > values.capacity()) values.reserve(std::max(need, 2 * values.capacity()));
    }
    [[gnu::always_inline]] void push(double f, double q) {  // (q = on_grid(f))
      values.push_back(q);
      sum.add(q);
      if (f > max) max = f;
    }
  };
  FracList fracs;
  std::int64_t elements = 0, special = 0, replayed = 0, escalations = 0, cr = 0, n_dist = 0, max_dist = 0;
  // The case being graded's largest accuracy failure (normalized error
  // where the bound is condition-aware, else fractional ulp; exact), reset
  // by the run for each problem line's case (ShapeReport::Line::worst).
  double case_worst = 0;
  bool case_worst_normalized = false;
  double sum_norm = 0, max_norm = -1;
  std::int64_t n_norm = 0;
  // The signed ulp errors of the bias samples, on the grid: their sum and
  // the sum of their squares (GridSum::value(kGridBits), (2 kGridBits)).
  GridSum bias_sum, bias_sq;
  std::int64_t bias_n = 0;
  double max_failing_frac = 0;   // over failing elements (inf for non-finite and special-value failures)
  double failing_normalized = -1;  // the same in normalized error (-1: no failure)
  double max_abs_err = 0, max_rel_err = 0;  // over graded elements (inf where a failure has no finite error)
  std::optional<ElementReport> at_max_dist, at_max_rel;  // the first element at each maximum
  Histogram frac_hist, dist_hist, norm_hist;
  // The ways elements failed: count and worst figure of each.
  struct FailureTally {
    std::int64_t count = 0;
    double worst = 0;
  };
  std::array<FailureTally, kFailureKinds> by_failure{};
  ProfileBuilder error_profile;  // of the one-input elementwise elements
  Coverage coverage;  // its value and result classes are counted below, named in finish()
  // The shaped cases' figures (the runner fills the profile, the counts
  // and the failing problem lines; the grader the samples).
  ShapeReport shapes;
  CoverageCounts value_class_counts;
  ResultClassCounts result_class_counts;

  // The run's graded outputs (null in a shrink step's scratch tallies).
  GradedOutputs* graded = nullptr;
  // What the kernel printed, per case (the first kMaxPrinted cases that printed).
  static constexpr std::size_t kMaxPrinted = 20;
  std::vector<PrintedOutput> printed;

  Tallies();
  // The tally of a check, created (in the order the run meets them) on first use.
  CheckTally& tally(const std::string& name, CheckKind kind, Profile profile = Profile::conformance);
  // One outcome of a check. A failure's report is built (by `make`) and kept
  // only if the check has fewer than the run's cap and no failure with the
  // same `key` (the input bits, or the case) yet: kept failures are
  // distinct, and formatting is paid only for what is shown.
  void record(const Context& c, CheckTally& t, bool ok, const std::string& key,
              const std::function<ElementReport()>& make);
  void record(const Context& c, CheckTally& t, bool ok) { record(c, t, ok, "", nullptr); }
  // Whether a failure of t recorded now could still be kept (fewer than the
  // run's cap kept): where not, its key and report need not be made (a
  // mutant fails millions of elements, and formatting each key was most of
  // its run).
  bool keeps(const Context& c, const CheckTally& t) const;
  // A check that could not judge (too few samples): says why, fails nothing.
  void not_graded(CheckTally& t, const std::string& why);

  void add_shape(const Tensor& x);  // shape classes of a case's first input
  // Coverage of one element's inputs (its first two values, classified)
  // and result.
  void add_coverage(const Context& c, const drivers::Element& e, const Figures& g, double y) {
    double first[2];
    add_coverage(c, std::span<const double>(first, oracle::leading_values(e.in, first)), g, y);
  }
  void add_coverage(const Context& c, std::span<const double> values, const Figures& g, double y);
  // Error statistics of one element graded against the oracle (not decided
  // by a special rule, not a replay), failing or not.
  void add_error(const Context& c, const drivers::Element& e, const Figures& g) {
    const bool profiled = e.replayable && e.shown.size() == 1;
    add_error(c, g, profiled, profiled ? e.shown[0] : 0, profiled ? oracle::first_value(e.in) : 0.0);
  }
  // profiled: a one-input element, at input x (bits x_bits) of the error
  // profile; its figures fill `profile_slot` where that is set (the point
  // was reserved in input order: ProfileBuilder::reserve).
  void add_error(const Context& c, const Figures& g, bool profiled, std::uint64_t x_bits, double x);
  std::optional<std::size_t> profile_slot;
  // Before add_error: whether g raises the maximum distance or relative
  // error (then `make` builds the element's report, kept as the one at it).
  // `at`, where given, is the element's place (case, element): of equal
  // figures in one case the earlier element is the one kept, whatever the
  // order they are recorded in (engine/case_run.cpp records a stretch's
  // set-aside candidates after the stretch's other elements).
  using Place = engine::Place;
  void note_extremes(const Figures& g, const std::function<ElementReport()>& make, std::optional<Place> at = {});
  void add_normalized(const Figures& g);
  // An element that failed its accuracy or special-value check.
  void add_failure(const Figures& g);
  bool could_be_worst(const Figures& g, std::optional<Place> at = {}) const;
  // A fast-path grade whose figures could be shown (a worst case, the
  // element at a maximum) or could move a maximum: grade it with MPFR.
  bool needs_exact(const Figures& g, std::optional<Place> at = {}) const;
  void keep_worst(const ElementReport& r);
  // needs_exact for lane figures against a snapshot of the run's worst
  // cases and maxima, taken before a block: those only grow, so an element
  // the snapshot does not let through is never shown and needs no regrade
  // whatever the block holds. Most blocks of a long run have none that it
  // lets through; then block_candidates need not run at all.
  struct LaneGate {
    double worst_lo, max_rel, max_abs;
    std::int64_t max_dist;
    [[gnu::always_inline]] bool lets_through(const LaneFigures& f) const {
      return !f.approximate || (std::isfinite(f.frac) && f.frac + f.uncertainty > worst_lo) || (f.distance >= 0 && f.distance > max_dist) ||
             (!std::isnan(f.rel_err) && f.rel_err + f.rel_uncertainty > max_rel) || f.abs_err + f.abs_uncertainty > max_abs;
    }
  };
  // ties: equal figures let through too (a stretch's set-aside candidates,
  // decided after later elements of their case were recorded, may come
  // before those on a tie).
  LaneGate lane_gate(bool ties = false) const;
  // Of a block of approximate grades (those with passed[i]), the ones whose
  // figures could still be shown or set a maximum once the whole block is
  // graded and that `gate` lets through: candidate[i] set (every i). The
  // others need no exact regrade.
  void block_candidates(std::span<const LaneFigures> g, std::span<const char> passed, std::vector<char>& candidate,
                        const LaneGate& gate) const;

  // The passing elements of the bulk lane (engine/case_run.cpp: a one-input
  // elementwise case whose element the fast path passed and which cannot be
  // shown): what the general path records for each (the accuracy and
  // semantics tallies, coverage, error statistics, histograms, the error
  // profile), counted in a batch and added to the tallies by add_passes,
  // which must run before any other element is recorded (the regrade rule,
  // needs_exact, reads the maxima). A sweep has 2^32 such elements: each
  // costs a few additions here, not the general path's calls.
  struct PassBatch {
    PassBatch(DType t, bool replays);
    DType t;
    bool replays;  // the entry has a semantics replay (each passing element passed it)
    double min_normal, tie_limit;  // of t: 2^emin, and 2^(p-1) (above it every value is an integer)
    double near_overflow;          // 2^emax: classify_result's bounds, looked up once
    std::uint64_t sign_mask;       // ordered_bits's, looked up once
    std::int64_t elements = 0, outputs = 0, outputs_zero = 0;
    CoverageCounts value_classes;
    ResultClassCounts result_classes;
    std::array<std::int64_t, 16> frac_bins{};
    std::array<std::int64_t, 12> dist_bins{};
    std::int64_t n_dist = 0, cr = 0, max_dist = 0, bias_n = 0;
    double max_abs = 0, max_rel = 0;
  };
  // The passing lane elements from k on (passed and not a candidate):
  // finite non-zero inputs x, results y (not NaN), figures f of a model
  // that is not condition-aware and whose output dtype is its input's
  // (grading.h fast_model), element i = lo + k. Counted into the batch as
  // the general path would record each; returns the first k that is not
  // one (n where all are). `full_stats` as grade_case's: false counts the
  // elements only. (A run of them with its counters in registers: the
  // batch's fields, updated per element in memory, were a chain of
  // dependent read-modify-writes.)
  std::size_t add_pass_run(PassBatch& b, const LaneFigures* f, const char* passed, const char* candidate,
                           const ElementReader& x, const ElementReader& y, std::int64_t lo, std::size_t k,
                           std::size_t n, bool full_stats) {
    const std::size_t k0 = k;
    while (k < n && passed[k] && !candidate[k]) ++k;
    count_passes(b, x, y, k0, k, full_stats, [&](std::size_t j) {
      return Counted{f[j], lo + static_cast<std::int64_t>(j), kNoSlot};
    });
    return k;
  }
  // Where a lane element set aside as a candidate lies, until the
  // candidates of a stretch of blocks are decided together (its figures
  // kept beside): its index and error-profile slot (reserved in input
  // order; with full statistics only).
  struct PendingLane {
    std::int64_t i;
    std::size_t slot;
  };
  // The set-aside elements f[j] at[j] that proved no candidate (!still[j]),
  // counted as add_pass_run counts a run (their profile figures into
  // their slots).
  void add_pass_list(PassBatch& b, const LaneFigures* f, const PendingLane* at, const char* still, std::size_t n,
                     const ElementReader& x, const ElementReader& y, bool full_stats) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t k0 = k;
      while (k < n && !still[k]) ++k;
      count_passes(b, x, y, k0, k, full_stats, [&](std::size_t j) { return Counted{f[j], at[j].i, at[j].slot}; });
    }
  }
  // Adds the batch to the tallies and empties it.
  void add_passes(PassBatch& b);
  // Creates the tallies add_passes will add the batch to (none for an
  // empty one), as it would: called before an element is recorded while
  // passes before it wait in the batch, the tallies keep the order in
  // which a run meets them, however the batch is timed.
  void name_passes(const PassBatch& b);

  // The result's statistics, findings, tallies, coverage, error profile and verdict.
  void finish(const Context& c, KernelDTypeResult& res) const;

 private:
  // add_pass_run's and add_pass_list's count of elements k0 .. k - 1, each
  // at(j) = its figures, its element index and its reserved profile slot
  // (kNoSlot: none, its point is added).
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  struct Counted {
    const LaneFigures& g;
    std::int64_t i;
    std::size_t slot;
  };
  template <class At>
  [[gnu::always_inline]] void count_passes(PassBatch& b, const ElementReader& x, const ElementReader& y, std::size_t k0,
                                           std::size_t k, bool full_stats, At at) {
    b.elements += static_cast<std::int64_t>(k - k0);
    if (!full_stats || k == k0) return;
    std::int64_t subnormal = 0, ties = 0, integers = 0, overflows = 0, zeros_out = 0, n_dist = 0, cr = 0;
    std::int64_t rc_zero = 0, rc_sub = 0, rc_under = 0, rc_over = 0, rc_inf = 0;
    std::int64_t max_dist = b.max_dist, bias_n = 0;
    // (The bias sums go straight into the tallies: exact, in any order; and
    // only the bias check, at the run's end, reads them.)
    double max_abs = b.max_abs, max_rel = b.max_rel;
    for (std::size_t j = k0; j < k; ++j) {
      const auto [g, i, slot] = at(j);
      const double xv = x.value(i);
      const double ax = std::fabs(xv);
      // add_coverage: at or above 2^(p-1) every value of T is an integer
      // (and none a tie); below, the integer part is exact in 64 bits (a
      // conversion, not a trunc() call: the baseline x86-64 has no
      // rounding instruction).
      subnormal += ax < b.min_normal;
      if (ax < b.tie_limit) {
        const double whole = static_cast<double>(static_cast<std::int64_t>(xv));
        ties += std::fabs(xv - whole) == 0.5;
        integers += xv == whole;
      } else {
        ++integers;
      }
      overflows += g.overflow;
      // (classify_result for a T value that is no NaN, the format looked up once)
      const double ar = std::fabs(g.rn);
      rc_inf += ar == INFINITY;
      rc_zero += ar == 0;
      rc_sub += ar > 0 && ar < b.min_normal;
      rc_under += ar >= b.min_normal && ar < 2 * b.min_normal;
      rc_over += ar >= b.near_overflow && ar < INFINITY;
      zeros_out += y.value(i) == 0;
      // add_error (a lane element never fails) and add_normalized
      const double frac = on_grid(g.frac);
      if (std::isfinite(g.frac)) fracs.push(g.frac, frac);
      if (g.abs_err > max_abs) max_abs = g.abs_err;  // (false for NaN)
      if (g.rel_err > max_rel) max_rel = g.rel_err;
      if (!std::isnan(g.frac)) ++b.frac_bins[bin_of(kFracEdgeList, g.frac)];
      if (g.distance >= 0) {
        if (g.distance > max_dist) max_dist = g.distance;
        cr += g.distance == 0;
        ++n_dist;
        ++b.dist_bins[bin_of(dist_hist.edges, static_cast<double>(g.distance))];
      }
      const std::uint64_t xb = x.bits(i);
      const auto magnitude = static_cast<std::int64_t>(xb & (b.sign_mask - 1));  // ordered_bits
      const double distance = g.distance >= 0 ? static_cast<double>(g.distance) : NAN;
      if (slot == kNoSlot) error_profile.add(xb & b.sign_mask ? -magnitude : magnitude, xv, frac, distance, NAN, false);
      else error_profile.fill(slot, frac, distance, NAN, false);
      if (g.bias_sample && std::isfinite(g.signed_normalized)) {
        const double q = on_grid(g.signed_normalized);
        bias_sum.add(q);
        bias_sq.add_square(q);
        ++bias_n;
      }
    }
    const auto count = static_cast<std::int64_t>(k - k0);
    b.value_classes[CoverageClass::subnormal] += subnormal;
    b.value_classes[CoverageClass::normal] += count - subnormal;
    b.value_classes[CoverageClass::tie] += ties;
    b.value_classes[CoverageClass::integer] += integers;
    b.value_classes[CoverageClass::overflow] += overflows;
    using RC = contract::ResultClass;
    b.result_classes[RC::zero] += rc_zero;
    b.result_classes[RC::subnormal] += rc_sub;
    b.result_classes[RC::near_underflow] += rc_under;
    b.result_classes[RC::near_overflow] += rc_over;
    b.result_classes[RC::inf] += rc_inf;
    b.result_classes[RC::normal] += count - rc_zero - rc_sub - rc_under - rc_over - rc_inf;
    b.outputs += count;
    b.outputs_zero += zeros_out;
    b.max_abs = max_abs, b.max_rel = max_rel, b.max_dist = max_dist;
    b.n_dist += n_dist, b.cr += cr;
    b.bias_n += bias_n;
  }

  std::set<std::pair<std::string, std::string>> kept_;  // (check, key) of kept failures
};

}  // namespace kc::engine
