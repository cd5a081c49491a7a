#include "backends/plugin/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "backends/plugin/worker.h"
#include "core/error.h"
#include "kconform/plugin.h"

namespace kc::plugin {

namespace {

using Clock = std::chrono::steady_clock;

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? fmt::format("SIG{}", name) : fmt::format("signal {}", sig);
}

// Reads exactly sizeof(T) bytes from fd before `deadline`; false on EOF or time.
template <class T>
bool read_until(int fd, T& v, Clock::time_point deadline) {
  auto* p = reinterpret_cast<char*>(&v);
  std::size_t done = 0;
  while (done < sizeof v) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd pf{fd, POLLIN, 0};
    if (::poll(&pf, 1, static_cast<int>(left)) <= 0) continue;
    const ssize_t n = ::read(fd, p + done, sizeof v - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

void WorkerProcess::spawn() {
  int sv[2], st[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw std::runtime_error(fmt::format("plug-in {}: socketpair failed: {}", path_, std::strerror(errno)));
  if (::pipe2(st, O_CLOEXEC) != 0) {
    ::close(sv[0]), ::close(sv[1]);
    throw std::runtime_error(fmt::format("plug-in {}: pipe failed: {}", path_, std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("plug-in {}: fork failed: {}", path_, std::strerror(errno)));
  if (pid == 0) {
    ::close(sv[0]), ::close(st[0]);
    run_supervisor(path_, sv[1], st[1], parent);
  }
  ::close(sv[1]), ::close(st[1]);
  supervisor_ = pid;
  status_fd_ = st[0];
  ch_ = std::make_unique<Channel>(sv[0]);
  killed_ = false;
  calls_ = 0;
  if (!read_until(status_fd_, runner_, Clock::now() + std::chrono::seconds(10))) {
    runner_ = -1;
    std::string kind;
    throw std::runtime_error(fmt::format("plug-in {}: its worker did not start: it {}", path_, how_it_ended(kind)));
  }
  ch_->watch(status_fd_);
  ch_->stop_on_signal(true);
}

const Hello& WorkerProcess::start() {
  if (ch_) return hello_;
  spawn();
  ch_->set_deadline(Clock::now() + std::chrono::milliseconds(limits_.load_ms));
  try {
    hello_ = read_hello(*ch_);
  } catch (const ChannelTimeout&) {
    kill_runner();
    std::string kind;
    how_it_ended(kind);
    throw UsageError(fmt::format("plug-in {}: loading it and its kconform_plugin_register did not finish within {} s "
                                 "(--load-timeout); the worker was killed",
                                 path_, limits_.load_ms / 1000.0));
  } catch (const Interrupted&) {
    kill_runner();
    std::string kind;
    how_it_ended(kind);
    throw;
  } catch (const ChannelClosed&) {
    std::string kind;
    const std::string how = how_it_ended(kind);
    throw UsageError(fmt::format("plug-in {}: the library did not load: while loading or registering, it {}", path_, how));
  }
  ch_->clear_deadline();
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
    const auto n = ch_->get<std::int32_t>();
    if (n < 0 || n > 64) throw ChannelClosed("malformed reply");
    for (std::int32_t i = 0; i < n; ++i) {
      const auto dt = ch_->get<std::int32_t>();
      const auto rank = ch_->get<std::int32_t>();
      if (dt < KC_F32 || dt > KC_U8 || rank < 0 || rank > 64) throw ChannelClosed("malformed reply");
      Dims dims;
      for (std::int32_t d = 0; d < rank; ++d) dims.push_back(ch_->get<std::int64_t>());
      auto bytes = ch_->get_blob(static_cast<std::size_t>(limits_.max_output));
      r.outputs.push_back(Tensor::from_bytes_unchecked(static_cast<DType>(dt), std::move(dims), std::move(bytes)));
    }
  } else {
    throw ChannelClosed("malformed reply");
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
    how_it_ended(kind);
    throw KernelFault("timeout", fmt::format("the call ran past the per-call time limit of {} s (--timeout); the worker "
                                             "was killed",
                                             limits_.call_ms / 1000.0));
  } catch (const Interrupted&) {
    kill_runner();
    std::string kind;
    how_it_ended(kind);
    throw;
  } catch (const ChannelClosed&) {
    std::string kind;
    const std::string how = how_it_ended(kind);
    throw KernelFault(kind, "the kernel " + how);
  }
  ++calls_;
  if (r.after.retire || calls_ >= limits_.max_calls || r.after.resident_bytes > limits_.max_resident) end();
  return r;
}

void WorkerProcess::kill_runner() {
  if (runner_ > 0) ::kill(runner_, SIGKILL);
  killed_ = true;
}

std::string WorkerProcess::how_it_ended(std::string& kind) {
  ch_.reset();
  int status = 0;
  // The supervisor kills what the runner left (up to 2 s) before it reports.
  const bool reported = status_fd_ >= 0 && read_until(status_fd_, status, Clock::now() + std::chrono::seconds(5));
  if (supervisor_ > 0) {
    if (!reported) ::kill(-supervisor_, SIGKILL), ::kill(supervisor_, SIGKILL);
    while (::waitpid(supervisor_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (status_fd_ >= 0) ::close(status_fd_);
  supervisor_ = runner_ = -1, status_fd_ = -1;
  if (!reported) {
    kind = "lost connection";
    return "ended together with its supervisor process, which something killed (a kernel can signal the processes "
           "of its own user, kconform's worker included)";
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    kind = sig == SIGABRT ? "abort" : killed_ ? "timeout" : "crash";
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
    default:
      return fmt::format("exited with status {} during the call (it called exit, _exit or quick_exit)", code);
  }
}

void WorkerProcess::end() {
  if (!ch_ && supervisor_ <= 0) return;
  ch_.reset();  // the runner reads EOF and exits; the supervisor reports and exits
  pollfd pf{status_fd_, POLLIN, 0};
  if (status_fd_ < 0 || ::poll(&pf, 1, 1000) <= 0) kill_runner();
  std::string kind;
  how_it_ended(kind);
}

void WorkerProcess::forget() {
  if (ch_) {
    // Its descriptor is closed here only: the parent keeps its own, so
    // the worker sees no EOF.
    ch_.reset();
  }
  if (status_fd_ >= 0) ::close(status_fd_);
  supervisor_ = runner_ = -1, status_fd_ = -1;
}

}  // namespace kc::plugin
