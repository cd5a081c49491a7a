// Grading on every core: N forked worker processes take work items (kernel
// x dtype results, campaign batches) one at a time from a shared counter,
// each writes its item's outcome (a string) to a file of its own, and the
// parent hands the outcomes over as they finish and in item order at the
// end. Processes, not threads: Boost.Multiprecision keeps MPFR's default
// precision in a process-wide static (oracles/mp.h), and a plug-in's worker
// connection is per process (Backend::after_fork). What an item computes
// depends only on its index (every seed derives from the run's seed, the
// kernel, the dtype and the case), so which process ran it changes nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/conformance.h"

namespace kc::engine {

// The number of cores this process may run on (sched_getaffinity), at least 1.
int available_cores();

// A fresh folder under the system's temporary folder, removed with its
// contents when the object goes.
class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix);
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A run's progress counters in memory its worker processes share (each
// adds to them; the parent's progress line reads them).
class SharedProgress {
 public:
  SharedProgress();
  ~SharedProgress();
  SharedProgress(const SharedProgress&) = delete;
  SharedProgress& operator=(const SharedProgress&) = delete;
  Progress& get() { return *p_; }

 private:
  Progress* p_;
};

struct ParallelOptions {
  int jobs = 1;
  // The run's stop flag (a signal): forwarded to the workers as SIGTERM,
  // each stops at its next case boundary and still returns its item.
  const std::atomic<int>* stop = nullptr;
  Backend* backend = nullptr;  // told after_fork() in each worker
  // Called by the parent every few milliseconds while workers run (a
  // progress line without a thread of its own: no thread may exist when
  // the parent forks, or a lock it holds stays held in the child).
  std::function<void()> tick;
};

// Runs work(i) for i in [0, n): in this process when jobs == 1, else in
// min(jobs, n) workers. done(i, outcome) runs in this process, for each item
// as it finishes (in any order). Returns the outcomes in item order; an
// item never started (the run was stopped) has none (nullopt-like: absent
// from `finished`). A worker that dies (a crash of an in-process kernel)
// is a std::runtime_error naming the item it was grading.
struct ParallelResult {
  std::vector<std::string> outcomes;  // outcomes[i], "" where not finished
  std::vector<bool> finished;
};
ParallelResult run_parallel(std::int64_t n, const ParallelOptions& opts,
                            const std::function<std::string(std::int64_t)>& work,
                            const std::function<void(std::int64_t, const std::string&)>& done);

}  // namespace kc::engine
