// The conformance engine's entry points: run one kernel on one dtype
// through a backend (every case, every check, the tallies), or grade one
// element as `--input` replays it. engine/runner.cpp orchestrates the cases,
// engine/case_run.cpp grades one case, engine/tally.cpp accumulates,
// engine/failure_text.cpp writes what a person reads; the checks beyond
// accuracy are in checks/, the computation shapes in drivers/.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "core/backend.h"
#include "engine/results.h"
#include "generators/case.h"
#include "generators/problems.h"

namespace kc::engine {

// Live counters of a run, for a progress line (cli/progress.h): the runner
// adds to them after each case; another thread only reads them.
struct Progress {
  std::atomic<std::int64_t> elements{0};  // elements graded
  std::atomic<std::int64_t> failures{0};  // failing elements (all checks)
  std::atomic<std::int64_t> results{0};   // kernel x dtype results finished
};

// The profiles (Profile, engine/results.h), by name.
inline std::string_view profile_name(Profile p) { return kProfiles.name(p); }
inline std::optional<Profile> parse_profile(std::string_view name) { return kProfiles.find(name); }
// reference for the reference backend, conformance for every other.
Profile default_profile(std::string_view backend);

struct CheckRegistry;  // engine/check.h
struct AccuracyTier;   // engine/accuracy_tier.h

struct RunOptions {
  // The checks beyond accuracy (checks::registry() from the layers above):
  // a run handed none is refused (handed_checks).
  const CheckRegistry* checks = nullptr;
  std::uint64_t seed = 1;
  Profile profile = Profile::reference;
  int cases = 100;            // random cases per kernel and dtype
  int sweeps = 4;             // exhaustive sweeps of a 16-bit dtype for a kernel with parameters
  bool exhaustive_halves = true;
  int invalid_per_rule = 6;   // invalid calls per precondition
  std::optional<std::int64_t> only_case;  // replay one case
  std::vector<int> shrink_path;           // ... then follow these shrink steps
  bool bad_input_only = false;            // of the run checks, only the bad-input one (its replay)
  std::string backend = "reference";
  // How a plug-in backend runs its kernels (--timeout, ...): printed in
  // replays where not the default.
  IsolationOptions isolation;
  std::size_t max_failures_per_check = 5;
  // Wall-clock bound of shrinking a failing case (with its 300 candidates).
  double shrink_seconds = 30;
  // The oracle's fast path (oracles/fast.h) where it cannot change what is
  // reported; false: MPFR for every element (--exact-oracle).
  bool fast_oracle = true;
  // Where cases are not a run's (an exhaustive sweep): the command that
  // replays case `id` whole, for failures that show only in their case.
  std::function<std::string(std::int64_t)> case_command;
  // If set, every element that enters the accuracy statistics is written as
  // "kernel dtype case element input_hex result_hex" (for independent checks).
  std::ostream* dump = nullptr;
  // The accuracy tier the accuracy check grades against (--accuracy);
  // nullptr: the contract's bound (the reference tier).
  const AccuracyTier* tier = nullptr;
  // Set (to the signal's number) to stop at the next case boundary: the
  // result so far is returned, marked interrupted.
  const std::atomic<int>* stop = nullptr;
  Progress* progress = nullptr;
  // The shapes graded besides the sweeps (generators/problems.h); nullptr:
  // the random cases alone (`--shapes tiny`).
  std::shared_ptr<const gen::ShapeSelection> shapes;
  // A shaped case's output of more elements is graded exactly on a
  // stratified sample of about this many (engine/sample.h); 0: every element.
  std::int64_t exact_budget = 4096;
};

// A result with the kernel's name, family and the dtype filled in, nothing graded.
KernelDTypeResult result_for(const contract::KernelSpec& k, DType t);
// The same, with the accuracy tier that grades it (opts.tier) recorded.
KernelDTypeResult result_for(const contract::KernelSpec& k, DType t, const RunOptions& opts);

KernelDTypeResult run_kernel_dtype(const contract::KernelSpec& k, DType t, const Backend& backend,
                                   const RunOptions& opts);

// Grade one element of an elementwise kernel (one bit pattern per operand),
// as `--input` replays it.
ElementReport replay_element(const contract::KernelSpec& k, DType t, const Backend& backend,
                             const std::vector<std::uint64_t>& bits, const Params& params, const RunOptions& opts,
                             bool& failed);

// Case `id` of a run with these options (a sweep or a random case, not the
// statistics case), after the shrink steps `path`: as --case/--shrink replay it.
gen::Case case_by_id(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                     std::int64_t id, const std::vector<int>& path);
// Grades one given case (a stored regression case) with every check of a
// run, the run checks on that case included.
KernelDTypeResult grade_given_case(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                                   const gen::Case& cs);

// The bound the accuracy check grades kernel x dtype against: the tier's
// where it covers it, else the contract's (nullptr where neither has one).
const contract::Accuracy* graded_accuracy(const RunOptions& opts, const contract::KernelSpec& k, DType t);
// Whether the tier's bound replaces the contract's for kernel x dtype.
bool tier_covers(const RunOptions& opts, const contract::KernelSpec& k, DType t);

// The set of dtypes a run grades for a kernel (its contract's dtypes).
std::vector<DType> graded_dtypes(const contract::KernelSpec& k);

// The cases of a kernel x dtype run (sweeps, then random cases): a replayed
// `--case` must be below this.
std::int64_t case_count(const contract::KernelSpec& k, DType t, const RunOptions& opts);

// Checks every contract entry against its driver and its properties'
// checks (the driver exists and takes the entry's operands, parameters and
// oracle; each property's check exists in `checks` and accepts it). Returns
// one line per problem, empty when the table is sound; the CLI refuses to
// run otherwise (checks::checked_kernels()).
std::vector<std::string> check_table(const std::vector<contract::KernelSpec>& table, const CheckRegistry& checks);

}  // namespace kc::engine
