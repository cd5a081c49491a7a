#include "engine/parallel.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "core/backend.h"
#include "core/stop.h"

namespace kc::engine {

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

namespace fs = std::filesystem;

// The memory the workers share: the next item to take, how many items are
// written, and per item the worker that took it (to name the item a dead
// worker was grading; negated once the item's file is written, so that the
// parent reads only the files that exist: asking the file system about
// every item each 10 ms cost a quarter of a core over a sweep's 4096 blocks).
struct Shared {
  std::atomic<std::int64_t> next{0};
  std::atomic<std::int64_t> written{0};
  std::atomic<std::int32_t> owner[1];  // n of them
};
static_assert(std::atomic<std::int64_t>::is_always_lock_free && std::atomic<std::int32_t>::is_always_lock_free,
              "the workers share these atomics through memory, not a lock");

class SharedMap {
 public:
  explicit SharedMap(std::size_t bytes) : bytes_(bytes) {
    p_ = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p_ == MAP_FAILED) throw std::runtime_error(fmt::format("mmap of {} bytes failed: {}", bytes_, std::strerror(errno)));
  }
  ~SharedMap() { ::munmap(p_, bytes_); }
  SharedMap(const SharedMap&) = delete;
  SharedMap& operator=(const SharedMap&) = delete;
  void* get() const { return p_; }

 private:
  std::size_t bytes_;
  void* p_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_file_atomically(const fs::path& p, const std::string& content) {
  const fs::path part = p.string() + ".part";
  {
    std::ofstream out(part, std::ios::binary);
    out << content;
    if (!out.flush()) _exit(3);
  }
  fs::rename(part, p);
}

[[noreturn]] void worker(int id, pid_t parent, std::int64_t n, Shared* sh, const fs::path& dir,
                         const ParallelOptions& opts, const std::function<std::string(std::int64_t)>& work) {
  // Dies with kconform (a SIGKILL of it included): never an orphan.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) _exit(1);
  if (opts.backend) opts.backend->after_fork();
  set_second_signal_ends_process(false);
  int rc = 0;
  for (;;) {
    if (opts.stop && opts.stop->load()) break;
    const std::int64_t i = sh->next.fetch_add(1);
    if (i >= n) break;
    sh->owner[i].store(id + 1);
    try {
      write_file_atomically(dir / std::to_string(i), work(i));
      sh->owner[i].store(-(id + 1));
      sh->written.fetch_add(1);
    } catch (const std::exception& e) {
      std::ofstream(dir / (std::to_string(i) + ".error")) << e.what();
      rc = 1;
      break;
    } catch (...) {  // (never unwind into the parent's frames: its folders are shared)
      std::ofstream(dir / (std::to_string(i) + ".error")) << "an unexpected exception while grading item " << i;
      rc = 1;
      break;
    }
  }
  std::fflush(nullptr);
  _exit(rc);  // no destructor of the parent's objects runs twice
}

using Work = std::function<std::string(std::int64_t)>;
using Done = std::function<void(std::int64_t, const std::string&)>;

// Items 0 to n - 1 in this process, in order (-j 1), until a stop.
void run_serially(std::int64_t n, const ParallelOptions& opts, const Work& work, const Done& done, ParallelResult& res) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (opts.stop && opts.stop->load()) break;
    res.outcomes[i] = work(i);
    res.finished[i] = true;
    done(i, res.outcomes[i]);
  }
}

// Forks `jobs` workers over the shared items; where a fork fails, those
// started are killed and it throws.
std::vector<pid_t> fork_workers(int jobs, std::int64_t n, Shared* sh, const fs::path& dir, const ParallelOptions& opts,
                                const Work& work) {
  std::fflush(nullptr);  // nothing buffered is written twice
  std::vector<pid_t> pids;
  const pid_t self = ::getpid();
  for (int w = 0; w < jobs; ++w) {
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (pid_t p : pids) ::kill(p, SIGKILL);
      throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
    }
    if (pid == 0) worker(w, self, n, sh, dir, opts, work);
    pids.push_back(pid);
  }
  return pids;
}

