// The worst cases a result keeps: how many, and the figure they are ranked
// by. One definition for the run's tally (engine/tally.cpp) and the merge
// of runs (reports/combine.cpp), so that both keep the same ones.
#pragma once

#include <cstddef>

#include "engine/results.h"

namespace kc::engine {

inline constexpr std::size_t kWorstKept = 5;

// The figure the worst cases are ranked by: the normalized error where the
// model has one, else the fractional ulp error.
inline double worst_key(const ElementReport& e) { return e.normalized ? *e.normalized : e.frac_ulp; }

}  // namespace kc::engine
