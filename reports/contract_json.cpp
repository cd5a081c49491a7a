// Contract -> JSON: the same data the checks run on, printed.
#include <fmt/format.h>

#include "drivers/driver.h"
#include "reports/results_json.h"

namespace kc::reports {

using nlohmann::json;

namespace {

// What a call must meet, and the valid calls a correct implementation may reject.
void rules_json(const contract::KernelSpec& k, json& j) {
  j["preconditions"] = json::array();
  for (const auto& pc : k.preconditions) {
    j["preconditions"].push_back({{"rule", rule_name(pc.rule)}, {"operand", pc.operand}, {"text", pc.text}});
    if (pc.reference_limit) j["preconditions"].back()["reference_limit"] = true;
    if (pc.ungraded_result) j["preconditions"].back()["result_not_graded"] = true;
  }
  if (k.allowed_rejections.empty()) return;
  j["allowed_rejections"] = json::array();
  for (const auto& a : k.allowed_rejections)
    j["allowed_rejections"].push_back({{"rule", rule_name(a.rule)}, {"operand", a.operand}, {"why", a.why}});
}

}  // namespace

json contract_json(const contract::KernelSpec& k, const Backend* backend) {
  json j;
  j["name"] = k.name;
  j["family"] = k.family;
  j["driver"] = k.driver;
  j["summary"] = k.summary;
  j["source"] = k.source;
  j["inputs"] = json::array();
  for (const auto& op : k.inputs)
    j["inputs"].push_back({{"name", op.name}, {"dtypes", op.dtypes.to_string()}, {"min_rank", op.min_rank},
                           {"max_rank", op.max_rank}});
  j["params"] = json::array();
  for (const auto& p : k.params) {
    json pj{{"name", p.name}, {"kind", contract::param_kind_name(p.kind)}, {"domain", p.domain}};
    if (p.kind == contract::ParamKind::integer) pj["range"] = {p.min, p.max};
    j["params"].push_back(pj);
  }
  const drivers::Driver* d = drivers::find(k.driver);
  j["output"] = d ? d->output_rule(k) : "(unknown driver)";
  j["layout"] = contract::layout_text(k.layout);
  rules_json(k, j);
  j["accuracy"] = json::array();
  for (const auto& a : k.accuracy) {
    const auto& m = a.accuracy;
    json aj{{"dtype", dtype_name(a.dtype)},
            {"kind", contract::accuracy_kind_name(m.kind)},
            {"bound", contract::bound_summary(m)},
            {"max_frac_ulp", number(m.max_frac_ulp)},
            {"max_distance", m.max_distance < 0 ? nlohmann::json(nullptr) : nlohmann::json(m.max_distance)},
            {"derivation", m.derivation},
            {"check_bias", m.check_bias},
            {"check_case_statistics", m.check_case_statistics}};
    if (m.kind == contract::AccuracyKind::condition_aware) {
      aj["magnitude_coeff"] = m.magnitude_coeff;
      aj["work_dtype"] = dtype_name(m.work);
    }
    if (m.param_bound) aj["bound_depends_on"] = m.bound_param;
    j["accuracy"].push_back(aj);
  }
  j["zero_sign_checked"] = k.zero_sign_checked;
  j["specials"] = json::array();
  for (const auto& s : k.specials) {
    // also: the answers the conformance profile accepts besides the reference's.
    json also = json::array();
    for (const auto o : s.also) also.push_back(contract::outcome_name(o));
    j["specials"].push_back(
        {{"input", contract::value_class_name(s.input)}, {"output", contract::outcome_name(s.output)}, {"also", also}});
  }
  j["properties"] = json::array();
  for (const auto& p : k.properties)
    j["properties"].push_back({{"name", p.name},
                               {"kind", p.check},
                               {"dtypes", p.dtypes.empty() ? k.dtypes().to_string() : p.dtypes.to_string()}});
  json g{{"ordinary_range", {k.values.lo, k.values.hi}}, {"ties", k.values.ties}, {"integers", k.values.integers}};
  g["thresholds"] = json::object();
  g["result_classes"] = json::object();
  for (const auto& a : k.accuracy) {
    json rc = json::array();
    for (contract::ResultClass c : contract::kResultClasses)
      if (k.reachable_results(a.dtype).contains(c)) rc.push_back(contract::result_class_name(c));
    g["result_classes"][std::string(dtype_name(a.dtype))] = rc;
    json pts = json::array();
    if (k.values.points)
      for (double v : k.values.points(a.dtype)) pts.push_back(number(v));
    g["thresholds"][std::string(dtype_name(a.dtype))] = pts;
  }
  j["generator"] = g;
  j["oracle"] = k.oracle_text;
  j["notes"] = k.notes;
  if (backend)
    if (const auto dt = backend->supported(k.name)) j["backend_dtypes"] = dt->to_string();
  return j;
}

}  // namespace kc::reports
