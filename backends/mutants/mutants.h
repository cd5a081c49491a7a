// Planted defects. Each mutant is the reference backend with one kernel
// broken in one realistic way; the self-test requires that a default
// conformance run of that kernel flags it, in the check named here.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/backend.h"

namespace kc::mutants {

struct Mutant {
  std::string_view name;
  std::string_view kernel;          // the one kernel it breaks
  DTypeSet dtypes;                  // dtypes the defect shows on
  std::string_view expected_check;  // check kind that must flag it: accuracy, special, property, bias, bad-input,
                                    // semantics, statistics, layout
  std::string_view defect;          // what is broken, in words
  // Replaces the reference's evaluation of `kernel` (inputs already named by the caller).
  std::vector<Tensor> (*run)(std::span<const Tensor> inputs, const Params& params);
};

const std::vector<Mutant>& all();
std::vector<Mutant> family_mutants();  // family_mutants.cpp
const Mutant* find(std::string_view name);

}  // namespace kc::mutants
