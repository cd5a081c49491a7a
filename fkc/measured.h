// What a results document measured for one kernel, per dtype, in the terms
// of an FKC precision block: the integer ulp distance, the relative and
// absolute errors, bit stability, and the elements at those maxima.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kc::fkc {

struct Measured {
  std::string dtype;
  std::string model_kind;  // the contract's accuracy model: "exact", "ulp bound", "condition-aware bound", ...
  // nullopt: nothing graded. Infinite where an element has no finite error
  // (a NaN, an infinity or a special value where another result was due).
  std::optional<double> distance, relative, absolute;
  double max_frac_ulp = 0;
  // The determinism check ("deterministic: same input, same bits"):
  // nullopt when the run did not make it.
  std::optional<bool> bit_stable;
  std::string bit_stable_detail;  // "3 of 40 repeated calls differed"
  // The element at the maximum distance and at the maximum relative error
  // (an element report of the results document), or null.
  nlohmann::json at_distance, at_relative;
};

// Every result of `kernel` in `results` (a loaded, validated document); an
// empty vector when the run did not grade it.
std::vector<Measured> measured_of(const nlohmann::json& results, const std::string& kernel);

// The run, in a line: "kconform 0.1.0, backend reference, seed 1, commit abc, 100 cases".
std::string run_summary(const nlohmann::json& results);

// A figure as the terminal, notes and YAML show it: shortest round-trip
// decimal ("0.5008293", "1e-07"); "inf".
std::string figure(double v);

}  // namespace kc::fkc
