// Exhaustive grading of a one-input elementwise kernel: every input bit
// pattern of a range (all 2^32 of f32, or a shard of them), in blocks that
// are graded independently (each a kernel x dtype result of its own, with
// its checks) and merged into one result (reports/merge.cpp), so that
// a sweep can be spread over processes and machines, stopped and resumed.
// The elements go through the same grading as a run (engine/case_run.cpp),
// with the oracle's fast path (oracles/fast.h) where it cannot change what
// is reported.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/conformance.h"

namespace kc::engine {

// Inputs per case within a block (one kernel call each).
inline constexpr std::uint64_t kExhaustiveChunk = 1u << 16;

// Why the kernel cannot be swept exhaustively in dtype t ("" when it can):
// one input, elementwise, and t one of its dtypes.
std::string exhaustive_unsupported(const contract::KernelSpec& k, DType t);

// Grades the inputs whose bit patterns lie in [lo, hi) as one result.
// `command` is the exhaustive command that replays a range (printed with a
// failure that shows only in a whole case: "kconform exhaustive ... --range A:B").
KernelDTypeResult grade_range(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                              const Params& params, std::uint64_t lo, std::uint64_t hi,
                              const std::function<std::string(std::uint64_t, std::uint64_t)>& command);

}  // namespace kc::engine
