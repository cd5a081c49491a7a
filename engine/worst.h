// What a result keeps of its elements beyond counts: its worst cases and
// the element at each maximum. One definition of how many, of the figure
// they are ranked by and of which element a tie keeps, for the run's tally
// (engine/tally.cpp) and the combination of results (engine/combine.cpp),
// so that both keep the same ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/results.h"

namespace kc::engine {

inline constexpr std::size_t kWorstKept = 5;

// The figure the worst cases are ranked by: the normalized error where the
// model has one, else the fractional ulp error.
inline double worst_key(const ElementReport& e) { return e.normalized ? *e.normalized : e.frac_ulp; }

// An element's place in its run: (case, element).
struct Place {
  std::int64_t case_index, element;
};

// Whether a figure v of the element at `at` displaces the figure `kept` of
// the element reported in r: it is larger, or equal and the element comes
// before r's in the same case (an earlier element wins a tie, whatever
// order the two are recorded in). Without a place (an element of another
// run), only a larger figure does: the one met first is kept.
// (A distance compared as an integer: past 2^53 a double would merge two.)
template <class V>
bool beats(V v, V kept, const std::optional<Place>& at, const ElementReport& r) {
  return v > kept || (v == kept && at && at->case_index == r.case_index && at->element < r.element);
}

// r among the worst cases, ranked by worst_key (ahead of every smaller key
// and of an equal one it beats, behind the others), at most kWorstKept.
inline void keep_worst(std::vector<ElementReport>& worst, const ElementReport& r, const std::optional<Place>& at) {
  const double key = worst_key(r);
  auto it = worst.begin();
  while (it != worst.end() && !beats(key, worst_key(*it), at, *it)) ++it;
  worst.insert(it, r);
  if (worst.size() > kWorstKept) worst.pop_back();
}

}  // namespace kc::engine
