#include "fkc/measured.h"

#include <cmath>

#include <fmt/format.h>

#include "engine/results.h"
#include "reports/json_number.h"

namespace kc::fkc {

using nlohmann::json;

namespace {

using reports::field;

// The first failure of an accuracy or special-value check: the element an
// infinite figure rests on.
json first_value_failure(const json& r) {
  for (const auto& f : field(r, "failures")) {
    const std::string check = f.is_object() ? f.value("check", "") : "";
    if (check == "accuracy" || check.rfind("special:", 0) == 0) return f;
  }
  return nullptr;
}

}  // namespace

std::string figure(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

std::vector<Measured> measured_of(const json& results, const std::string& kernel) {
  std::vector<Measured> out;
  for (const auto& k : field(results, "kernels")) {
    if (field(k, "name") != kernel) continue;
    for (const auto& r : field(k, "results")) {
      Measured m;
      m.dtype = field(r, "dtype").is_string() ? r["dtype"].get<std::string>() : "";
      for (const auto& a : field(field(k, "contract"), "accuracy"))
        if (field(a, "dtype") == m.dtype && field(a, "kind").is_string()) m.model_kind = a["kind"].get<std::string>();
      const json& acc = field(r, "accuracy");
      const std::int64_t graded = reports::integer_or(field(acc, "graded"), 0);
      m.max_frac_ulp = reports::as_double(field(acc, "max_frac_ulp")).value_or(0);
      const bool infinite = std::isinf(m.max_frac_ulp);
      if (graded > 0 || infinite) {
        m.distance = infinite ? INFINITY : static_cast<double>(reports::integer_or(field(acc, "max_distance"), 0));
        m.relative = reports::as_double(field(acc, "max_relative"));
        m.absolute = reports::as_double(field(acc, "max_absolute"));
        if (infinite) m.relative = m.absolute = INFINITY;
      }
      m.at_distance = infinite ? first_value_failure(r) : field(acc, "at_max_distance");
      m.at_relative = infinite ? first_value_failure(r) : field(acc, "at_max_relative");
      for (const auto& c : field(r, "checks")) {
        if (field(c, "kind") != engine::kCheckKinds.name(engine::CheckKind::determinism)) continue;
        const std::int64_t failed = reports::integer_or(field(c, "failed"), 0), passed = reports::integer_or(field(c, "passed"), 0);
        if (failed + passed == 0) continue;
        m.bit_stable = failed == 0;
        m.bit_stable_detail = failed == 0 ? fmt::format("{} repeated call{} gave the same bits", passed, passed == 1 ? "" : "s")
                                          : fmt::format("{} of {} repeated calls gave other bits", failed, failed + passed);
      }
      out.push_back(std::move(m));
    }
  }
  return out;
}

std::string run_summary(const json& results) {
  const json& run = field(results, "run");
  auto s = [&](const char* k) {
    const json& v = field(run, k);
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string("?") : v.dump();
  };
  // (a document without accuracy_tier was graded against the contract's bounds)
  const std::string tier = field(run, "accuracy_tier").is_string() ? s("accuracy_tier") : "reference";
  return fmt::format("kconform {}, backend {}, seed {}, commit {}, {} cases per kernel, {} profile, accuracy tier {}",
                     s("kconform"), s("backend"), s("seed"), s("commit"), s("cases_per_kernel"), s("profile"), tier);
}

}  // namespace kc::fkc
