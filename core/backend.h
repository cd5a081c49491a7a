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
};

// "reference" or "mutant:<name>". Throws UsageError for unknown names.
// Defined by the backends library (backends/backends.cpp).
std::unique_ptr<Backend> make_backend(std::string_view spec);
std::vector<std::string> backend_names();  // every accepted spec

}  // namespace kc
