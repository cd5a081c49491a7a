#include "reports/json_number.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

namespace kc::reports {

namespace {

// The in-memory mark of a non-finite figure: a string no text field holds
// (the exact value's decimal text "NaN" or "inf" stays text).
constexpr std::string_view kMark = "\x01nonfinite:";

std::optional<std::string_view> marked(const nlohmann::json& v) {
  if (!v.is_string()) return std::nullopt;
  const auto& s = v.get_ref<const std::string&>();
  if (!s.starts_with(kMark)) return std::nullopt;
  return std::string_view(s).substr(kMark.size());
}

nlohmann::json mark(std::string_view what) { return std::string(kMark) + std::string(what); }

std::optional<double> nonfinite_value(std::string_view s) {
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

}  // namespace

nlohmann::json number(double v) {
  if (std::isnan(v)) return mark("NaN");
  if (std::isinf(v)) return mark(v > 0 ? "inf" : "-inf");
  return v;
}

std::optional<double> as_double(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (const auto m = marked(v)) return nonfinite_value(*m);
  if (v.is_string()) return nonfinite_value(v.get_ref<const std::string&>());  // (a document before the flags)
  return std::nullopt;
}

void encode_nonfinite(nlohmann::json& doc) {
  if (doc.is_array()) {
    for (auto& e : doc) encode_nonfinite(e);
    return;
  }
  if (!doc.is_object()) return;
  nlohmann::json flags = nlohmann::json::object();
  for (auto& [key, v] : doc.items()) {
    if (const auto m = marked(v)) {
      flags[key] = std::string(*m);
      v = nullptr;
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i)
        if (const auto em = marked(v[i])) flags[key + "[" + std::to_string(i) + "]"] = std::string(*em), v[i] = nullptr;
      encode_nonfinite(v);
    } else {
      encode_nonfinite(v);
    }
  }
  if (!flags.empty()) doc["nonfinite"] = std::move(flags);
}

void decode_nonfinite(nlohmann::json& doc) {
  if (doc.is_array()) {
    for (auto& e : doc) decode_nonfinite(e);
    return;
  }
  if (!doc.is_object()) return;
  if (const auto it = doc.find("nonfinite"); it != doc.end() && it->is_object()) {
    const nlohmann::json flags = *it;
    doc.erase(it);
    for (const auto& [key, what] : flags.items()) {
      if (!what.is_string() || !nonfinite_value(what.get_ref<const std::string&>())) continue;
      const auto open = key.rfind('[');
      if (open == std::string::npos || key.back() != ']') {
        if (doc.contains(key) && doc[key].is_null()) doc[key] = mark(what.get_ref<const std::string&>());
        continue;
      }
      const std::string array = key.substr(0, open);
      const auto index = std::strtoull(key.c_str() + open + 1, nullptr, 10);
      if (doc.contains(array) && doc[array].is_array() && index < doc[array].size() && doc[array][index].is_null())
        doc[array][index] = mark(what.get_ref<const std::string&>());
    }
  }
  for (auto& [key, v] : doc.items()) decode_nonfinite(v);
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
