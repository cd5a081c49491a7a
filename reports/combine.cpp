// Two results of one kernel x dtype combined (reports/combine.h).
#include "reports/combine.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "checks/bias.h"
#include "core/error.h"
#include "core/saturating.h"
#include "engine/error_profile.h"
#include "engine/findings.h"
#include "engine/worst.h"

namespace kc::reports {

namespace {

using engine::AccuracyStats;
using engine::CheckTally;
using engine::ElementReport;
using engine::KernelDTypeResult;


// The larger error; NaN where either is (a NaN maximum stays NaN).
double larger(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : b > a ? b : a; }
std::optional<double> larger(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a) return b;
  if (!b) return a;
  return larger(*a, *b);
}
// Of the error profile's slices, where NaN is a slice that graded nothing.
double larger_graded(double a, double b) { return std::isnan(a) ? b : std::isnan(b) ? a : b > a ? b : a; }

// A mean over na + nb items from the means of each part.
double pooled_mean(double a, std::int64_t na, double b, std::int64_t nb) {
  const double n = static_cast<double>(na) + static_cast<double>(nb);  // in double: no overflow
  return n == 0 ? a : (a * static_cast<double>(na) + b * static_cast<double>(nb)) / n;
}
std::optional<double> pooled_mean(const std::optional<double>& a, std::int64_t na, const std::optional<double>& b,
                                  std::int64_t nb) {
  if (!a) return b;
  if (!b) return a;
  return pooled_mean(*a, na, *b, nb);
}

// The bias samples' count, sum and sum of squares, from their count, mean
// and standard error (checks/bias.cpp: se^2 = (sq/n - mean^2) / n).
struct BiasSums {
  std::int64_t n = 0;
  double sum = 0, sq = 0;
};
BiasSums bias_sums(const AccuracyStats& a) {
  if (a.bias_samples == 0 || !a.bias_mean || !a.bias_stderr) return {};
  const double n = static_cast<double>(a.bias_samples), mean = *a.bias_mean, se = *a.bias_stderr;
  return {a.bias_samples, mean * n, n * (se * se * n + mean * mean)};
}

void add(engine::Histogram& into, const engine::Histogram& from, const std::string& where) {
  if (into.edges != from.edges || into.metric != from.metric)
    throw UsageError(fmt::format("{}: the runs' {} histograms have different bins; they cannot be merged", where,
                                 into.metric.empty() ? "error" : into.metric));
  for (std::size_t i = 0; i < into.counts.size() && i < from.counts.size(); ++i)
    into.counts[i] = saturating_add(into.counts[i], from.counts[i]);
  for (std::size_t i = 0; i < into.failing.size() && i < from.failing.size(); ++i)
    into.failing[i] = saturating_add(into.failing[i], from.failing[i]);
}
void add(std::optional<engine::Histogram>& into, const std::optional<engine::Histogram>& from, const std::string& where) {
  if (!into) into = from;
  else if (from) add(*into, *from, where);
}

std::int64_t normalized_count(const AccuracyStats& a) {  // (every graded element of a condition-aware model has one)
  std::int64_t n = 0;
  if (a.normalized_histogram)
    for (std::int64_t c : a.normalized_histogram->counts) n = saturating_add(n, c);
  return n;
}

void combine_accuracy(AccuracyStats& m, const AccuracyStats& b, const std::string& where) {
  const AccuracyStats a = m;
  m.graded = saturating_add(a.graded, b.graded);
  m.special = saturating_add(a.special, b.special);
  m.replayed = saturating_add(a.replayed, b.replayed);
  m.oracle_escalations = saturating_add(a.oracle_escalations, b.oracle_escalations);
  m.not_correctly_rounded = saturating_add(a.not_correctly_rounded, b.not_correctly_rounded);
  m.max_frac_ulp = larger(a.max_frac_ulp, b.max_frac_ulp);
  m.max_distance = std::max(a.max_distance, b.max_distance);
  m.max_normalized = larger(a.max_normalized, b.max_normalized);
  m.max_absolute = larger(a.max_absolute, b.max_absolute);
  m.max_relative = larger(a.max_relative, b.max_relative);
  // The element at a maximum: the first run's unless the second's maximum is larger.
  if (!a.at_max_distance || (b.at_max_distance && b.max_distance > a.max_distance)) m.at_max_distance = b.at_max_distance;
  if (!a.at_max_relative || (b.at_max_relative && b.max_relative > a.max_relative)) m.at_max_relative = b.at_max_relative;
  m.mean_frac_ulp = pooled_mean(a.mean_frac_ulp, a.graded, b.mean_frac_ulp, b.graded);
  m.correctly_rounded_share = pooled_mean(a.correctly_rounded_share, a.graded, b.correctly_rounded_share, b.graded);
  m.mean_normalized = pooled_mean(a.mean_normalized, normalized_count(a), b.mean_normalized, normalized_count(b));
  // In each run at least 99% of the errors are at most its p99, so at least
  // 99% of the pooled ones are at most the larger: an upper bound, marked so.
  m.p99_frac_ulp = larger(a.p99_frac_ulp, b.p99_frac_ulp);
  m.p99_is_upper_bound = true;
  const BiasSums x = bias_sums(a), y = bias_sums(b);
  m.bias_samples = saturating_add(x.n, y.n);
  if (m.bias_samples > 0) {
    const auto s = checks::bias_statistic(m.bias_samples, x.sum + y.sum, x.sq + y.sq);
    m.bias_mean = s.mean;
    m.bias_stderr = s.standard_error;
  }
  add(m.histogram, b.histogram, where);
  add(m.distance_histogram, b.distance_histogram, where);
  add(m.normalized_histogram, b.normalized_histogram, where);
}

// Checks by name: instances add; the figure kept is the one furthest over
// (or nearest to) its bound, as within a run (checks/case_statistics.cpp).
// The bias check is one test over all samples: it is recomputed.
void combine_checks(std::vector<CheckTally>& into, const std::vector<CheckTally>& from, const AccuracyStats& acc,
                    engine::Profile profile) {
  auto ratio = [](const CheckTally& t) { return *t.figure / t.bound.value_or(1); };
  for (const CheckTally& c : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const CheckTally& t) { return t.name == c.name; });
    if (same == into.end()) {
      into.push_back(c);
      continue;
    }
    same->passed = saturating_add(same->passed, c.passed);
    same->failed = saturating_add(same->failed, c.failed);
    same->differs = saturating_add(same->differs, c.differs);
    same->not_graded = saturating_add(same->not_graded, c.not_graded);
    if (c.figure && (!same->figure || ratio(c) > ratio(*same))) {
      same->metric = c.metric, same->figure = c.figure, same->bound = c.bound;
      same->detail = c.detail;
    }
  }
  for (CheckTally& c : into) {
    if (c.kind != engine::CheckKind::bias) continue;
    c.differs = 0;
    if (acc.bias_samples < checks::kBiasMinSamples) {
      c.passed = 0, c.failed = 0, c.not_graded = 1;
      c.detail = fmt::format("only {} samples in the merged runs, the test needs {}", acc.bias_samples,
                             checks::kBiasMinSamples);
      c.metric.clear(), c.figure.reset(), c.bound.reset();
      continue;
    }
    const BiasSums s = bias_sums(acc);
    const auto stat = checks::bias_statistic(s.n, s.sum, s.sq);
    // (As the run counts it: a reference-profile check in a conformance run differs rather than fails.)
    const bool differs_only = profile == engine::Profile::conformance && c.profile == engine::Profile::reference;
    c.passed = stat.ok ? 1 : 0, c.not_graded = 0;
    (differs_only ? c.differs : c.failed) = stat.ok ? 0 : 1;
    c.detail = stat.detail + " (pooled over the merged runs)";
    c.metric = "|z|", c.figure = stat.z, c.bound = checks::kBiasMaxZ;
  }
}

