// The check table a run is handed: looking kinds up, the checks of one run,
// the start-up validation of the entries' properties.
#include "engine/check.h"

#include <stdexcept>

#include <fmt/format.h>

namespace kc::engine {

const CheckEntry* CheckRegistry::find(std::string_view name) const {
  for (const CheckEntry& k : kinds)
    if (k.name == name) return &k;
  return nullptr;
}

CheckList CheckRegistry::for_run(const contract::KernelSpec& k, DType t, std::optional<std::string_view> only,
                                 bool tier_bound) const {
  CheckList v;
  for (const CheckEntry& kind : kinds)
    if (!kind.per_property && !(tier_bound && kind.of_contract_model) && kind.applies(k, t) &&
        (!only || kind.name == *only))
      v.push_back(kind.make(nullptr));
  if (only) return v;
  for (const auto& p : k.properties)
    if (const CheckEntry* kind = find(p.check); kind && kind->per_property) v.push_back(kind->make(&p));
  return v;
}

std::vector<std::string> CheckRegistry::validate_properties(const contract::KernelSpec& k) const {
  std::vector<std::string> problems;
  for (const auto& p : k.properties) {
    const CheckEntry* kind = find(p.check);
    if (!kind || !kind->per_property) {
      problems.push_back(fmt::format("kernel '{}': property '{}' names check '{}', which is not a property check",
                                     k.name, p.name, p.check));
      continue;
    }
    if (kind->validate)
      if (std::string why = kind->validate(k, p); !why.empty())
        problems.push_back(fmt::format("kernel '{}': property '{}' ({}): {}", k.name, p.name, p.check, why));
  }
  return problems;
}

const CheckRegistry& handed_checks(const RunOptions& opts) {
  if (!opts.checks)
    throw std::logic_error("the engine was handed no checks (RunOptions::checks): a run without them would grade "
                           "no property and still pass");
  return *opts.checks;
}

}  // namespace kc::engine
