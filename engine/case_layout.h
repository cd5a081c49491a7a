// The cases of one kernel x dtype run, by id (engine/runner.cpp's loop and
// `--case`): the driver's sweeps, the random cases, the statistics case
// where the model asks for one (none of these under `--shapes
// production`), then the shaped cases (generators/problems.h: the tails,
// the problem lines). Internal to the engine's case loop.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/context.h"

namespace kc::engine {

// A shaped case of kernel x dtype: its shapes, where they come from ("tail
// n=4097", a problem line's where()) and its seed.
struct ShapedEntry {
  drivers::Shaped shape;
  std::string origin;
  bool tail = false;
  std::uint64_t seed = 0;
};

struct CaseLayout {
  std::int64_t sweeps = 0, random_end = 0, statistics_end = 0, total = 0;
  std::vector<ShapedEntry> shaped;

  // Case `id`, built from its seed (a shaped one marked so: Case::shaped).
  gen::Case build(const Context& c, std::int64_t id) const;
  const ShapedEntry* shaped_at(std::int64_t id) const {
    return id >= statistics_end && id < total ? &shaped[static_cast<std::size_t>(id - statistics_end)] : nullptr;
  }
};

CaseLayout case_layout(const contract::KernelSpec& k, DType t, const drivers::Driver& d, const RunOptions& opts);

// A case's shape into the result's ShapeReport: the shaped cases counted,
// the largest case (by its inputs' elements) and its memory.
void note_shape(const Context& c, ShapeReport& r, const gen::Case& cs, const ShapedEntry* shaped);

}  // namespace kc::engine