// Element reports of both runs, each once: an element by its check and
// input bits, any other report by its check and message; each notes the
// run it came from.
std::vector<ElementReport> union_of(const std::vector<ElementReport>& a, std::int64_t a_run,
                                    const std::vector<ElementReport>& b, std::int64_t b_run) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<ElementReport> out;
  for (const auto& [list, run] : {std::pair{&a, a_run}, std::pair{&b, b_run}})
    for (const ElementReport& e : *list) {
      if (!seen.emplace(e.check, e.input_hex.empty() ? e.message : e.input_hex).second) continue;
      out.push_back(e);
      if (out.back().run_index == 0) out.back().run_index = run;
    }
  return out;
}

// The error profile: both runs' slices in input order, regrouped into at
// most 256 slices of equal numbers of slices (maxima of maxima).
void combine_profile(engine::ErrorProfile& into, const engine::ErrorProfile& from) {
  struct Slice {
    double x_lo, x_hi, frac, dist, norm;
    std::int64_t failed;
  };
  std::vector<Slice> all;
  for (const engine::ErrorProfile* p : std::array<const engine::ErrorProfile*, 2>{&into, &from})
    for (std::size_t i = 0; i < p->x_lo.size(); ++i)
      all.push_back({p->x_lo[i], p->x_hi[i], p->max_frac_ulp[i], p->max_distance[i], p->max_normalized[i], p->failed[i]});
  std::stable_sort(all.begin(), all.end(), [](const Slice& x, const Slice& y) { return x.x_lo < y.x_lo; });
  engine::ErrorProfile out;
  const std::size_t n = all.size(), groups = std::min(engine::kProfileSlices, n);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t lo = g * n / groups, hi = (g + 1) * n / groups;
    Slice s = all[lo];
    for (std::size_t i = lo + 1; i < hi; ++i) {
      if (all[i].x_hi > s.x_hi) s.x_hi = all[i].x_hi;
      s.frac = larger_graded(s.frac, all[i].frac), s.dist = larger_graded(s.dist, all[i].dist);
      s.norm = larger_graded(s.norm, all[i].norm);
      s.failed = saturating_add(s.failed, all[i].failed);
    }
    out.x_lo.push_back(s.x_lo), out.x_hi.push_back(s.x_hi), out.max_frac_ulp.push_back(s.frac);
    out.max_distance.push_back(s.dist), out.max_normalized.push_back(s.norm), out.failed.push_back(s.failed);
  }
  into = std::move(out);
}

