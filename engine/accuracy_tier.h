// Accuracy tiers: which bound the accuracy check grades against
// (`--accuracy reference|claimed|NAME|FILE`). The reference tier is the
// contract's own bound. Another tier replaces it, per kernel x dtype it
// covers, by a bound a kernel author publishes or must meet: the plug-in's
// own declared claims, or a tier file (correctly rounded, the OpenCL C
// specification's ULP table, the CUDA programming guide's). Special
// values, properties and bad-input checks still come from the contract; the
// contract model's own statistics (the bias test, the case statistics)
// are the contract's and do not run where a tier's bound replaces it.
// A kernel x dtype the tier does not cover is graded against the contract,
// and its result says so.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contracts/contract.h"
#include "core/backend.h"

namespace kc::engine {

struct AccuracyTier {
  std::string name;    // "reference", "claimed", "opencl-full-profile", ...
  std::string source;  // where its bounds come from, for the reports
  std::string spec;    // what --accuracy named (a replay repeats it)
  std::map<std::pair<std::string, DType>, contract::Accuracy> bounds;

  // The tier's bound for kernel x dtype; nullptr where it has none.
  const contract::Accuracy* find(std::string_view kernel, DType t) const;
};

// Parses a tier file's text (grammar: docs/accuracy-tiers.md). Throws
// UsageError naming `file` and the line for anything it cannot read, an
// unknown kernel or a dtype its contract does not list.
AccuracyTier parse_tier(std::string_view text, std::string_view file);

// The tiers shipped with kconform (tiers/*.tier, built in): their names.
std::vector<std::string> builtin_tier_names();

// `--accuracy WHAT`: "reference" (nullopt: the contract), "claimed" (the
// backend's own claims in frac_ulp or distance, for `kernels`), a built-in
// tier's name, or a tier file's path. UsageError for anything else.
std::optional<AccuracyTier> load_tier(std::string_view what, const Backend& backend,
                                      const std::vector<const contract::KernelSpec*>& kernels);

}  // namespace kc::engine
