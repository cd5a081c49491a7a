// What a kernel may leave behind after a call, and how the worker finds
// and clears it: the floating-point environment (rounding mode, FTZ/DAZ,
// exception masks, in MXCSR and the x87 control word), processes it
// started (the worker is a child subreaper: even a double-forked daemon
// becomes its child), threads still running, what it printed, and the
// worker's resident memory. Worker-side only.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace kc::plugin {

// The checks these observations feed (the engine tallies them by name).
inline constexpr const char* kFpEnvironmentCheck = "isolation: leaves the floating-point environment as it found it";
inline constexpr const char* kLeftoverCheck = "isolation: leaves no process or running thread behind";
inline constexpr const char* kUnwrittenCheck = "output: every element written";

// ---- floating-point environment
struct FpEnv {
  std::uint32_t mxcsr = 0;
  std::uint16_t x87_control = 0;
};
// Round to nearest, no FTZ/DAZ, every exception masked, x87 at 64 bits.
void set_default_fp_env();
FpEnv read_fp_env();
// "left the rounding mode toward +inf (MXCSR); left FTZ set", or "" when
// only sticky exception flags differ from the default.
std::string fp_env_change(const FpEnv& e);

// ---- threads and processes
std::set<pid_t> thread_ids();
// The threads the call started (those not in `before`) that are still
// active after it returned: watched every `settle_us` (at least 1 ms),
// for at most `limit_ms`, until each has ended or stayed quiet (not on a
// CPU, no run time added) for a whole interval, as a pool's threads do
// once they go to sleep; `stop_early` returning true ends the watch.
// Their ids.
std::vector<pid_t> active_new_threads(const std::set<pid_t>& before, int settle_us, int limit_ms,
                                      const std::function<bool()>& stop_early);
// Kills every descendant (SIGKILL, again for those reparented here as
// their parents die) and reaps them; returns "3 processes (sleep, sh)" or
// "" when there were none.
std::string kill_descendants();

// Closes every descriptor from 3 up but the two kept (-1: only one):
// nothing of kconform's (its output files, other workers' connections)
// reaches the plug-in.
void close_other_descriptors(int keep1, int keep2);

// ---- printed output: the worker's stdout and stderr go to an in-memory file
class Capture {
 public:
  // Points descriptors 1 and 2 at a fresh in-memory file (stdin: /dev/null).
  void start();
  int fd() const { return fd_; }
  // What was written since the last take (the first `cap` bytes) and its
  // whole length; the file is emptied.
  std::string take(std::size_t cap, std::int64_t& total);

 private:
  int fd_ = -1;
};

std::int64_t resident_bytes();

}  // namespace kc::plugin
