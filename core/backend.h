// The interface through which the framework reaches a kernel under test.
// It is deliberately buffer-and-shape based (a Tensor is a dtype, dims and a
// byte buffer) so that a later plug-in loader can wrap a C ABI around it.
// A backend validates its inputs itself and throws KernelError: whether it
// rejects what the contract rejects is one of the things conformance checks.
// The grading side (contracts, drivers, checks, generators, oracles, engine,
// reports) reaches kernels through this interface only.
#pragma once

#include <cstdint>
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
    // What kconform had to do to its text (a name cut to its cap, bytes
    // that were not UTF-8 replaced), one line each.
    std::vector<std::string> notes = {};
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

  // What the calls since the last take did besides their results, as a
  // backend that isolates its kernels sees it: breaches of the plug-in
  // contract that left the outputs intact (each under the check it fails:
  // a changed floating-point environment, a process or a running thread
  // left behind), and what the kernels printed.
  struct CallNote {
    std::string check, what;
  };
  struct CallLog {
    std::vector<CallNote> notes;
    std::string printed;             // capped (the first bytes)
    std::int64_t printed_bytes = 0;  // in all
  };
  virtual CallLog take_call_log() const { return {}; }
  // The checks whose breaches take_call_log reports: every call is judged
  // by them (none for a backend that runs kernels in kconform's process).
  virtual std::vector<std::string> call_checks() const { return {}; }
  // The next call starts in a fresh process where the backend keeps one:
  // each kernel x dtype result starts so, and so does the determinism
  // check's second re-execution, so that no state or leak of one kernel
  // reaches another.
  virtual void fresh_process() const {}

  // Called in a child process right after fork() (`run -j`): a backend
  // that holds a connection to a process of its own (a plug-in's worker)
  // drops the inherited one, without touching it, and opens its own on the
  // next call, so that no two processes share one connection.
  virtual void after_fork() {}
};

// How a plug-in's kernels are run apart from kconform (the command line's
// isolation options; README, "Isolation").
struct IsolationOptions {
  double timeout_s = 10;             // one call (--timeout)
  double load_timeout_s = 60;        // loading the library and registering (--load-timeout)
  std::int64_t worker_calls = 5000;  // calls before a worker is replaced (--worker-calls)
  std::int64_t worker_memory_mb = 2048;  // resident memory past which it is replaced (--worker-memory-mb)
  std::int64_t max_output_mb = 1024;     // one call's outputs together (--max-output-mb)
  double settle_ms = 2;              // wait after a return while other threads live (--settle-ms)
  std::int64_t align = 0;            // buffer alignment in bytes; 0: the element size (--align)
  // The environment a plug-in's kernels may depend on (OPENBLAS_CORETYPE,
  // OMP_NUM_THREADS, ...): the variables set when the run started whose
  // names match the default list or --record-env, name and value, sorted.
  // Recorded in the results and prefixed to every printed replay.
  std::vector<std::pair<std::string, std::string>> environment;
};

// "reference", "mutant:<name>" or "plugin:<path to a shared library>"
// (include/kconform/plugin.h, run as `isolation` says). Throws UsageError
// for unknown names and plug-ins that do not load. Defined by the backends
// library (backends/backends.cpp).
std::unique_ptr<Backend> make_backend(std::string_view spec, const IsolationOptions& isolation = {});
std::vector<std::string> backend_names();  // every accepted spec

}  // namespace kc
