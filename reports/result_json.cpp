// One result -> its JSON form (docs/results-schema.md), the part of the
// results document that a merge writes again (reports/merge.h), apart from
// the run's metadata (reports/results_json.cpp, which needs the build's).
#include <cmath>

#include <fmt/format.h>

#include "reports/results_json.h"

namespace kc::reports {

using nlohmann::json;

namespace {

json element_json(const engine::ElementReport& e) {
  json j{{"check", e.check},
         {"case", e.case_index},
         {"element", e.element},
         {"shape", e.dims},
         {"params", e.params},
         {"input", number(e.input)},
         {"input_hex", e.input_hex},
         {"result", number(e.result)},
         {"result_hex", e.result_hex},
         {"exact", e.exact},
         {"correctly_rounded", number(e.correctly_rounded)},
         {"correctly_rounded_hex", e.correctly_rounded_hex},
         {"frac_ulp", number(e.frac_ulp)},
         {"distance", e.distance},
         {"bound", number(e.bound)},
         {"repro", e.repro},
         {"message", e.message}};
  j["normalized"] = e.normalized ? number(*e.normalized) : json(nullptr);
  if (e.shrunk_elements >= 0) j["shrunk_elements"] = e.shrunk_elements;
  if (e.run_index > 0) j["run_index"] = e.run_index;
  return j;
}

json histogram_json(const engine::Histogram& h) {
  json edges = json::array();
  for (double e : h.edges) edges.push_back(number(e));
  return {{"metric", h.metric}, {"edges", edges}, {"counts", h.counts}, {"failing", h.failing}};
}

json nan_as_null(double v) { return std::isnan(v) ? json(nullptr) : number(v); }

json opt(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }

// The accuracy summary of a result: its statistics, worst elements and histograms.
// The tier and the figures of the bound it graded, in the contract's
// accuracy format (kind, max_frac_ulp, max_distance, bound_depends_on).
// The shapes graded (engine::ShapeReport) and what the samples guarantee:
// the probability that the random stratum of a sampled output misses a
// defect touching a fraction f of its elements, (1 - f)^R.
json shapes_json(const engine::ShapeReport& s) {
  json out{{"profile", s.profile},
           {"tail_cases", s.tail_cases},
           {"problem_cases", s.problem_cases},
           {"largest", s.largest},
           {"largest_elements", s.largest_elements},
           {"peak_bytes", s.peak_bytes},
           {"sampled_cases", s.sampled_cases},
           {"failed_problems", s.failed_problems}};
  if (s.sampled_cases > 0)
    out["sample"] = {{"elements_of_sampled_outputs", s.sampled_of},
                     {"graded_exactly", s.sampled_graded},
                     {"fraction", number(static_cast<double>(s.sampled_graded) / static_cast<double>(s.sampled_of))},
                     {"edges", s.sample_edges},
                     {"boundaries", s.sample_boundaries},
                     {"random", s.sample_random},
                     {"random_draws_per_output", s.sample_draws},
                     {"miss_probability_f_1e-2", number(engine::miss_probability(s.sample_draws, 1e-2))},
                     {"miss_probability_f_1e-3", number(engine::miss_probability(s.sample_draws, 1e-3))}};
  if (s.finite_held > 0) out["held_finite"] = s.finite_held;
  if (!s.lines.empty()) {
    json lines = json::array();
    for (const auto& l : s.lines)
      lines.push_back({{"line", l.origin},
                       {"case", l.case_id},
                       {"graded_exactly", l.graded},
                       {"failed", l.failed},
                       {"worst_accuracy_failure", l.worst > 0 ? number(l.worst) : json(nullptr)},
                       {"worst_metric", l.worst_normalized ? "normalized error" : "fractional ulp"}});
    out["problem_lines"] = std::move(lines);
  }
  return out;
}

json tier_json(const engine::TierResult& t) {
  json j{{"name", t.name}, {"bound", t.bound}, {"covered", t.covered}};
  if (t.kind.empty()) return j;
  j["kind"] = t.kind;
  j["max_frac_ulp"] = number(t.max_frac_ulp);
  j["max_distance"] = t.max_distance < 0 ? json(nullptr) : json(t.max_distance);
  if (!t.bound_param.empty()) j["bound_depends_on"] = t.bound_param;
  return j;
}

json accuracy_json(const engine::AccuracyStats& a) {
  json acc{{"graded", a.graded},
           {"special", a.special},
           {"replayed", a.replayed},
           {"oracle_escalations", a.oracle_escalations},
           {"max_frac_ulp", number(a.max_frac_ulp)},
           {"mean_frac_ulp", number(a.mean_frac_ulp)},
           {"p99_frac_ulp", number(a.p99_frac_ulp)},
           {"max_distance", a.max_distance},
           {"max_absolute", number(a.max_absolute)},
           {"max_relative", number(a.max_relative)},
           {"at_max_distance", a.at_max_distance ? element_json(*a.at_max_distance) : json(nullptr)},
           {"at_max_relative", a.at_max_relative ? element_json(*a.at_max_relative) : json(nullptr)},
           {"correctly_rounded_share", number(a.correctly_rounded_share)},
           {"not_correctly_rounded", a.not_correctly_rounded},
           {"max_normalized", opt(a.max_normalized)},
           {"mean_normalized", opt(a.mean_normalized)},
           {"bias_mean", opt(a.bias_mean)},
           {"bias_stderr", opt(a.bias_stderr)},
           {"bias_samples", a.bias_samples}};
  if (a.p99_is_upper_bound) acc["p99_is_upper_bound"] = true;
  acc["histogram"] = histogram_json(a.histogram);
  acc["distance_histogram"] = a.distance_histogram ? histogram_json(*a.distance_histogram) : json(nullptr);
  acc["normalized_histogram"] = a.normalized_histogram ? histogram_json(*a.normalized_histogram) : json(nullptr);
  return acc;
}

// One entry per check of the result, with its figure against its bound where it has one.
json checks_json(const engine::KernelDTypeResult& r) {
  json checks = json::array();
  for (const auto& c : r.checks) {
    json cj{{"name", c.name},     {"kind", engine::kCheckKinds.name(c.kind)}, {"profile", engine::kProfiles.name(c.profile)},       {"passed", c.passed},
            {"failed", c.failed}, {"differs", c.differs}, {"not_graded", c.not_graded}, {"detail", c.detail}};
    if (c.figure) cj["figure"] = {{"metric", c.metric}, {"value", number(*c.figure)}, {"bound", opt(c.bound)}};
    checks.push_back(cj);
  }
  return checks;
}

// What decides a result: its findings, as the result orders them (a failure's leading one first).
json findings_json(const engine::KernelDTypeResult& r) {
  json findings = json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"check", f.check}, {"kind", engine::kCheckKinds.name(f.kind)}, {"metric", f.metric}, {"figure", number(f.figure)},
                        {"bound", number(f.bound)}, {"count", f.count}, {"text", f.text},
                        {"failure", f.failure}, {"bound_text", f.bound_text}});
  return findings;
}

