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
};

}  // namespace kc::engine
