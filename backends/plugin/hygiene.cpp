#include "backends/plugin/hygiene.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace kc::plugin {

namespace {

constexpr std::uint32_t kDefaultMxcsr = 0x1F80;   // all masked, round to nearest, no FTZ/DAZ
constexpr std::uint16_t kDefaultX87 = 0x037F;     // all masked, 64-bit precision, round to nearest
constexpr std::uint32_t kMxcsrFlags = 0x3F;       // sticky exception flags: set by ordinary arithmetic

const char* rounding_name(unsigned rc) {
  switch (rc & 3) {
    case 0: return "to nearest";
    case 1: return "toward -inf";
    case 2: return "toward +inf";
    default: return "toward zero";
  }
}

std::vector<std::string> masks_cleared(unsigned masks) {
  static const char* names[] = {"invalid", "denormal", "divide-by-zero", "overflow", "underflow", "inexact"};
  std::vector<std::string> v;
  for (int i = 0; i < 6; ++i)
    if (!(masks & (1u << i))) v.push_back(names[i]);
  return v;
}

// A file under /proc, whole, or "" where it cannot be read: a thread or
// process can end between being listed and being read (its files then
// fail with ESRCH, which an ifstream's iterator turns into an exception).
std::string read_proc(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string s;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) s.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return s;
}

// The state in a stat file (field 3, after the parenthesized name), or '?'.
char stat_state(const std::string& stat) {
  const auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() ? '?' : stat[close + 2];
}

// A thread's state and the time it has run, in ns (the first field of its
// schedstat: finer than stat's ticks); false when it has ended.
bool thread_activity(pid_t tid, char& state, std::uint64_t& run_ns) {
  state = stat_state(read_proc(fmt::format("/proc/self/task/{}/stat", tid)));
  const std::string sched = read_proc(fmt::format("/proc/self/task/{}/schedstat", tid));
  if (state == '?' || sched.empty()) return false;
  run_ns = std::strtoull(sched.c_str(), nullptr, 10);
  return true;
}

// The children that are still running (zombies, ended processes not yet
// reaped, are reaped by the caller and left behind nothing).
std::vector<pid_t> children() {
  std::vector<pid_t> v;
  for (pid_t tid : thread_ids()) {
    std::istringstream in(read_proc(fmt::format("/proc/self/task/{}/children", tid)));
    for (pid_t p; in >> p;)
      if (stat_state(read_proc(fmt::format("/proc/{}/stat", p))) != 'Z') v.push_back(p);
  }
  return v;
}

std::string command_name(pid_t p) {
  std::string s = read_proc(fmt::format("/proc/{}/comm", p));
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.empty() ? "?" : s;
}

}  // namespace

void set_default_fp_env() {
  const std::uint32_t m = kDefaultMxcsr;
  asm volatile("fninit\n\tldmxcsr %0" : : "m"(m));
}

FpEnv read_fp_env() {
  FpEnv e;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(e.mxcsr), "=m"(e.x87_control));
  return e;
}

std::string fp_env_change(const FpEnv& e) {
  std::vector<std::string> what;
  const std::uint32_t m = e.mxcsr & ~kMxcsrFlags;
  const unsigned sse_rc = (m >> 13) & 3, x87_rc = (e.x87_control >> 10) & 3;
  if (sse_rc != 0 && sse_rc == x87_rc) what.push_back(fmt::format("left the rounding mode {} (MXCSR and x87)", rounding_name(sse_rc)));
  else {
    if (sse_rc != 0) what.push_back(fmt::format("left the rounding mode {} (MXCSR)", rounding_name(sse_rc)));
    if (x87_rc != 0) what.push_back(fmt::format("left the x87 rounding mode {}", rounding_name(x87_rc)));
  }
  if (m & 0x8000) what.push_back("left FTZ (flush to zero) set");
  if (m & 0x0040) what.push_back("left DAZ (denormals are zero) set");
  if (const auto v = masks_cleared((m >> 7) & 0x3F); !v.empty())
    what.push_back(fmt::format("left the {} exception{} unmasked (MXCSR)", fmt::join(v, ", "), v.size() > 1 ? "s" : ""));
  if (const auto v = masks_cleared(e.x87_control & 0x3F); !v.empty())
    what.push_back(fmt::format("left the {} exception{} unmasked (x87)", fmt::join(v, ", "), v.size() > 1 ? "s" : ""));
  const unsigned pc = (e.x87_control >> 8) & 3;
  if (pc != 3) what.push_back(fmt::format("left the x87 precision at {} bits", pc == 2 ? 53 : pc == 0 ? 24 : 0));
  // Reserved: MXCSR's bits 16-31; the control word's 6-7 (6 reads as 1) and 13-15.
  if ((m & 0xFFFF0000u) != 0 || (e.x87_control & 0xE0C0u) != 0x0040u)
    what.push_back(fmt::format("left reserved control bits changed (MXCSR {:#x}, x87 control {:#x})", e.mxcsr, e.x87_control));
  if (what.empty()) return "";
  return fmt::format("{} (MXCSR {:#06x}, x87 control word {:#06x}; the default is {:#06x} and {:#06x})", fmt::join(what, "; "),
                     e.mxcsr, e.x87_control, kDefaultMxcsr, kDefaultX87);
}

