// The algebra of results (engine/combine.h).
#include "engine/combine.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"
#include "core/saturating.h"
#include "engine/conformance.h"
#include "engine/error_profile.h"
#include "engine/findings.h"
#include "engine/worst.h"

namespace kc::engine {

namespace {

// The larger error; NaN where either is (a NaN maximum stays NaN).
double larger(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : b > a ? b : a; }
std::optional<double> larger(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a) return b;
  if (!b) return a;
  return larger(*a, *b);
}

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

void add(std::optional<Histogram>& into, const std::optional<Histogram>& from, const std::string& where) {
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
  // (beats without a place: the element met first keeps a tie.)
  if (!a.at_max_distance || (b.at_max_distance && beats(b.max_distance, a.max_distance, {}, *a.at_max_distance)))
    m.at_max_distance = b.at_max_distance;
  if (!a.at_max_relative || (b.at_max_relative && beats(b.max_relative, a.max_relative, {}, *a.at_max_relative)))
    m.at_max_relative = b.at_max_relative;
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
    const MeanAndError s = mean_and_error(m.bias_samples, x.sum + y.sum, x.sq + y.sq);
    m.bias_mean = s.mean;
    m.bias_stderr = s.standard_error;
  }
  add(m.histogram, b.histogram, where);
  add(m.distance_histogram, b.distance_histogram, where);
  add(m.normalized_histogram, b.normalized_histogram, where);
}

// Checks by name: instances add; the figure kept is the one furthest over
// (or nearest to) its bound, as within a run. A check that is one test
// over all the samples is judged again over the pooled ones by its rule;
// returns the tallies so judged.
std::set<std::string> combine_checks(std::vector<CheckTally>& into, const std::vector<CheckTally>& from,
                                     const AccuracyStats& acc, const CombineContext& c) {
  for (const CheckTally& t : from) {
    auto same = std::find_if(into.begin(), into.end(), [&](const CheckTally& u) { return u.name == t.name; });
    if (same == into.end()) {
      into.push_back(t);
      continue;
    }
    same->passed = saturating_add(same->passed, t.passed);
    same->failed = saturating_add(same->failed, t.failed);
    same->differs = saturating_add(same->differs, t.differs);
    same->not_graded = saturating_add(same->not_graded, t.not_graded);
    if (t.figure && same->further_over(*t.figure, t.bound)) {
      same->metric = t.metric, same->figure = t.figure, same->bound = t.bound;
      same->detail = t.detail;
    }
  }
  std::set<std::string> pooled;
  for (CheckTally& t : into)
    if (c.pool && c.pool(t, acc, c.profile)) pooled.insert(t.name);
  return pooled;
}

// Element reports of both runs, each once: an element by its check and
// input bits, any other report by its check and message; each notes the
// run it came from.
// The reports of both runs, each once, at most `cap` per check (the first
// met: a's, then b's), as a run caps them; the tallies keep the full
// counts. Uncapped, a campaign's merge of 4,740 batches grew its unions
// with every batch and took over 12 minutes (every step reads and writes
// the union).
std::vector<ElementReport> union_of(const std::vector<ElementReport>& a, std::int64_t a_run,
                                    const std::vector<ElementReport>& b, std::int64_t b_run,
                                    std::size_t cap = RunOptions{}.max_failures_per_check) {
  std::set<std::pair<std::string, std::string>> seen;
  std::map<std::string, std::size_t> per_check;
  std::vector<ElementReport> out;
  for (const auto& [list, run] : {std::pair{&a, a_run}, std::pair{&b, b_run}})
    for (const ElementReport& e : *list) {
      if (per_check[e.check] >= cap) continue;
      if (!seen.emplace(e.check, e.input_hex.empty() ? e.message : e.input_hex).second) continue;
      ++per_check[e.check];
      out.push_back(e);
      if (out.back().run_index == 0) out.back().run_index = run;
    }
  return out;
}

