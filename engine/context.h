// What every part of one kernel x dtype run sees: the entry, the dtype, the
// backend under test, the entry's driver and the run's options.
#pragma once

#include "contracts/contract.h"
#include "core/backend.h"
#include "drivers/driver.h"
#include "engine/conformance.h"

namespace kc::engine {

struct Context {
  const contract::KernelSpec& k;
  DType t;
  const Backend& backend;
  const drivers::Driver& driver;
  const RunOptions& opts;
  // The case being graded is the dedicated case of the per-case
  // statistics (drivers' statistics_case): only there do the oracles'
  // error variances count (grading's evaluate).
  bool statistics_case = false;
  // Which of the kernel's outputs is being graded (drivers::Expectation::
  // parts): its dtype is the one its elements are graded in.
  std::size_t output = 0;
  // The bound the accuracy check grades against (the run's tier, else the
  // contract's): looked up once per kernel x dtype, not per element (a
  // tier's lookup builds a key string).
  const contract::Accuracy* graded = graded_accuracy(opts, k, t);
  DType out_dtype() const { return k.out_dtype(t, output); }
  const contract::Accuracy* accuracy() const { return graded; }
};

}  // namespace kc::engine
