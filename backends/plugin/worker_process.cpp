#include "backends/plugin/worker_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "backends/plugin/worker.h"
#include "core/error.h"
#include "kconform/plugin.h"

namespace kc::plugin {

namespace {

using Clock = std::chrono::steady_clock;

// A reply that does not hold together (sizes that disagree, a count out of
// range): the runner is alive but not to be believed.
struct MalformedReply : ChannelClosed {
  MalformedReply() : ChannelClosed("malformed reply") {}
};

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? fmt::format("SIG{}", name) : fmt::format("signal {}", sig);
}

// How a process of the library ended, from its wait status; `kind` gets
// the KernelFault kind ("crash", "abort", "exit", "lost connection").
std::string ended_text(int status, bool killed, std::string& kind) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    kind = sig == SIGABRT ? "abort" : killed ? "timeout" : "crash";
    if (sig == SIGABRT) return "aborted (killed by SIGABRT)";
    return fmt::format("crashed (killed by {})", signal_text(sig));
  }
  const int code = WEXITSTATUS(status);
  kind = "exit";
  switch (code) {
    case kExitChannelLost:
      kind = "lost connection";
      return "closed the worker's connection to kconform (a descriptor it did not open); the call's outputs are lost";
    case kExitProtocol: return "exited: the worker could not read kconform's message (status 3)";
    case kExitInternal: return "exited: the worker's own code failed (status 4)";
    default: return fmt::format("exited with status {} (it called exit, _exit or quick_exit)", code);
  }
}

}  // namespace

void WorkerProcess::start_zygote() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::runtime_error(fmt::format("plug-in {}: socketpair failed: {}", path_, std::strerror(errno)));
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("plug-in {}: fork failed: {}", path_, std::strerror(errno)));
  if (pid == 0) {
    ::close(sv[0]);
    run_zygote(path_, sv[1], parent, preload_);
  }
  ::close(sv[1]);
  zygote_ = pid;
  control_ = std::make_unique<Channel>(sv[0]);
  control_->stop_on_signal(true);
  if (!preload_) return;
  read_hello_within_limit(*control_);
  if (!hello_.error.empty()) return;
  control_->set_deadline(Clock::now() + std::chrono::seconds(5));
  bool copyable = false;
  try {
    copyable = control_->get<std::uint8_t>() == 1;
  } catch (const std::runtime_error&) {
    const std::string how = how_zygote_ended();
    throw UsageError(fmt::format("plug-in {}: after registering, it {}", path_, how));
  }
  control_->clear_deadline();
  if (!copyable && hello_.error.empty()) {
    // Threads started while loading do not survive a fork: every runner
    // loads the library itself from now on.
    end_all();
    preload_ = false;
    hello_.notes.push_back("it starts threads while loading: each worker loads it anew (no copies of a loaded one)");
    start_zygote();
  }
}

const Hello& WorkerProcess::read_hello_within_limit(Channel& ch) {
  ch.set_deadline(Clock::now() + std::chrono::milliseconds(limits_.load_ms));
  try {
    Hello h = read_hello(ch);
    ch.clear_deadline();
    if (!have_hello_) hello_ = std::move(h), have_hello_ = true;
    else if (!h.error.empty())  // (a runner loading the library itself, after an earlier one did)
      throw std::runtime_error(fmt::format("plug-in {}: a fresh worker could not load it: {}", path_, h.error));
    return hello_;
  } catch (const ChannelTimeout&) {
    end_all();
    throw UsageError(fmt::format("plug-in {}: loading it and its kconform_plugin_register did not finish within {} s "
                                 "(--load-timeout); the worker was killed",
                                 path_, limits_.load_ms / 1000.0));
  } catch (const Interrupted&) {
    kill_all();  // (a stop acts at once: no grace for a hung registration)
    throw;
  } catch (const ChannelClosed&) {
    std::string kind;
    const std::string how = preload_ ? how_zygote_ended() : how_runner_ended(kind);
    end_all();
    throw UsageError(fmt::format("plug-in {}: the library did not load: while loading or registering, it {}", path_, how));
  }
}