// The error profile as parallel arrays per slice (a slice that graded nothing: null).
json error_profile_json(const engine::ErrorProfile& p) {
  json prof{{"x_lo", json::array()}, {"x_hi", json::array()}, {"max_frac_ulp", json::array()},
            {"max_distance", json::array()}, {"max_normalized", json::array()}, {"failed", p.failed}};
  for (std::size_t i = 0; i < p.max_frac_ulp.size(); ++i) {
    prof["x_lo"].push_back(number(p.x_lo[i]));
    prof["x_hi"].push_back(number(p.x_hi[i]));
    prof["max_frac_ulp"].push_back(nan_as_null(p.max_frac_ulp[i]));
    prof["max_distance"].push_back(nan_as_null(p.max_distance[i]));
    prof["max_normalized"].push_back(nan_as_null(p.max_normalized[i]));
  }
  return prof;
}

}  // namespace

json result_json(const engine::KernelDTypeResult& r) {
  const json acc = accuracy_json(r.accuracy);
  const json checks = checks_json(r);
  const json findings = findings_json(r);
  json worst = json::array(), failures = json::array(), differences = json::array();
  for (const auto& w : r.worst) worst.push_back(element_json(w));
  for (const auto& f : r.failures) failures.push_back(element_json(f));
  for (const auto& d : r.differences) differences.push_back(element_json(d));
  const json prof = error_profile_json(r.profile);
  json out{{"dtype", dtype_name(r.dtype)},
          {"verdict", engine::verdict_name(r.verdict)},
          {"headline", r.headline},
          {"findings", findings},
          {"exhaustive", r.exhaustive},
          {"interrupted", r.interrupted},
          {"cases", r.cases},
          {"elements", r.elements},
          {"inputs_digest", fmt::format("{:016x}", r.inputs_digest)},
          {"accuracy", acc},
          {"worst", worst},
          {"checks", checks},
          {"failures", failures},
          {"differs_from_reference", r.differs},
          {"declared",
           {{"claim_metric", r.declared.metric},
            {"claimed", r.declared.metric.empty() ? json(nullptr) : number(r.declared.claimed)},
            {"contract_bound", opt(r.declared.contract_bound)},
            {"measured", r.declared.metric.empty() ? json(nullptr) : number(r.declared.measured)},
            {"claim_verdict", engine::claim_verdict_name(r.declared.verdict)},
            {"expected_failure", r.declared.expected_failure},
            {"expected_outcome", r.declared.expected_outcome}}},
          {"accuracy_tier", tier_json(r.tier)},
          {"differences", differences},
          {"coverage",
           {{"value_classes", r.coverage.value_classes},
            {"shape_classes", r.coverage.shape_classes},
            {"result_classes", r.coverage.result_classes},
            {"outputs", r.coverage.outputs},
            {"outputs_zero", r.coverage.outputs_zero},
            {"outputs_nan", r.coverage.outputs_nan}}},
          {"error_profile", prof},
          {"shapes", shapes_json(r.shapes)},
          {"seconds", r.seconds}};
  if (!r.printed.empty()) {  // (a plug-in's kernels only: the reference prints nothing)
    json printed = json::array();
    for (const auto& p : r.printed) printed.push_back({{"case", p.case_index}, {"bytes", p.bytes}, {"text", p.text}});
    out["printed"] = printed;
  }
  if (r.run_index > 0) out["run_index"] = r.run_index;
  if (!r.run_indices.empty()) out["run_indices"] = r.run_indices;
  return out;
}

}  // namespace kc::reports
