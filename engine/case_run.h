// Grading one case: call the backend, check the output's shape, dtype and
// layout, grade every output element against the oracle (special values,
// accuracy, the semantics replay), accumulate the statistics, then run the
// case checks (per-case statistics, properties).
#pragma once

#include <memory>
#include <vector>

#include "engine/check.h"
#include "engine/context.h"
#include "engine/tally.h"

namespace kc::engine {

// Returns the number of failures the case added. `full_stats`: the case
// counts towards coverage, error statistics and worst cases (not a shrink
// step); `statistics_case`: the dedicated case of the per-case statistics.
std::int64_t grade_case(const Context& c, const CheckList& checks, Tallies& acc, std::int64_t case_id,
                        const std::vector<int>& path, const gen::Case& cs, bool full_stats,
                        bool statistics_case = false);

// What the backend saw the calls since the last record do besides their
// results (Backend::take_call_log), recorded against case `case_id` (or,
// with -1, the run's own checks): each check the backend judges calls by
// (Backend::call_checks) passes or fails, and what the kernel printed is
// kept.
void record_calls(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path,
                  const gen::Case* cs);

// The run's own checks after its last case (Check::on_finish: determinism,
// bad input, ...), with the graded outputs, their calls recorded; false
// when a stop request ended them (kc::Interrupted).
bool finish_checks(const Context& c, const CheckList& checks, const RunView& run, Tallies& acc,
                   GradedOutputs& graded);

}  // namespace kc::engine
