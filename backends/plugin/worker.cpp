// The supervisor and the runner (worker.h). The runner answers each call
// in the same steps: read the call, lay out the inputs read-only between
// guards, set the default floating-point environment, call the kernel,
// then look at what it left: the environment, the outputs' canaries and
// poison, writes after the return, processes and running threads, what
// it printed, its memory.
#include "backends/plugin/worker.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>

#include <fmt/format.h>

#include "backends/plugin/guarded.h"
#include "backends/plugin/hygiene.h"
#include "backends/plugin/protocol.h"
#include "backends/plugin/registration.h"
#include "backends/plugin/worker_call.h"
#include "core/dtype.h"
#include "kconform/plugin.h"

namespace kc::plugin {

namespace {

constexpr auto kSecondPoison = std::byte{0x5A};
// How long the threads a call started may stay busy after it returned
// before they count as left running: a pool's threads spin a little, then
// sleep (libgomp's spin is well under this); a thread that writes late
// meets the read-only output within it even on a loaded machine.
constexpr int kThreadWatchMs = 500;

// ---- one run of the kernel

struct Attempt {
  Outputs outs;
  kc_error err{};
  kc_status status = KC_ERR_OTHER;
  std::optional<Fault> fault;
  std::vector<GuardedBuffer> inputs;
};

const kc_kernel* find_entry(const kc_plugin_info& info, const Call& c) {
  // The entry for the first input's dtype, else any entry of that name
  // (a bad-input call may pass a dtype the library does not list).
  const kc_kernel* entry = nullptr;
  for (std::int32_t i = 0; i < info.n_kernels; ++i) {
    const kc_kernel& k = info.kernels[i];
    if (c.kernel != k.name) continue;
    if (!entry || (!c.in.empty() && k.dtype == c.in[0].dtype)) entry = &k;
  }
  return entry;
}

void run_once(const kc_kernel& entry, Call& c, std::byte poison, Attempt& a, std::string& fp_change, int reply_fd) {
  a.outs.setup = &c.setup;
  a.outs.poison = poison;
  for (std::size_t i = 0; i < c.in.size(); ++i) {
    std::string why;
    const std::size_t size = c.bytes[i].size();
    const std::size_t elem = c.in[i].dtype >= KC_F32 && c.in[i].dtype <= KC_U8 ? dtype_size(static_cast<DType>(c.in[i].dtype)) : 1;
    auto buf = GuardedBuffer::make(size, c.setup.alignment > 0 ? static_cast<std::size_t>(c.setup.alignment) : elem,
                                   c.setup.placement, Role::input, static_cast<int>(i), std::byte{0}, why);
    if (!buf) {
      a.fault = Fault{"exception", Role::input, static_cast<std::int32_t>(i), "the worker could not lay out {operand}: " + why};
      return;
    }
    if (size > 0) std::memcpy(buf->data(), c.bytes[i].data(), size);
    buf->read_only();
    c.in[i].data = buf->data();
    c.in[i].dims = c.dims[i].data();
    c.in[i].bytes = size;
    a.inputs.push_back(std::move(*buf));
  }
  install_fault_handler(reply_fd);
  set_default_fp_env();
  set_phase(Phase::in_call);
  try {
    a.status = entry.fn(c.in.data(), static_cast<std::int32_t>(c.in.size()), c.params.data(),
                        static_cast<std::int32_t>(c.params.size()), alloc_output, &a.outs, &a.err);
  } catch (const std::exception& e) {
    a.fault = Fault{"exception", Role::none, -1, fmt::format("an exception escaped the kernel: {}", e.what())};
  } catch (...) {
    a.fault = Fault{"exception", Role::none, -1, "an exception escaped the kernel"};
  }
  set_phase(Phase::after_return);
  fp_change = fp_env_change(read_fp_env());
  set_default_fp_env();
  for (auto& o : a.outs.list) o.buf.read_only();
}

// The first problem the outputs show: a write into the canaries, or a
// request alloc_output could not serve.
std::optional<Fault> output_problem(const Attempt& a) {
  for (std::size_t o = 0; o < a.outs.list.size(); ++o)
    if (std::string d = a.outs.list[o].buf.slack_damage(); !d.empty())
      return Fault{"out-of-bounds write", Role::output, static_cast<std::int32_t>(o), d};
  return a.outs.bad_request;
}

// Elements (of `size` bytes) that hold the poison byte in every byte.
std::vector<std::int64_t> poisoned(const GuardedBuffer& b, std::size_t size, std::byte poison) {
  std::vector<std::int64_t> v;
  const std::byte* p = b.data();
  for (std::size_t i = 0; i + size <= b.size(); i += size) {
    bool all = true;
    for (std::size_t k = 0; all && k < size; ++k) all = p[i + k] == poison;
    if (all) v.push_back(static_cast<std::int64_t>(i / size));
  }
  return v;
}

// Moves an attempt's buffers, made inaccessible, into `keep`: a thread the
// kernel left that touches one later is then named, never a wild access to
// memory reused by the next call.
void keep_buffers(Attempt& a, std::vector<GuardedBuffer>& keep) {
  for (auto& b : a.inputs) b.quarantine(), keep.push_back(std::move(b));
  for (auto& o : a.outs.list) o.buf.quarantine(), keep.push_back(std::move(o.buf));
  a.inputs.clear();
  a.outs.list.clear();
}

// Output elements the kernel never wrote: those that hold the first
// poison, and the second one when the same call is made again (an element
// the kernel computed to equal the poison holds its value both times).
std::optional<Fault> unwritten(const kc_kernel& entry, Call& c, const Attempt& first, int reply_fd,
                               std::vector<GuardedBuffer>& keep) {
  std::vector<std::vector<std::int64_t>> suspects;
  bool any = false;
  for (const auto& o : first.outs.list) {
    suspects.push_back(poisoned(o.buf, dtype_size(static_cast<DType>(o.dtype)), std::byte{c.setup.poison}));
    any |= !suspects.back().empty();
  }
  if (!any) return std::nullopt;
  Attempt again;
  std::string fp;
  run_once(entry, c, kSecondPoison, again, fp, reply_fd);
  // (its buffers stay, inaccessible, with the call's: a thread of this
  // second run may still touch them)
  struct Keep {
    Attempt& a;
    std::vector<GuardedBuffer>& keep;
    ~Keep() { keep_buffers(a, keep); }
  } kept{again, keep};
  if (again.fault || again.status != KC_OK || again.outs.list.size() != first.outs.list.size()) return std::nullopt;
  for (std::size_t o = 0; o < suspects.size(); ++o) {
    const auto& b = again.outs.list[o].buf;
    const std::size_t size = dtype_size(static_cast<DType>(again.outs.list[o].dtype));
    std::vector<std::int64_t> never;
    for (auto i : suspects[o]) {
      bool all = static_cast<std::size_t>(i + 1) * size <= b.size();
      for (std::size_t k = 0; all && k < size; ++k) all = b.data()[static_cast<std::size_t>(i) * size + k] == kSecondPoison;
      if (all) never.push_back(i);
    }
    if (!never.empty())
      return Fault{"unwritten output", Role::output, static_cast<std::int32_t>(o),
                   fmt::format("the kernel never wrote {} of the {} elements of output {} (element {} first; they kept "
                               "the bytes kconform filled them with, {:#04x} in one call and {:#04x} in another)",
                               never.size(), b.size() / size, o, never.front(), c.setup.poison, static_cast<int>(kSecondPoison))};
  }
  return std::nullopt;
}

void send_outputs(Channel& ch, const Attempt& a) {
  ch.put(Reply::outputs);
  ch.put<std::int32_t>(static_cast<std::int32_t>(a.outs.list.size()));
  for (const auto& o : a.outs.list) {
    ch.put<std::int32_t>(o.dtype);
    ch.put<std::int32_t>(static_cast<std::int32_t>(o.dims.size()));
    for (auto d : o.dims) ch.put(d);
    ch.put_blob(std::span<const std::byte>(o.buf.data(), o.buf.size()));
  }
}

void send_status(Channel& ch, const Attempt& a) {
  kc_error err = a.err;
  err.operand[sizeof err.operand - 1] = '\0';
  err.message[sizeof err.message - 1] = '\0';
  err.rule[sizeof err.rule - 1] = '\0';
  ch.put(Reply::status);
  ch.put<std::int32_t>(a.status);
  ch.put_string(err.operand);
  ch.put_string(err.message);
  ch.put_string(err.rule);
}

// What the call left behind (`running`: threads it started that still
// run); clears it.
Aftermath aftermath(Capture& cap, const std::vector<pid_t>& running, const std::string& fp) {
  Aftermath a;
  if (!fp.empty()) a.notes.emplace_back(kFpEnvironmentCheck, "the kernel " + fp);
  if (const std::string procs = kill_descendants(); !procs.empty()) {
    a.notes.emplace_back(kLeftoverCheck, fmt::format("the kernel left {} running after the call returned; kconform killed "
                                                     "them",
                                                     procs));
  }
  if (!running.empty()) {
    a.notes.emplace_back(kLeftoverCheck, fmt::format("the kernel left {} thread{} running after the call returned (a "
                                                     "thread that sleeps between calls, as a pool's do, is allowed)",
                                                     running.size(), running.size() == 1 ? "" : "s"));
    a.retire = true;  // a thread cannot be stopped alone: the process goes
  }
  a.printed = cap.take(kPrintedCap, a.printed_bytes);
  a.resident_bytes = resident_bytes();
  return a;
}

// The connection's descriptor as it was when the runner started: a kernel
// that closed it (or put another file in its place) took the connection;
// checked before every reply, so that a reply never goes into its file.
struct ChannelIdentity {
  dev_t dev = 0;
  ino_t ino = 0;
  explicit ChannelIdentity(int fd) {
    struct stat st{};
    if (::fstat(fd, &st) == 0) dev = st.st_dev, ino = st.st_ino;
  }
  bool still(int fd) const {
    struct stat st{};
    return ::fstat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
  }
};

// Before a reply: the connection is the worker's to write (not a fault
// report's, not another file on its descriptor).
void take_connection(const Channel& ch, const ChannelIdentity& identity) {
  claim_reply();
  if (!identity.still(ch.fd())) ::_exit(kExitChannelLost);
}

void answer_call(Channel& ch, const ChannelIdentity& identity, const kc_plugin_info& info, Capture& cap,
                 std::vector<GuardedBuffer>& quarantine) {
  Call c = read_call(ch);
  const kc_kernel* entry = find_entry(info, c);
  // A thread of an earlier call touched a buffer after it returned (it was
  // ended): a pool it belonged to may now wait forever for it, so the
  // kernel is not called again; this call reports it.
  if (std::optional<Fault> late = take_late_fault(); late || !entry) {
    take_connection(ch, identity);
    write_fault(ch, late ? *late : Fault{"exception", Role::none, -1, fmt::format("the plug-in has no entry point for '{}'", c.kernel)});
    Aftermath after;
    after.retire = late.has_value();
    write_aftermath(ch, after);
    release_reply();
    return;
  }
  const std::set<pid_t> threads_before = thread_ids();
  Attempt a;
  std::string fp;
  run_once(*entry, c, std::byte{c.setup.poison}, a, fp, ch.fd());
  // Other threads alive: let them run a little, so that a late write meets
  // the read-only output now rather than the next call's data, and see
  // which of those the call started still run.
  std::vector<pid_t> running;
  if (thread_ids().size() > threads_before.size())
    running = active_new_threads(threads_before, c.setup.settle_us, kThreadWatchMs, [] { return late_fault_pending(); });
  std::optional<Fault> fault = take_late_fault();
  if (!fault) fault = a.fault;
  if (!fault) fault = output_problem(a);
  // This call's buffers stay mapped, inaccessible, until the next call ends.
  std::vector<GuardedBuffer> kept;
  // Elements never written are graded as they are (the poison) and fail a
  // check of their own; a wrong shape, their usual cause, is the engine's.
  std::optional<Fault> never;
  if (!fault && a.status == KC_OK) never = unwritten(*entry, c, a, ch.fd(), kept);
  set_phase(Phase::idle);
  take_connection(ch, identity);
  if (fault) write_fault(ch, *fault);
  else if (a.status != KC_OK) send_status(ch, a);
  else send_outputs(ch, a);
  Aftermath after = aftermath(cap, running, fp);
  if (never) after.notes.emplace_back(kUnwrittenCheck, never->what);
  if (fault) after.retire = true;  // what else it broke is unknown
  write_aftermath(ch, after);
  keep_buffers(a, kept);
  quarantine = std::move(kept);
  release_reply();
}

}  // namespace

void run_runner(const std::string& path, int fd, const kc_plugin_info* preloaded) {
  Capture cap;
  cap.start();
  close_other_descriptors(fd, cap.fd());
  const ChannelIdentity identity(fd);
  Channel ch(fd);
  try {
    install_fault_handler(fd);
    set_default_fp_env();
    kc_plugin_info info = preloaded ? *preloaded : kc_plugin_info{};
    if (!preloaded) {
      Hello hello = load_and_register(path, info);
      std::int64_t printed = 0;
      cap.take(0, printed);
      if (printed > 0) hello.notes.push_back(fmt::format("it printed {} bytes while loading (not kept)", printed));
      write_hello(ch, hello);
      if (!hello.error.empty()) ::_exit(kExitDone);
    }
    std::vector<GuardedBuffer> quarantine;
    for (;;) answer_call(ch, identity, info, cap, quarantine);
  } catch (const ChannelClosed&) {
    ::_exit(identity.still(fd) ? kExitDone : kExitChannelLost);
  } catch (...) {
    ::_exit(kExitInternal);
  }
}


}  // namespace kc::plugin