void WorkerProcess::start_runner() {
  control_->set_deadline(Clock::now() + std::chrono::seconds(10));
  std::uint8_t tag = 0;
  int fd = -1;
  try {
    control_->put(Control::spawn);
    control_->wait_readable();
    if (!recv_fd(control_->fd(), tag, fd) || tag != static_cast<std::uint8_t>(Control::spawned) || fd < 0) {
      if (fd >= 0) ::close(fd), fd = -1;
      throw ChannelClosed("no runner");
    }
    runner_ = control_->get<pid_t>();
  } catch (const Interrupted&) {
    kill_all();
    throw;
  } catch (const std::runtime_error&) {
    const std::string how = how_zygote_ended();
    throw std::runtime_error(fmt::format("plug-in {}: its worker could not start a runner: it {}", path_, how));
  }
  control_->clear_deadline();
  ch_ = std::make_unique<Channel>(fd);
  ch_->watch(control_->fd());  // the zygote's report of the runner's end
  ch_->stop_on_signal(true);
  killed_ = false;
  calls_ = 0;
  if (!preload_) read_hello_within_limit(*ch_);
}

const Hello& WorkerProcess::start() {
  if (!control_) start_zygote();
  if (!hello_.error.empty()) return hello_;
  if (!ch_) start_runner();
  return hello_;
}

void WorkerProcess::send_call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params,
                              const CallSetup& setup) {
  ch_->put_string(std::string(kernel));
  ch_->put<std::int32_t>(static_cast<std::int32_t>(inputs.size()));
  for (const Tensor& t : inputs) {
    ch_->put<std::int32_t>(static_cast<std::int32_t>(t.dtype()));
    ch_->put<std::int32_t>(t.rank());
    for (auto d : t.dims()) ch_->put<std::int64_t>(d);
    ch_->put_blob(std::span<const std::byte>(t.bytes(), t.byte_size()));
  }
  ch_->put<std::int32_t>(static_cast<std::int32_t>(params.values().size()));
  for (const auto& [name, v] : params.values()) {
    ch_->put_string(name);
    const std::int32_t kind = static_cast<std::int32_t>(v.index());  // int, real, shape: kc_param_kind's order
    ch_->put(kind);
    ch_->put<std::int64_t>(kind == 0 ? std::get<0>(v) : 0);
    ch_->put<double>(kind == 1 ? std::get<1>(v) : 0.0);
    const std::vector<std::int64_t> none;
    const auto& dims = kind == 2 ? std::get<2>(v) : none;
    ch_->put<std::int32_t>(static_cast<std::int32_t>(dims.size()));
    for (auto d : dims) ch_->put(d);
  }
  ch_->put(setup);
}

CallReply WorkerProcess::read_reply() {
  CallReply r;
  r.kind = ch_->get<Reply>();
  if (r.kind == Reply::fault) {
    r.fault = read_fault(*ch_);
  } else if (r.kind == Reply::status) {
    r.status = ch_->get<std::int32_t>();
    r.operand = ch_->get_string(kNameCap);
    r.message = ch_->get_string(kTextCap);
    r.rule = ch_->get_string(kNameCap);
  } else if (r.kind == Reply::outputs) {
    // The runner's memory is the plug-in's: its outputs' shapes and sizes
    // are checked here, their bytes together within --max-output-mb.
    const auto n = ch_->get<std::int32_t>();
    if (n < 0 || n > 64) throw MalformedReply();
    std::int64_t total = 0;
    for (std::int32_t i = 0; i < n; ++i) {
      const auto dt = ch_->get<std::int32_t>();
      const auto rank = ch_->get<std::int32_t>();
      if (dt < KC_F32 || dt > KC_U8 || rank < 0 || rank > 64) throw MalformedReply();
      Dims dims;
      std::int64_t numel = 1;
      const auto size = static_cast<std::int64_t>(dtype_size(static_cast<DType>(dt)));
      for (std::int32_t d = 0; d < rank; ++d) {
        dims.push_back(ch_->get<std::int64_t>());
        if (dims.back() < 0 || __builtin_mul_overflow(numel, dims.back(), &numel)) throw MalformedReply();
      }
      std::int64_t bytes_expected = 0;
      if (__builtin_mul_overflow(numel, size, &bytes_expected)) throw MalformedReply();
      auto bytes = ch_->get_blob(static_cast<std::size_t>(limits_.max_output - total));
      total += static_cast<std::int64_t>(bytes.size());
      if (static_cast<std::int64_t>(bytes.size()) != bytes_expected) throw MalformedReply();
      r.outputs.push_back(Tensor::from_bytes_unchecked(static_cast<DType>(dt), std::move(dims), std::move(bytes)));
    }
  } else {
    throw MalformedReply();
  }
  r.after = read_aftermath(*ch_);
  return r;
}

