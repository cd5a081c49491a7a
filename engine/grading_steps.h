// The steps of grading one element that engine/grading.cpp (MPFR) and
// engine/fast_grading.cpp (the double fast path, the cheap first
// evaluation) share. Internal to those two files.
#pragma once

#include "contracts/contract.h"
#include "drivers/driver.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "oracles/exact.h"

namespace kc::engine::detail {

// The exact value of the element at the current precision, into ex (reset
// first: its MPFR numbers' storage is reused).
const oracle::Exact& evaluate(const Context& c, const drivers::Element& e, const Params& params, oracle::Exact& ex);
// The special-value rule the element's input matches, if any.
const contract::SpecialRule* special_rule(const contract::KernelSpec& k, const drivers::Element& e);
// The double fast path: false where it cannot decide the element.
bool grade_fast(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g);
// A cheap first MPFR evaluation (oracle_rounds_once), decided as the fast path: false where it cannot.
bool grade_cheap(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g);

}  // namespace kc::engine::detail
