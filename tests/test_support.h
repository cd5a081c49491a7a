// Shared by the tests: a small real run of the reference backend, and the
// reference with one behaviour changed (the conformance audit's doubles).
#pragma once

#include <initializer_list>
#include <memory>
#include <span>
#include <string>

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

// The reference backend with one behaviour changed: a test double derives
// from it, overrides run() and calls reference() for what it keeps.
class ReferenceBut : public Backend {
 public:
  explicit ReferenceBut(std::string name) : ref_(make_backend("reference")), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  std::optional<DTypeSet> supported(std::string_view kernel) const override { return ref_->supported(kernel); }

 protected:
  std::vector<Tensor> reference(std::string_view kernel, std::span<const Tensor> in, const Params& p) const {
    return ref_->run(kernel, in, p);
  }

 private:
  std::unique_ptr<Backend> ref_;
  std::string name_;
};

// `backend`'s kernel x t graded in `profile`: `cases` random cases of `seed`.
inline engine::KernelDTypeResult run_profile(const Backend& backend, std::string_view kernel, DType t,
                                             engine::Profile profile, int cases, std::uint64_t seed = 1) {
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = cases;
  opts.seed = seed;
  opts.profile = profile;
  opts.backend = backend.name();
  opts.exhaustive_halves = false;
  return engine::run_kernel_dtype(*contract::find_kernel(kernel), t, backend, opts);
}

}  // namespace kc::testing_support