CallReply WorkerProcess::call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params,
                              const CallSetup& setup) {
  start();
  CallReply r;
  try {
    ch_->set_deadline(Clock::now() + std::chrono::milliseconds(limits_.call_ms));
    send_call(kernel, inputs, params, setup);
    r = read_reply();
    ch_->clear_deadline();
  } catch (const ChannelTimeout&) {
    kill_runner();
    std::string kind;
    how_runner_ended(kind);
    throw KernelFault("timeout", fmt::format("the call ran past the per-call time limit of {} s (--timeout); the worker "
                                             "was killed",
                                             limits_.call_ms / 1000.0));
  } catch (const Interrupted&) {
    kill_runner();  // (a stop acts at once: no grace for a hung call)
    std::string kind;
    how_runner_ended(kind);  // (its report: whatever the runner left is gone before kconform goes on)
    throw;
  } catch (const MalformedReply&) {
    kill_runner();
    std::string kind;
    how_runner_ended(kind);
    throw KernelFault("lost connection", "the worker's reply was malformed (its memory is the kernel's: did the kernel "
                                         "overwrite the worker's own data?); the worker was killed");
  } catch (const ChannelClosed&) {
    std::string kind;
    const std::string how = how_runner_ended(kind);
    throw KernelFault(kind, fmt::format("the kernel {}{}", how, kind == "exit" ? " during the call" : ""));
  }
  ++calls_;
  if (r.after.retire || calls_ >= limits_.max_calls || r.after.resident_bytes > limits_.max_resident) end();
  return r;
}

void WorkerProcess::kill_runner() {
  if (runner_ > 0) ::kill(runner_, SIGKILL);
  killed_ = true;
}

std::string WorkerProcess::how_runner_ended(std::string& kind) {
  ch_.reset();
  runner_ = -1;
  if (!control_) {
    kind = "lost connection";
    return "ended with its worker";
  }
  // The zygote kills what the runner left (up to 2 s) before it reports.
  // (Bookkeeping, read whatever a stop request says: a stop while kconform
  // ends its workers must not end it before they are gone.)
  Control tag{};
  pid_t pid = -1;
  int status = 0;
  try {
    control_->stop_on_signal(false);
    control_->set_deadline(Clock::now() + std::chrono::seconds(5));
    tag = control_->get<Control>();
    pid = control_->get<pid_t>();
    status = control_->get<int>();
    control_->clear_deadline();
    control_->stop_on_signal(true);
  } catch (const std::runtime_error&) {
    kind = "lost connection";
    const std::string zygote = how_zygote_ended();
    return fmt::format("ended together with its zygote process, which {} (a kernel can signal the processes of its own "
                       "user, kconform's worker included)",
                       zygote);
  }
  if (tag != Control::ended || pid <= 0) {
    end_all();
    kind = "lost connection";
    return "ended, and its worker sent a malformed report";
  }
  return ended_text(status, killed_, kind);
}

std::string WorkerProcess::how_zygote_ended() {
  control_.reset();
  ch_.reset();
  runner_ = -1;
  int status = 0;
  if (zygote_ <= 0) return "ended";
  // Closed: it exits at once, or it is stuck; a second is plenty.
  pid_t r = 0;
  for (int i = 0; i < 100 && (r = ::waitpid(zygote_, &status, WNOHANG)) == 0; ++i) ::usleep(10000);
  if (r == 0) {
    ::kill(-zygote_, SIGKILL), ::kill(zygote_, SIGKILL);
    while (::waitpid(zygote_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  zygote_ = -1;
  std::string kind;
  return ended_text(status, false, kind);
}

void WorkerProcess::end() {
  if (!ch_) return;
  ch_.reset();  // the runner reads EOF and exits; the zygote reports it
  pollfd pf{control_ ? control_->fd() : -1, POLLIN, 0};
  if (!control_ || ::poll(&pf, 1, 1000) <= 0) kill_runner();
  std::string kind;
  how_runner_ended(kind);
}

void WorkerProcess::end_all() {
  end();
  if (control_ || zygote_ > 0) how_zygote_ended();  // closing its connection ends it
}

void WorkerProcess::kill_all() {
  if (zygote_ > 0) ::kill(-zygote_, SIGKILL), ::kill(zygote_, SIGKILL);  // (its group: the runner and what it left)
  ch_.reset();
  how_zygote_ended();
}

WorkerProcess::~WorkerProcess() {
  try {
    end_all();
  } catch (...) {  // (a destructor: whatever went wrong, nothing of the library may stay)
    if (zygote_ > 0) ::kill(-zygote_, SIGKILL), ::kill(zygote_, SIGKILL);
  }
}

void WorkerProcess::forget() {
  // Their descriptors are closed here only: the parent keeps its own, so
  // its processes see no EOF.
  ch_.reset();
  control_.reset();
  zygote_ = runner_ = -1;
}

}  // namespace kc::plugin
