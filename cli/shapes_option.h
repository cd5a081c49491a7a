// `--shapes` and `--exact-budget` of run and campaign: the shape selection
// (generators/problems.h) with every problem line checked against its
// kernel's driver and the memory it would take.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "core/error.h"
#include "generators/problems.h"

namespace kc::cli {

// The selection `value` names (tiny, tails, production, all, a shipped
// set's name or a problem file). A problem line whose shapes its kernel
// does not take, or whose case would need more than `max_case_mb` MiB, is
// refused: UsageError "FILE:LINE: ..." with the reason or the figure.
std::shared_ptr<const gen::ShapeSelection> shapes_option(const std::string& value, std::int64_t max_case_mb);

// A selection without the random cases (production, a shipped set): the
// plan's kernel x dtypes that a problem line names, the others left out
// (they would grade nothing); UsageError where none is left.
template <class Plan>
Plan with_problem_lines(Plan plan, const gen::ShapeSelection& s) {
  if (s.random) return plan;
  std::erase_if(plan, [&](const auto& u) {
    return std::none_of(s.problems.begin(), s.problems.end(),
                        [&](const gen::Problem& p) { return p.kernel == u.first->name && p.applies_to(u.second); });
  });
  if (plan.empty())
    throw UsageError("--shapes " + s.name + ": no problem line names the kernels and dtypes asked for");
  return plan;
}

// The memory a problem's case takes, estimated from its operands: every
// element at 8 bytes (the widest dtype), three times over (the inputs,
// the worker's shared-memory copy of them, outputs of their size).
std::int64_t problem_bytes(const gen::Problem& p);

}  // namespace kc::cli
