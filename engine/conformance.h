// The conformance engine: runs one kernel on one dtype through a backend,
// grades every element against the oracle under the contract's accuracy
// model, checks special values, properties, output shape, layout,
// determinism and every precondition, and returns the tallies.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "core/backend.h"
#include "engine/results.h"

namespace kc::engine {

struct RunOptions {
  std::uint64_t seed = 1;
  int cases = 100;            // random cases per kernel and dtype
  int sweeps = 4;             // exhaustive sweeps of a 16-bit dtype for a kernel with parameters
  bool exhaustive_halves = true;
  int invalid_per_rule = 6;   // invalid calls per precondition
  std::optional<std::int64_t> only_case;  // replay one case
  std::vector<int> shrink_path;           // ... then follow these shrink steps
  std::string backend = "reference";
  std::size_t max_failures_per_check = 5;
  // If set, every element that enters the accuracy statistics is written as
  // "kernel dtype case element input_hex result_hex" (for independent checks).
  std::ostream* dump = nullptr;
};

KernelDTypeResult run_kernel_dtype(const contract::KernelSpec& k, DType t, const Backend& backend,
                                   const RunOptions& opts);

// Grade one element of an elementwise kernel (one bit pattern per operand),
// as `--input` replays it.
ElementReport replay_element(const contract::KernelSpec& k, DType t, const Backend& backend,
                             const std::vector<std::uint64_t>& bits, const Params& params, const RunOptions& opts,
                             bool& failed);

// The set of dtypes a run grades for a kernel (its contract's dtypes).
std::vector<DType> graded_dtypes(const contract::KernelSpec& k);

}  // namespace kc::engine