void combine_coverage(engine::Coverage& into, const engine::Coverage& from) {
  for (auto [m, f] : {std::pair{&into.value_classes, &from.value_classes}, std::pair{&into.shape_classes, &from.shape_classes},
                      std::pair{&into.result_classes, &from.result_classes}})
    for (const auto& [k, v] : *f) (*m)[k] = saturating_add((*m)[k], v);
  into.outputs = saturating_add(into.outputs, from.outputs);
  into.outputs_zero = saturating_add(into.outputs_zero, from.outputs_zero);
  into.outputs_nan = saturating_add(into.outputs_nan, from.outputs_nan);
}

// The findings of the combined result: the accuracy ones summed by the way
// elements failed (from both runs' findings), the others from the combined
// checks; then the headline.
void rewrite_findings(KernelDTypeResult& r, const std::vector<engine::Finding>& a,
                      const std::vector<engine::Finding>& b, const ModelFigures& model) {
  std::vector<engine::Finding> acc;  // by failure, in the order a run lists them
  for (const auto* side : {&a, &b})
    for (const engine::Finding& f : *side) {
      if (f.failure.empty()) continue;
      auto it = std::find_if(acc.begin(), acc.end(), [&](const engine::Finding& g) { return g.failure == f.failure; });
      if (it == acc.end()) {
        acc.push_back(f);
        continue;
      }
      it->count = saturating_add(it->count, f.count);
      it->figure = it->metric == "elements" ? static_cast<double>(it->count) : larger(it->figure, f.figure);
    }
  std::stable_sort(acc.begin(), acc.end(), [](const engine::Finding& x, const engine::Finding& y) {
    return engine::accuracy_finding_rank(x.failure) < engine::accuracy_finding_rank(y.failure);
  });
  r.findings.clear();
  for (engine::Finding& f : acc) {
    f.text = engine::accuracy_finding_text(f.failure, f.count, f.figure, f.bound_text);
    r.findings.push_back(std::move(f));
  }
  for (const CheckTally& c : r.checks)
    if (c.failed > 0 && c.kind != engine::CheckKind::accuracy && c.kind != engine::CheckKind::special)
      r.findings.push_back(engine::check_finding(c));
  if (!r.findings.empty()) {
    r.headline = r.findings.front().text;
    return;
  }
  r.headline = engine::pass_headline({.kind = model.kind, .frac_bound_text = model.frac_bound_text,
                                      .distance_bound = model.distance_bound, .graded = r.accuracy.graded,
                                      .special = r.accuracy.special, .max_frac_ulp = r.accuracy.max_frac_ulp,
                                      .max_distance = r.accuracy.max_distance,
                                      .max_normalized = r.accuracy.max_normalized});
}

