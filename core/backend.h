// The interface through which the framework reaches a kernel under test.
// It is deliberately buffer-and-shape based (a Tensor is a dtype, dims and a
// byte buffer) so that a later plug-in loader can wrap a C ABI around it.
// A backend validates its inputs itself and throws KernelError: whether it
// rejects what the contract rejects is one of the things conformance checks.
// The grading side (contracts, drivers, checks, generators, oracles, engine,
// reports) reaches kernels through this interface only.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "core/tensor.h"

namespace kc {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // op + inputs + params -> outputs (the reference's exec bridge shape).
  virtual std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> inputs,
                                  const Params& params) const = 0;
  // The input dtypes the backend accepts for `kernel` (its dtype support
  // table); nullopt when it does not implement the kernel at all.
  virtual std::optional<DTypeSet> supported(std::string_view kernel) const = 0;

  // A library loaded from outside (a plug-in): its own name, version and
  // build flags, which the results record instead of kconform's.
  struct Library {
    std::string name, version, build_flags, path;
  };
  virtual std::optional<Library> library() const { return std::nullopt; }

  // What the backend declares for a kernel x dtype: its own accuracy claim
  // (metric: "frac_ulp", "distance", "relative", "absolute"; empty: none)
  // and an expected failure with its reason.
  struct Declared {
    std::string claim_metric;
    double claim_bound = 0;
    std::string expected_failure;
  };
  virtual Declared declared(std::string_view /*kernel*/, DType /*t*/) const { return {}; }

  // Called in a child process right after fork() (`run -j`): a backend
  // that holds a connection to a process of its own (a plug-in's worker)
  // drops the inherited one, without touching it, and opens its own on the
  // next call, so that no two processes share one connection.
  virtual void after_fork() {}
};

// "reference", "mutant:<name>" or "plugin:<path to a shared library>"
// (include/kconform/plugin.h; each call limited to `timeout_s` seconds).
// Throws UsageError for unknown names and plug-ins that do not load.
// Defined by the backends library (backends/backends.cpp).
std::unique_ptr<Backend> make_backend(std::string_view spec, double timeout_s = 10);
std::vector<std::string> backend_names();  // every accepted spec

}  // namespace kc
