// Shrinking a failing case: smaller cases that keep the structure a driver
// needs, so that a counterexample comes down to the few elements that fail
// (RapidCheck's own shrinking cannot drop elements: the values are a list of
// fixed length after the shape). The engine keeps the first candidate that
// still fails the same check and asks again (engine/runner.cpp); `--shrink`
// replays the indices it chose.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "generators/case.h"

namespace kc::drivers {

// What of a case lies on a common frame of dims, right-aligned: input
// tensors (by index) and shape parameters (by name). A member whose aligned
// dim is 1 broadcasts along that axis and is not cut.
struct Frame {
  Dims dims;
  std::vector<std::size_t> inputs;
  std::vector<std::string_view> shape_params;
  std::optional<std::size_t> fixed_axis;  // an axis no cut may drop (reduce_dim's dim)
};

// The candidates, the most reduced first: the frame flattened to one dim
// (when `flatten` and the case is not flat yet), the leading axis dropped
// where it is 1, then for each axis (largest first) its first and second half.
std::vector<gen::Case> shrink_candidates(const gen::Case& c, const Frame& f, bool flatten);

}  // namespace kc::drivers
