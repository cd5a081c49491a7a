// Sampled exact grading: an output too large to grade every element of
// within the run's budget (RunOptions::exact_budget) is graded exactly on
// a stratified sample (benchdnn grades every element; its problems are of
// one kernel, ours of every kernel at model shapes). The strata, each cut
// to its share of the budget:
//   edges       the first and last row and column (rows: the last axis;
//               each line thinned evenly, both ends kept);
//   boundaries  along each axis, the multiples of 16 and one past them
//               (the larger powers of two first: every multiple of 4096,
//               2048, ... is kept before those of 16), the other
//               coordinates drawn;
//   random      R uniform draws with replacement.
// What it guarantees: a defect that changes at least a fraction f of an
// output's elements is missed by the random stratum alone with
// probability (1 - f)^R (R = budget / 4: 1024 draws miss f = 1% with
// probability 3.4e-5); the other strata add the places where block
// kernels go wrong (docs/architecture.md, "Shaped cases").
#pragma once

#include <cstdint>
#include <vector>

#include "drivers/driver.h"

namespace kc::engine {

struct Sample {
  std::vector<std::int64_t> indices;  // flat output indices over all parts, ascending, each once
  // The composition (an element in two strata counted in the first).
  std::int64_t edges = 0, boundaries = 0, random = 0;
  std::int64_t draws = 0;  // the random stratum's draws (R), before duplicates
};

// The sample of an output of `want`'s parts (each part its share of the budget).
Sample stratified_sample(const drivers::Expectation& want, std::int64_t budget, std::uint64_t seed);
// (miss_probability, the guarantee: engine/results.h, beside the figures
// it reads.)

}  // namespace kc::engine
