#include "reports/json_number.h"

#include <cmath>
#include <limits>

namespace kc::reports {

nlohmann::json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::optional<double> as_double(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  }
  return std::nullopt;
}

const nlohmann::json& field(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json null;
  return obj.is_object() && obj.contains(key) ? obj[key] : null;
}

const nlohmann::json& contract_accuracy(const nlohmann::json& kernel, const std::string& dtype) {
  static const nlohmann::json none = nlohmann::json::object();
  if (!kernel.contains("contract") || !kernel["contract"].is_object()) return none;
  const auto& c = kernel["contract"];
  if (!c.contains("accuracy") || !c["accuracy"].is_array()) return none;
  for (const auto& a : c["accuracy"])
    if (a.is_object() && a.value("dtype", "") == dtype) return a;
  return none;
}

std::optional<std::int64_t> integer(const nlohmann::json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  return std::nullopt;
}

}  // namespace kc::reports