// The error profile: both runs' slices in input order, grouped as a run
// groups its streamed slices.
void combine_profile(ErrorProfile& into, const ErrorProfile& from) {
  std::vector<ProfileSlice> all = slices_of(into), more = slices_of(from);
  all.insert(all.end(), more.begin(), more.end());
  std::stable_sort(all.begin(), all.end(), [](const ProfileSlice& x, const ProfileSlice& y) {
    return input_order(x.x_lo) < input_order(y.x_lo);
  });
  into = grouped(all);
}

void combine_coverage(Coverage& into, const Coverage& from) {
  for (auto [m, f] : {std::pair{&into.value_classes, &from.value_classes}, std::pair{&into.shape_classes, &from.shape_classes},
                      std::pair{&into.result_classes, &from.result_classes}})
    for (const auto& [k, v] : *f) (*m)[k] = saturating_add((*m)[k], v);
  into.outputs = saturating_add(into.outputs, from.outputs);
  into.outputs_zero = saturating_add(into.outputs_zero, from.outputs_zero);
  into.outputs_nan = saturating_add(into.outputs_nan, from.outputs_nan);
}

// Two results' shapes: the counts summed, the larger largest case, every
// failing problem line once.
void combine_shapes(ShapeReport& into, const ShapeReport& from) {
  if (into.profile != from.profile) into.profile = into.profile.empty() ? from.profile : into.profile + "+" + from.profile;
  for (auto [m, f] : {std::pair{&into.tail_cases, &from.tail_cases}, std::pair{&into.problem_cases, &from.problem_cases},
                      std::pair{&into.sampled_cases, &from.sampled_cases}, std::pair{&into.sampled_of, &from.sampled_of},
                      std::pair{&into.sampled_graded, &from.sampled_graded}, std::pair{&into.sample_edges, &from.sample_edges},
                      std::pair{&into.sample_boundaries, &from.sample_boundaries},
                      std::pair{&into.sample_random, &from.sample_random}, std::pair{&into.finite_held, &from.finite_held}})
    *m = saturating_add(*m, *f);
  if (from.sample_draws > 0) into.sample_draws = into.sample_draws == 0 ? from.sample_draws : std::min(into.sample_draws, from.sample_draws);
  if (from.largest_elements > into.largest_elements) {
    into.largest = from.largest;
    into.largest_elements = from.largest_elements;
    into.peak_bytes = from.peak_bytes;
  }
  into.lines.insert(into.lines.end(), from.lines.begin(), from.lines.end());
  for (const auto& p : from.failed_problems)
    if (std::find(into.failed_problems.begin(), into.failed_problems.end(), p) == into.failed_problems.end())
      into.failed_problems.push_back(p);
}

// The findings of the combined result: the accuracy ones summed by the way
// elements failed (from both runs' findings), the others from the combined
// checks; then the headline.
void rewrite_findings(KernelDTypeResult& r, const std::vector<Finding>& a,
                      const std::vector<Finding>& b, const ModelFigures& model) {
  std::vector<Finding> acc;  // by failure, in the order a run lists them
  for (const auto* side : {&a, &b})
    for (const Finding& f : *side) {
      if (f.failure.empty()) continue;
      auto it = std::find_if(acc.begin(), acc.end(), [&](const Finding& g) { return g.failure == f.failure; });
      if (it == acc.end()) {
        acc.push_back(f);
        continue;
      }
      it->count = saturating_add(it->count, f.count);
      it->figure = it->metric == "elements" ? static_cast<double>(it->count) : larger(it->figure, f.figure);
    }
  std::stable_sort(acc.begin(), acc.end(), [](const Finding& x, const Finding& y) {
    return accuracy_finding_rank(x.failure) < accuracy_finding_rank(y.failure);
  });
  r.findings.clear();
  for (Finding& f : acc) {
    f.text = accuracy_finding_text(f.failure, f.count, f.figure, f.bound_text);
    r.findings.push_back(std::move(f));
  }
  for (const CheckTally& c : r.checks)
    if (c.failed > 0 && c.kind != CheckKind::accuracy && c.kind != CheckKind::special)
      r.findings.push_back(check_finding(c));
  if (!r.findings.empty()) {
    r.headline = r.findings.front().text;
    return;
  }
  r.headline = pass_headline({.kind = model.kind, .frac_bound_text = model.frac_bound_text,
                                      .distance_bound = model.distance_bound, .graded = r.accuracy.graded,
                                      .special = r.accuracy.special, .max_frac_ulp = r.accuracy.max_frac_ulp,
                                      .max_distance = r.accuracy.max_distance,
                                      .max_normalized = r.accuracy.max_normalized});
}

