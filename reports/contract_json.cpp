// Contract -> JSON: the same data the checks run on, printed.
#include <fmt/format.h>

#include "backends/reference/executor.h"
#include "reports/results_json.h"

namespace kc::reports {

using nlohmann::json;

json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

namespace {
std::string_view property_kind_name(contract::PropertyKind k) {
  switch (k) {
    case contract::PropertyKind::pointwise: return "pointwise";
    case contract::PropertyKind::monotone: return "monotone";
    case contract::PropertyKind::odd: return "odd";
    case contract::PropertyKind::even: return "even";
  }
  return "?";
}
}  // namespace

json contract_json(const contract::KernelSpec& k) {
  json j;
  j["name"] = k.name;
  j["family"] = contract::family_name(k.family);
  j["summary"] = k.summary;
  j["source"] = k.source;
  j["inputs"] = json::array();
  for (const auto& op : k.inputs)
    j["inputs"].push_back({{"name", op.name}, {"dtypes", op.dtypes.to_string()}, {"min_rank", op.min_rank},
                           {"max_rank", op.max_rank}});
  j["params"] = json::array();
  for (const auto& p : k.params) {
    json pj{{"name", p.name}, {"kind", p.kind == contract::ParamKind::integer ? "integer" : "real"}, {"domain", p.domain}};
    if (p.kind == contract::ParamKind::integer) pj["range"] = {p.min, p.max};
    j["params"].push_back(pj);
  }
  j["output"] = contract::output_rule_text(k.output);
  j["layout"] = contract::layout_text(k.layout);
  j["preconditions"] = json::array();
  for (const auto& pc : k.preconditions)
    j["preconditions"].push_back({{"rule", pc.rule}, {"operand", pc.operand}, {"text", pc.text}});
  j["accuracy"] = json::array();
  for (const auto& a : k.accuracy) {
    const auto& m = a.accuracy;
    json aj{{"dtype", dtype_name(a.dtype)},
            {"kind", contract::accuracy_kind_name(m.kind)},
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
  for (const auto& s : k.specials)
    j["specials"].push_back({{"input", contract::value_class_name(s.input)}, {"output", contract::outcome_name(s.output)}});
  j["properties"] = json::array();
  for (const auto& p : k.properties)
    j["properties"].push_back({{"name", p.name},
                               {"kind", property_kind_name(p.kind)},
                               {"dtypes", p.dtypes.empty() ? k.dtypes().to_string() : p.dtypes.to_string()}});
  json g{{"ordinary_range", {k.values.lo, k.values.hi}}, {"ties", k.values.ties}, {"integers", k.values.integers}};
  g["thresholds"] = json::object();
  for (const auto& a : k.accuracy) {
    json pts = json::array();
    if (k.values.points)
      for (double v : k.values.points(a.dtype)) pts.push_back(number(v));
    g["thresholds"][std::string(dtype_name(a.dtype))] = pts;
  }
  j["generator"] = g;
  j["oracle"] = k.oracle_text;
  j["notes"] = k.notes;
  if (const ref::ExecArm* arm = ref::find_arm(k.name)) j["reference_exec_dtypes"] = arm->dtypes.to_string();
  return j;
}

}  // namespace kc::reports
