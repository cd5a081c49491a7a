// Shared by the report tests: a small real run of the reference backend.
#pragma once

#include <initializer_list>

#include "checks/check.h"
#include "core/backend.h"
#include "engine/accuracy_tier.h"
#include "engine/conformance.h"
#include "reports/results_json.h"

namespace kc::testing_support {

// `kernels` x `dtypes`, 5 random cases each, no exhaustive sweeps.
// `tier`: the accuracy tier graded (nullptr: the contract's bound).
inline engine::RunResults small_run(std::initializer_list<const char*> kernels, std::initializer_list<DType> dtypes,
                                    std::uint64_t seed = 1, const char* backend_name = "reference",
                                    const engine::AccuracyTier* tier = nullptr) {
  auto backend = make_backend(backend_name);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 5;
  opts.exhaustive_halves = false;
  opts.seed = seed;
  opts.backend = backend_name;
  opts.tier = tier;
  engine::RunResults r;
  r.run = reports::collect_metadata(seed, backend_name, "test");
  if (tier) r.run.accuracy_tier = tier->name, r.run.accuracy_tier_source = tier->source;
  for (const char* name : kernels)
    for (DType t : dtypes) r.results.push_back(engine::run_kernel_dtype(*contract::find_kernel(name), t, *backend, opts));
  return r;
}

}  // namespace kc::testing_support
