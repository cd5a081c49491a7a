// Generators of calls that break exactly one precondition of a contract, for
// the bad-input check: the backend must answer each with a KernelError that
// names the kernel, the operand and that rule.
#pragma once

#include <cstdint>
#include <optional>

#include "contracts/contract.h"
#include "generators/case.h"

namespace kc::gen {

// The `index`-th invalid variant of `valid` for `rule` (variants differ in
// how the rule is broken: too few or too many inputs, a short or a long
// buffer, each rejected dtype...). nullopt if the rule has no generator.
std::optional<Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule, const Case& valid,
                            std::uint64_t index);

}  // namespace kc::gen