int verdict_rank(engine::Verdict v) {  // best to worst
  return v == engine::Verdict::pass ? 0 : v == engine::Verdict::not_graded ? 1 : 2;
}

}  // namespace

void combine(KernelDTypeResult& r, const KernelDTypeResult& b, const CombineContext& c) {
  const std::string& where = c.where;
  const std::vector<engine::Finding> a_findings = r.findings;
  if (verdict_rank(b.verdict) > verdict_rank(r.verdict)) r.verdict = b.verdict;
  r.exhaustive = r.exhaustive || b.exhaustive;
  r.interrupted = r.interrupted || b.interrupted;
  r.cases = saturating_add(r.cases, b.cases);
  r.elements = saturating_add(r.elements, b.elements);
  r.seconds += b.seconds;
  combine_accuracy(r.accuracy, b.accuracy, where);
  combine_checks(r.checks, b.checks, r.accuracy, c.profile);
  // (What differs from the reference is the checks' differences, as a run writes it.)
  r.differs = 0;
  for (const CheckTally& t : r.checks) r.differs = saturating_add(r.differs, t.differs);
  // The runs combined: each side's list, or the one run it is.
  const std::int64_t a_run = r.run_index > 0 ? r.run_index : 1, b_run = b.run_index > 0 ? b.run_index : 1;
  if (r.run_indices.empty()) r.run_indices = {r.run_index};
  if (b.run_indices.empty()) r.run_indices.push_back(b.run_index);
  else r.run_indices.insert(r.run_indices.end(), b.run_indices.begin(), b.run_indices.end());
  r.run_index = 0;
  r.failures = union_of(r.failures, a_run, b.failures, b_run);
  r.differences = union_of(r.differences, a_run, b.differences, b_run);
  r.worst = union_of(r.worst, a_run, b.worst, b_run);
  std::stable_sort(r.worst.begin(), r.worst.end(), [](const ElementReport& x, const ElementReport& y) {
    return engine::worst_key(x) > engine::worst_key(y);
  });
  if (r.worst.size() > engine::kWorstKept) r.worst.resize(engine::kWorstKept);
  combine_coverage(r.coverage, b.coverage);
  combine_profile(r.profile, b.profile);
  // A bias test that, pooled, neither fails nor differs no longer fails
  // the result, nor lists the single runs' reports of it.
  bool any_failed = false;
  for (const CheckTally& t : r.checks) {
    any_failed = any_failed || t.failed > 0;
    if (t.kind != engine::CheckKind::bias) continue;
    if (t.failed == 0) std::erase_if(r.failures, [&](const ElementReport& e) { return e.check == t.name; });
    if (t.differs == 0) std::erase_if(r.differences, [&](const ElementReport& e) { return e.check == t.name; });
  }
  if (!any_failed && r.verdict == engine::Verdict::fail && r.failures.empty())
    r.verdict = r.interrupted ? engine::Verdict::not_graded : engine::Verdict::pass;
  rewrite_findings(r, a_findings, b.findings, c.model);
}

}  // namespace kc::reports
