// Merged statistics of two runs (reports/merge_stats.h).
#include "reports/merge_stats.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "checks/bias.h"
#include "core/error.h"
#include "reports/json_number.h"

namespace kc::reports::merging {

double num(const json& v, double fallback) { return as_double(v).value_or(fallback); }
std::int64_t count(const json& obj, const char* key) {
  const json& v = obj.is_object() && obj.contains(key) ? obj[key] : json();
  return integer_or(v, 0);
}

// The larger of two document numbers; null when both are null.
json larger(const json& a, const json& b) {
  const auto x = as_double(a), y = as_double(b);
  if (!x) return b;
  if (!y) return a;
  if (std::isnan(*x) || std::isnan(*y)) return number(NAN);
  return *y > *x ? b : a;
}

// A mean over `n` items from two means over na and nb items.
json pooled_mean(const json& a, std::int64_t na, const json& b, std::int64_t nb) {
  const auto x = as_double(a), y = as_double(b);
  if (!x) return b;
  if (!y) return a;
  const double n = static_cast<double>(na) + static_cast<double>(nb);  // in double: no overflow
  if (n == 0) return number(*x);
  return number((*x * static_cast<double>(na) + *y * static_cast<double>(nb)) / n);
}

extern const char* const kVerdictOrder[3] = {"pass", "not_graded", "fail"};
int verdict_rank(const json& v) {
  for (int i = 0; i < 3; ++i)
    if (v == kVerdictOrder[i]) return i;
  return 2;
}

void add_counts(json& into, const json& from) {
  if (!from.is_object()) return;
  if (!into.is_object()) into = json::object();
  for (const auto& [k, v] : from.items())
    if (integer(v)) into[k] = saturating_add(count(into, k.c_str()), *integer(v));
}


namespace {

// Histograms of one metric add bin by bin; their edges are fixed per metric.
json merged_histogram(const json& a, const json& b, const std::string& where) {
  if (!a.is_object() || a.empty()) return b;
  if (!b.is_object() || b.empty()) return a;
  if (field(a, "edges") != field(b, "edges") || field(a, "metric") != field(b, "metric"))
    throw UsageError(fmt::format("{}: the runs' {} histograms have different bins; they cannot be merged", where,
                                 field(a, "metric").is_string() ? field(a, "metric").get<std::string>() : "error"));
  json h = a;
  for (const char* part : {"counts", "failing"}) {
    if (!a.contains(part) || !b.contains(part)) continue;
    for (std::size_t i = 0; i < h[part].size() && i < b[part].size(); ++i)
      h[part][i] = saturating_add(integer_or(h[part][i], 0), integer_or(b[part][i], 0));
  }
  return h;
}

// The bias statistic over the pooled samples: each run's sum and sum of
// squares follow from its count, mean and standard error (checks/bias.cpp:
// se^2 = (sq/n - mean^2) / n).
struct BiasSums {
  std::int64_t n = 0;
  double sum = 0, sq = 0;
};
BiasSums bias_sums(const json& acc) {
  BiasSums s;
  s.n = count(acc, "bias_samples");
  const auto mean = as_double(field(acc, "bias_mean")), se = as_double(field(acc, "bias_stderr"));
  if (s.n == 0 || !mean || !se) return {};
  const double n = static_cast<double>(s.n);
  s.sum = *mean * n;
  s.sq = n * (*se * *se * n + *mean * *mean);
  return s;
}

}  // namespace

json merged_accuracy(const json& a, const json& b, const std::string& where) {
  json m = a;
  const std::int64_t ga = count(a, "graded"), gb = count(b, "graded");
  for (const char* k : {"graded", "special", "replayed", "oracle_escalations", "not_correctly_rounded"})
    m[k] = saturating_add(count(a, k), count(b, k));
  for (const char* k : {"max_frac_ulp", "max_distance", "max_normalized", "max_absolute", "max_relative"})
    m[k] = larger(field(a, k), field(b, k));
  // The element at a maximum: the first run's unless the second's maximum is larger.
  for (const auto& [at, k] : {std::pair{"at_max_distance", "max_distance"}, std::pair{"at_max_relative", "max_relative"}}) {
    const bool second = field(a, at).is_null() || (!field(b, at).is_null() && num(field(b, k), 0) > num(field(a, k), 0));
    m[at] = second ? field(b, at) : field(a, at);
  }
  m["mean_frac_ulp"] = pooled_mean(field(a, "mean_frac_ulp"), ga, field(b, "mean_frac_ulp"), gb);
  m["correctly_rounded_share"] =
      pooled_mean(field(a, "correctly_rounded_share"), ga, field(b, "correctly_rounded_share"), gb);
  // Normalized errors are counted by their histogram (every graded
  // element of a condition-aware model has one).
  auto n_norm = [](const json& acc) {
    std::int64_t n = 0;
    for (const auto& c : field(field(acc, "normalized_histogram"), "counts")) n = saturating_add(n, integer_or(c, 0));
    return n;
  };
  m["mean_normalized"] = pooled_mean(field(a, "mean_normalized"), n_norm(a), field(b, "mean_normalized"), n_norm(b));
  // In each run at least 99% of the errors are at most its p99, so at least
  // 99% of the pooled ones are at most the larger: an upper bound, marked so.
  m["p99_frac_ulp"] = larger(field(a, "p99_frac_ulp"), field(b, "p99_frac_ulp"));
  m["p99_is_upper_bound"] = true;
  const BiasSums x = bias_sums(a), y = bias_sums(b);
  const std::int64_t n = saturating_add(x.n, y.n);
  m["bias_samples"] = n;
  if (n > 0) {
    const auto s = checks::bias_statistic(n, x.sum + y.sum, x.sq + y.sq);
    m["bias_mean"] = number(s.mean);
    m["bias_stderr"] = number(s.standard_error);
  }
  for (const char* k : {"histogram", "distance_histogram", "normalized_histogram"})
    m[k] = merged_histogram(field(a, k), field(b, k), where);
  return m;
}

// Checks by name: instances add; the figure kept is the one furthest over
// (or nearest to) its bound, as within a run (checks/case_statistics.cpp).
// The bias check is one test over all samples: it is recomputed.
json merged_checks(const json& a, const json& b, const json& acc) {
  json out = a.is_array() ? a : json::array();
  for (const auto& c : b.is_array() ? b : json::array()) {
    json* into = nullptr;
    for (auto& o : out)
      if (field(o, "name") == field(c, "name")) into = &o;
    if (!into) {
      out.push_back(c);
      continue;
    }
    for (const char* k : {"passed", "failed", "not_graded"}) (*into)[k] = saturating_add(count(*into, k), count(c, k));
    const json &fa = field(*into, "figure"), &fb = field(c, "figure");
    auto ratio = [](const json& f) { return num(field(f, "value")) / num(field(f, "bound"), 1); };
    if (fb.is_object() && (!fa.is_object() || ratio(fb) > ratio(fa))) {
      (*into)["figure"] = fb;
      (*into)["detail"] = field(c, "detail");
    }
  }
  const std::int64_t n = count(acc, "bias_samples");
  for (auto& c : out) {
    if (field(c, "kind") != "bias") continue;
    if (n < checks::kBiasMinSamples) {
      c["passed"] = 0, c["failed"] = 0, c["not_graded"] = 1;
      c["detail"] = fmt::format("only {} samples in the merged runs, the test needs {}", n, checks::kBiasMinSamples);
      c.erase("figure");
      continue;
    }
    const BiasSums s = bias_sums(acc);
    const auto stat = checks::bias_statistic(s.n, s.sum, s.sq);
    c["passed"] = stat.ok ? 1 : 0, c["failed"] = stat.ok ? 0 : 1, c["not_graded"] = 0;
    c["detail"] = stat.detail + " (pooled over the merged runs)";
    c["figure"] = {{"metric", "|z|"}, {"value", number(stat.z)}, {"bound", number(checks::kBiasMaxZ)}};
  }
  return out;
}


}  // namespace kc::reports::merging