std::set<pid_t> thread_ids() {
  std::set<pid_t> s;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') s.insert(static_cast<pid_t>(std::atoi(e->d_name)));
    ::closedir(d);
  }
  return s;
}

std::vector<pid_t> active_new_threads(const std::set<pid_t>& before, int settle_us, int limit_ms,
                                      const std::function<bool()>& stop_early) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto interval = std::chrono::microseconds(std::max(settle_us, 1000));
  std::map<pid_t, std::uint64_t> last;  // the new threads alive, and their run time at the last look
  for (pid_t t : thread_ids()) {
    char state = '?';
    std::uint64_t ns = 0;
    if (!before.count(t) && thread_activity(t, state, ns)) last[t] = ns;
  }
  std::vector<pid_t> active;
  while (!last.empty()) {
    std::this_thread::sleep_for(interval);
    active.clear();
    for (auto it = last.begin(); it != last.end();) {
      char state = '?';
      std::uint64_t ns = 0;
      if (!thread_activity(it->first, state, ns)) {  // ended
        it = last.erase(it);
        continue;
      }
      if (state == 'R' || ns != it->second) active.push_back(it->first);
      it->second = ns;
      ++it;
    }
    if (active.empty() || (stop_early && stop_early()) || Clock::now() - start > std::chrono::milliseconds(limit_ms)) break;
  }
  return active;
}

std::string kill_descendants() {
  std::map<pid_t, std::string> killed;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int quiet = 0; quiet < 2 && std::chrono::steady_clock::now() < deadline;) {
    int status = 0;
    while (::waitpid(-1, &status, WNOHANG) > 0) {  // ended already: nothing left behind
    }
    const auto kids = children();
    for (pid_t p : kids) {
      if (!killed.count(p)) killed[p] = command_name(p);
      ::kill(p, SIGKILL);
    }
    while (::waitpid(-1, &status, WNOHANG) > 0) {
    }
    if (kids.empty()) ++quiet;
    else quiet = 0, std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (killed.empty()) return "";
  // A fork that did not exec carries the worker's own name.
  const std::string self = command_name(::getpid());
  std::set<std::string> names;
  for (const auto& [p, n] : killed) names.insert(n == self ? "a copy of the worker made by fork" : "'" + n + "'");
  return fmt::format("{} process{} ({})", killed.size(), killed.size() == 1 ? "" : "es", fmt::join(names, ", "));
}

void close_other_descriptors(int keep1, int keep2) {
  if (keep2 < 0) keep2 = keep1;
  const int lo = std::min(keep1, keep2), hi = std::max(keep1, keep2);
  if (lo > 3) ::close_range(3, static_cast<unsigned>(lo - 1), 0);
  if (hi > lo + 1) ::close_range(static_cast<unsigned>(lo + 1), static_cast<unsigned>(hi - 1), 0);
  ::close_range(static_cast<unsigned>(hi + 1), ~0u, 0);
}

void Capture::start() {
  // (close-on-exec: a program the kernel runs gets descriptors 1 and 2, the
  // copies below, and not this one)
  fd_ = ::memfd_create("kconform-worker-output", MFD_CLOEXEC);
  if (fd_ < 0) return;
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) | O_APPEND);
  const int null = ::open("/dev/null", O_RDONLY);
  if (null >= 0) ::dup2(null, 0), ::close(null);
  ::dup2(fd_, 1);
  ::dup2(fd_, 2);
}

std::string Capture::take(std::size_t cap, std::int64_t& total) {
  std::fflush(nullptr);  // the plug-in's stdio buffers (it shares this process's C library)
  total = 0;
  struct stat st{};
  if (fd_ < 0 || ::fstat(fd_, &st) != 0 || st.st_size <= 0) return "";
  total = st.st_size;
  std::string s(std::min<std::size_t>(cap, static_cast<std::size_t>(st.st_size)), '\0');
  const ssize_t n = ::pread(fd_, s.data(), s.size(), 0);
  s.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  if (::ftruncate(fd_, 0) != 0) total = -1;
  return s;
}

std::int64_t resident_bytes() {
  std::istringstream in(read_proc("/proc/self/statm"));
  std::int64_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

}  // namespace kc::plugin
