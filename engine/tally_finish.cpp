// A kernel x dtype's tallies made its result (Tallies::finish): the
// statistics, the 99th percentile, the findings in the order an author
// reads them, the headline.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "engine/combine.h"
#include "engine/declared.h"
#include "engine/findings.h"
#include "engine/tally.h"

namespace kc::engine {

namespace {

// The findings of the accuracy and special-value failures, in the order a
// kernel author should read them: wrong NaNs and infinities first (their
// error is infinite), then the bounds.
void accuracy_findings(const Context& c, const Tallies& acc, std::vector<Finding>& out) {
  const contract::Accuracy* model = c.accuracy();
  auto add = [&](Failure f, const char* metric, double bound, std::string bound_text) {
    const auto ft = acc.by_failure[static_cast<std::size_t>(f)];
    if (ft.count == 0) return;
    const bool special = f == Failure::special_rule, counted = std::string_view(metric) == "elements";
    const std::string name(failure_name(f));
    out.push_back({special ? "special" : "accuracy", special ? CheckKind::special : CheckKind::accuracy, metric,
                   counted ? static_cast<double>(ft.count) : ft.worst, bound, ft.count,
                   accuracy_finding_text(name, ft.count, ft.worst, bound_text), name, bound_text});
  };
  for (Failure f : {Failure::special_rule, Failure::spurious_inf, Failure::missed_overflow, Failure::nan_result,
                    Failure::missing_nan, Failure::zero_sign, Failure::wrong_integer})
    add(f, "elements", 0, "0");
  add(Failure::replay_mismatch, "integer distance", 0, "0");
  add(Failure::not_exact, "fractional ulp", 0, "0");
  add(Failure::not_correctly_rounded, "integer distance", 0, "0");
  if (model) {
    add(Failure::frac_bound, "fractional ulp", model->max_frac_ulp,
        model->param_bound ? "its bound" : figure_text(model->max_frac_ulp));
    add(Failure::distance_bound, "integer distance", static_cast<double>(model->max_distance),
        fmt::format("{}", model->max_distance));
  }
  add(Failure::normalized_bound, "normalized error", 1, "1");
}

PassFigures pass_figures(const Context& c, const AccuracyStats& s) {
  PassFigures p{.graded = s.graded, .special = s.special, .max_frac_ulp = s.max_frac_ulp,
                .max_distance = s.max_distance, .max_normalized = s.max_normalized};
  if (const contract::Accuracy* m = c.accuracy()) {
    p.kind = m->kind;
    p.frac_bound_text = m->param_bound ? "its bound" : figure_text(m->max_frac_ulp);
    p.distance_bound = m->max_distance;
  }
  return p;
}

// The order-preserving key of a double: its bits, the sign flipped for
// positive values and every bit for negative ones (then unsigned order is
// numeric order).
std::uint64_t order_key(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b >> 63 ? ~b : b | (std::uint64_t{1} << 63);
}

}  // namespace


// (engine/tally.h) The element of rank floor(0.99 (n - 1)) of v (no NaN), as nth_element
// over a copy finds it, without copying or partitioning all of v (a
// sweep's block holds four million errors): a radix selection on the
// values' order keys, 16 bits a pass. Each pass counts the values that
// share the prefix found so far by their next 16 bits and keeps the bucket
// holding that rank; once it holds few values (or the keys are used up)
// they are gathered and partitioned. (One pass was not enough: in e^x's
// underflow region nearly every error shares its top 16 bits, and the
// gathered bucket was the whole block.)
double quantile_99(const std::vector<double>& v) {
  const auto k = static_cast<std::size_t>(0.99 * static_cast<double>(v.size() - 1));
  static thread_local std::vector<std::size_t> counts;
  static thread_local std::vector<double> bucket;
  constexpr std::size_t kGatherBelow = std::size_t{1} << 16;
  std::uint64_t prefix = 0;  // the selected keys' leading `bits` bits
  int bits = 0;
  const auto selected = [&](std::uint64_t key) { return bits == 0 || key >> (64 - bits) == prefix; };
  std::size_t below = 0, in_bucket = v.size();  // values under the bucket, and in it
  while (in_bucket > kGatherBelow && bits < 64) {
    counts.assign(std::size_t{1} << 16, 0);
    const int shift = 48 - bits;
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;  // the selected keys' least and greatest
    double at_lo = 0;
    for (const double x : v) {
      const std::uint64_t key = order_key(x);
      if (!selected(key)) continue;
      ++counts[(key >> shift) & 0xffff];
      if (key < lo) lo = key, at_lo = x;
      hi = std::max(hi, key);
    }
    // One value throughout (a sweep's underflow region: every error 0): it is the one.
    if (lo == hi) return at_lo;
    std::size_t b = 0;
    while (below + counts[b] <= k) below += counts[b++];
    prefix = (prefix << 16) | b;
    bits += 16;
    in_bucket = counts[b];
  }
  bucket.clear();
  for (const double x : v)
    if (selected(order_key(x))) bucket.push_back(x);
  const auto at = static_cast<std::ptrdiff_t>(k - below);
  std::nth_element(bucket.begin(), bucket.begin() + at, bucket.end());
  return bucket[static_cast<std::size_t>(at)];
}

void Tallies::finish(const Context& c, KernelDTypeResult& res) const {
  AccuracyStats& s = res.accuracy;
  s.graded = static_cast<std::int64_t>(fracs.values.size());
  s.special = special;
  s.replayed = replayed;
  s.oracle_escalations = escalations;
  if (!fracs.values.empty()) {
    const auto n = static_cast<double>(fracs.values.size());
    s.max_frac_ulp = fracs.max;
    s.mean_frac_ulp = fracs.sum.value(kGridBits) / n;
    s.p99_frac_ulp = std::min(quantile_99(fracs.values), fracs.max);  // (on the grid, and never above the maximum)
    s.correctly_rounded_share = static_cast<double>(cr) / n;
    s.not_correctly_rounded = n_dist - cr;
  }
  // A failure is never dropped from the maximum: a wrong NaN, infinity or
  // special value has an infinite error and makes the maximum infinite.
  s.max_frac_ulp = std::max(s.max_frac_ulp, max_failing_frac);
  s.max_distance = max_dist;
  s.max_absolute = max_abs_err;
  s.max_relative = max_rel_err;
  s.at_max_distance = at_max_dist;
  s.at_max_relative = at_max_rel;
  if (n_norm > 0) {
    s.max_normalized = max_norm;
    s.mean_normalized = sum_norm / static_cast<double>(n_norm);
  }
  // A condition-aware result's failures are never dropped from its maximum
  // either: a NaN where the exact value is a number makes it infinite.
  const contract::Accuracy* model = c.accuracy();
  if (model && model->kind == contract::AccuracyKind::condition_aware && failing_normalized >= 0)
    s.max_normalized = std::max(s.max_normalized.value_or(0.0), failing_normalized);
  if (bias_n > 0) {
    const MeanAndError m = mean_and_error(bias_n, bias_sum.value(kGridBits), bias_sq.value(2 * kGridBits));
    s.bias_mean = m.mean;
    s.bias_stderr = m.standard_error;
    s.bias_samples = bias_n;
  }
  s.histogram = frac_hist;
  if (n_dist > 0) s.distance_histogram = dist_hist;
  if (n_norm > 0) s.normalized_histogram = norm_hist;
  res.elements = elements;
  res.checks.assign(tallies.begin(), tallies.end());
  res.failures = failures;
  res.differences = differences;
  res.printed = printed;
  for (const auto& t : tallies) res.differs += t.differs;
  res.worst = worst;
  res.coverage = coverage;
  res.shapes = shapes;
  for (const auto w : kCoverageClasses.all())
    if (value_class_counts[w]) res.coverage.value_classes[std::string(kCoverageClasses.name(w))] += value_class_counts[w];
  for (const auto rc : contract::kResultClasses)
    if (const auto n = result_class_counts[rc])
      res.coverage.result_classes[std::string(contract::result_class_name(rc))] += n;
  res.profile = error_profile.finish();
  accuracy_findings(c, *this, res.findings);
  for (const auto& t : tallies)
    if (t.failed > 0 && t.kind != CheckKind::accuracy && t.kind != CheckKind::special) res.findings.push_back(check_finding(t));
  judge_claim(c, max_abs_err, max_rel_err, res);
  std::int64_t n_failed = 0;
  for (const auto& t : res.checks) n_failed += t.failed;
  if (res.interrupted) {
    res.verdict = n_failed > 0 ? Verdict::fail : Verdict::not_graded;
  } else if (elements == 0 && !c.opts.only_case) {  // (a replayed single case may be empty)
    res.verdict = Verdict::fail;  // a loop that graded nothing is a failure
    ElementReport r;
    r.check = "graded something";
    r.message = fmt::format("{} {}: no element was graded", c.k.name, dtype_name(c.t));
    res.failures.push_back(r);
    res.checks.push_back({.name = "graded something", .kind = CheckKind::run, .failed = 1});
    res.findings.push_back({"graded something", CheckKind::run, "runs that graded nothing", 1, 0, 1, "no element was graded"});
  } else {
    res.verdict = n_failed > 0 ? Verdict::fail : Verdict::pass;
  }
  judge_expected_failure(c, res);
  res.headline = res.findings.empty() ? pass_headline(pass_figures(c, s)) : res.findings.front().text;
}

}  // namespace kc::engine