// Reads the items' files as the workers write them, each handed to `done`
// once. `last`: the workers are gone; a file written just before its
// worker died (before it could mark the item) is read too.
struct Collector {
  const Shared* sh;
  std::int64_t n;
  const fs::path& dir;
  ParallelResult& res;
  const Done& done;
  std::int64_t collected = 0;
  void operator()(bool last = false) {
    if (!last && sh->written.load() == collected) return;
    for (std::int64_t i = 0; i < n; ++i) {
      const std::int32_t w = sh->owner[i].load();
      if (res.finished[i] || w == 0 || (w > 0 && !(last && fs::exists(dir / std::to_string(i))))) continue;
      res.outcomes[i] = read_file(dir / std::to_string(i));
      res.finished[i] = true;
      ++collected;
      done(i, res.outcomes[i]);
    }
  }
};

// Reaps the workers that have ended (their pids negated, their wait
// statuses into `status`); how many did.
std::size_t reap_ended(std::vector<pid_t>& pids, std::vector<int>& status) {
  std::size_t ended = 0;
  for (std::size_t w = 0; w < pids.size(); ++w) {
    if (pids[w] <= 0) continue;
    int st = 0;
    const pid_t r = ::waitpid(pids[w], &st, WNOHANG);
    if (r == pids[w] || (r < 0 && errno == ECHILD)) {
      status[w] = st;
      pids[w] = -pids[w];
      ++ended;
    }
  }
  return ended;
}

// After the workers are gone: an item's error is thrown, then an item a
// worker took and never wrote names how that worker ended.
void throw_lost_items(std::int64_t n, const Shared* sh, const fs::path& dir, const std::vector<int>& status,
                      const ParallelResult& res) {
  for (std::int64_t i = 0; i < n; ++i) {
    const fs::path err = dir / (std::to_string(i) + ".error");
    if (fs::exists(err)) throw std::runtime_error(read_file(err));
  }
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t w = sh->owner[i].load();
    if (w == 0 || res.finished[i]) continue;
    const int st = status[static_cast<std::size_t>(w - 1)];
    const std::string how = WIFSIGNALED(st) ? fmt::format("was killed by signal {} ({})", WTERMSIG(st), strsignal(WTERMSIG(st)))
                                            : fmt::format("exited with status {}", WEXITSTATUS(st));
    throw std::runtime_error(fmt::format("worker process {} {} while grading work item {} of {}; rerun with -j 1 "
                                         "to see the failure in one process",
                                         w, how, i, n));
  }
}

}  // namespace

TempFolder::TempFolder(const std::string& prefix) {
  std::string tmpl = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!::mkdtemp(tmpl.data()))
    throw std::runtime_error(fmt::format("cannot create a folder in {}: {}", fs::temp_directory_path().string(),
                                         std::strerror(errno)));
  path_ = tmpl;
}
TempFolder::~TempFolder() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

SharedProgress::SharedProgress() {
  void* p = ::mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("mmap failed: {}", std::strerror(errno)));
  p_ = new (p) Progress;
}
SharedProgress::~SharedProgress() {
  p_->~Progress();
  ::munmap(p_, sizeof(Progress));
}

ParallelResult run_parallel(std::int64_t n, const ParallelOptions& opts,
                            const std::function<std::string(std::int64_t)>& work,
                            const std::function<void(std::int64_t, const std::string&)>& done) {
  ParallelResult res;
  res.outcomes.assign(static_cast<std::size_t>(n), "");
  res.finished.assign(static_cast<std::size_t>(n), false);
  const int jobs = static_cast<int>(std::min<std::int64_t>(std::max(1, opts.jobs), std::max<std::int64_t>(n, 1)));
  if (jobs == 1) {
    run_serially(n, opts, work, done, res);
    return res;
  }

  SharedMap map(sizeof(Shared) + sizeof(std::atomic<std::int32_t>) * static_cast<std::size_t>(n));
  auto* sh = new (map.get()) Shared;
  for (std::int64_t i = 0; i < n; ++i) new (&sh->owner[i]) std::atomic<std::int32_t>(0);
  const TempFolder folder("kconform-jobs");
  const fs::path& dir = folder.path();

  std::vector<pid_t> pids = fork_workers(jobs, n, sh, dir, opts, work);
  std::vector<int> status(pids.size(), 0);
  std::size_t alive = pids.size();
  bool forwarded = false;
  Collector collect{sh, n, dir, res, done};
  while (alive > 0) {
    alive -= reap_ended(pids, status);
    if (opts.stop && opts.stop->load() && !forwarded) {
      for (pid_t p : pids)
        if (p > 0) ::kill(p, SIGTERM);
      forwarded = true;
    }
    collect();
    if (opts.tick) opts.tick();
    if (alive > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  collect(true);
  throw_lost_items(n, sh, dir, status, res);
  return res;
}

}  // namespace kc::engine