int verdict_rank(Verdict v) {  // best to worst
  return v == Verdict::pass ? 0 : v == Verdict::not_graded ? 1 : 2;
}

}  // namespace

void combine(KernelDTypeResult& r, const KernelDTypeResult& b, const CombineContext& c) {
  const std::string& where = c.where;
  const std::vector<Finding> a_findings = r.findings;
  if (verdict_rank(b.verdict) > verdict_rank(r.verdict)) r.verdict = b.verdict;
  r.exhaustive = r.exhaustive || b.exhaustive;
  r.interrupted = r.interrupted || b.interrupted;
  r.cases = saturating_add(r.cases, b.cases);
  r.elements = saturating_add(r.elements, b.elements);
  r.seconds += b.seconds;
  combine_accuracy(r.accuracy, b.accuracy, where);
  const std::set<std::string> pooled = combine_checks(r.checks, b.checks, r.accuracy, c);
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
  std::vector<ElementReport> worst;  // (ranked as the run ranks them; no place: the first met keeps a tie)
  for (const ElementReport& e : union_of(r.worst, a_run, b.worst, b_run, SIZE_MAX)) keep_worst(worst, e, std::nullopt);
  r.worst = std::move(worst);
  combine_coverage(r.coverage, b.coverage);
  combine_shapes(r.shapes, b.shapes);
  combine_profile(r.profile, b.profile);
  // A test judged again over the pooled samples that neither fails nor
  // differs no longer fails the result, nor lists the single runs' reports of it.
  bool any_failed = false;
  for (const CheckTally& t : r.checks) {
    any_failed = any_failed || t.failed > 0;
    if (!pooled.contains(t.name)) continue;
    if (t.failed == 0) std::erase_if(r.failures, [&](const ElementReport& e) { return e.check == t.name; });
    if (t.differs == 0) std::erase_if(r.differences, [&](const ElementReport& e) { return e.check == t.name; });
  }
  // And one that fails only pooled fails the result, which both runs passed.
  if (any_failed) r.verdict = Verdict::fail;
  else if (r.verdict == Verdict::fail && r.failures.empty()) r.verdict = r.interrupted ? Verdict::not_graded : Verdict::pass;
  rewrite_findings(r, a_findings, b.findings, c.model);
}

MeanAndError mean_and_error(std::int64_t n, double sum, double sum_squares) {
  const double count = static_cast<double>(n), mean = sum / count;
  return {mean, std::sqrt(std::max(0.0, sum_squares / count - mean * mean) / count)};
}

BiasSums bias_sums(const AccuracyStats& a) {
  if (a.bias_samples == 0 || !a.bias_mean || !a.bias_stderr) return {};
  const double n = static_cast<double>(a.bias_samples), mean = *a.bias_mean, se = *a.bias_stderr;
  return {a.bias_samples, mean * n, n * (se * se * n + mean * mean)};
}

void add(Histogram& into, const Histogram& from, const std::string& where) {
  if (into.edges != from.edges || into.metric != from.metric)
    throw UsageError(fmt::format("{}: the runs' {} histograms have different bins; they cannot be merged", where,
                                 into.metric.empty() ? "error" : into.metric));
  for (std::size_t i = 0; i < into.counts.size() && i < from.counts.size(); ++i)
    into.counts[i] = saturating_add(into.counts[i], from.counts[i]);
  for (std::size_t i = 0; i < into.failing.size() && i < from.failing.size(); ++i)
    into.failing[i] = saturating_add(into.failing[i], from.failing[i]);
}

}  // namespace kc::engine
