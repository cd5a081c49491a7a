// `--shapes` and `--exact-budget` of run and campaign: the shape selection
// (generators/problems.h) with every problem line checked against its
// kernel's driver and the memory it would take.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "generators/problems.h"

namespace kc::cli {

// The selection `value` names (tiny, tails, production, all, a shipped
// set's name or a problem file). A problem line whose shapes its kernel
// does not take, or whose case would need more than `max_case_mb` MiB, is
// refused: UsageError "FILE:LINE: ..." with the reason or the figure.
std::shared_ptr<const gen::ShapeSelection> shapes_option(const std::string& value, std::int64_t max_case_mb);

// The memory a problem's case takes, estimated from its operands: every
// element at 8 bytes (the widest dtype), three times over (the inputs,
// the worker's shared-memory copy of them, outputs of their size).
std::int64_t problem_bytes(const gen::Problem& p);

}  // namespace kc::cli
