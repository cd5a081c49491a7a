// What a backend declares for a kernel x dtype (core/backend.h Declared),
// judged against the run: its accuracy claim beside the contract's bound
// and the measured figure (confirmed, refuted, unclaimed), and its expected
// failure (failed as expected, or passed unexpectedly: never hidden).
#pragma once

#include "engine/context.h"
#include "engine/results.h"

namespace kc::engine {

// The claim's verdict from the result's statistics; a refuted claim adds a
// failing "claim" check and its finding (a dispatcher trusts the claim).
void judge_claim(const Context& c, double max_abs_err, double max_rel_err, KernelDTypeResult& res);

// After the verdict: records the expected failure's outcome.
void judge_expected_failure(const Context& c, KernelDTypeResult& res);

}  // namespace kc::engine
