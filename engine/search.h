// Worst-case search for a one-input elementwise kernel: beyond random
// cases, a phase that climbs toward larger error. It first grades the
// inputs of the run's own random cases (half the budget), keeps the inputs
// with the largest fractional error in a pool, then spends the rest on
// mutations of pool members: a step of +-2^j representable values (j drawn
// uniformly from 0 to p + 4, so every scale from one ulp to whole binades
// is tried as often), graded in batches of 256 through one kernel call
// each. A failing element outranks every passing one. Deterministic: the
// mutations come from a seed.
#pragma once

#include <cstdint>
#include <string>

#include "engine/conformance.h"

namespace kc::engine {

struct SearchResult {
  std::int64_t evaluations = 0;  // elements graded
  std::int64_t random_evaluations = 0;
  bool failed = false;           // some element failed its contract
  // The largest fractional error seen (inf: a special or non-finite
  // failure), MPFR's figure of the first element whose error was the
  // largest on the 2^-16 grid (the same element on every CPU).
  double worst_frac = 0;
  std::int64_t worst_distance = 0;
  ElementReport worst;           // that element, in full (input, result, exact value, replay)
  double random_worst_frac = 0;  // the same for the random phase alone
  bool random_failed = false;
};

// Why the kernel cannot be searched this way ("" when it can).
std::string search_unsupported(const contract::KernelSpec& k, DType t);

SearchResult search_worst(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                          std::int64_t evaluations, std::uint64_t seed);

}  // namespace kc::engine
