// The parent side of a plug-in backend: marshals each call to the worker,
// waits for it under the per-call time limit, and turns what happened into
// outputs, a KernelError (a precondition rule from the fixed list), or a
// KernelFault (crash, abort, exception, timeout, a write outside a buffer).
// A worker that did not survive a call is reaped and a fresh one forked for
// the next call: no zombie or orphan outlives the backend.
#include "backends/plugin/plugin_backend.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "backends/plugin/worker.h"
#include "contracts/contract.h"
#include "core/error.h"
#include "kconform/plugin.h"

namespace kc::plugin {

namespace {

static_assert(static_cast<int>(DType::f32) == KC_F32 && static_cast<int>(DType::f64) == KC_F64 &&
              static_cast<int>(DType::bf16) == KC_BF16 && static_cast<int>(DType::f16) == KC_F16 &&
              static_cast<int>(DType::u32) == KC_U32 && static_cast<int>(DType::u8) == KC_U8);

constexpr const char* kRules[] = {"ok",          "arity",          "shape.negative_dim", "buffer.size",
                                  "dtype.unsupported", "dtype.mismatch", "shape.mismatch", "param.missing",
                                  "param.type",  "param.domain",   "dim.out_of_range", "dim.empty",
                                  "broadcast.incompatible", "target.rank", "target.incompatible", "other"};

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return name ? fmt::format("SIG{}", name) : fmt::format("signal {}", sig);
}

const char* claim_name(std::int32_t m) {
  switch (m) {
    case KC_CLAIM_FRAC_ULP: return "frac_ulp";
    case KC_CLAIM_DISTANCE: return "distance";
    case KC_CLAIM_RELATIVE: return "relative";
    case KC_CLAIM_ABSOLUTE: return "absolute";
    default: return "";
  }
}

class Worker {
 public:
  Worker(std::string path, int timeout_ms) : path_(std::move(path)), timeout_ms_(timeout_ms) {}
  ~Worker() { stop(); }

  // A live worker and its Hello (forked on first use and after each death).
  const Hello& ensure() {
    if (pid_ > 0) return hello_;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error(fmt::format("plug-in {}: socketpair failed: {}", path_, std::strerror(errno)));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(fmt::format("plug-in {}: fork failed: {}", path_, std::strerror(errno)));
    if (pid == 0) {
      ::close(sv[0]);
      // Dies with kconform: never an orphan.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) _exit(0);
      ::signal(SIGINT, SIG_IGN);  // Ctrl-C stops kconform at a case boundary, not the worker mid-call
      ::signal(SIGTERM, SIG_DFL);
      // A fault kills the worker with its signal, which the parent reports
      // (no handler inherited from kconform, or a sanitizer's, turns it
      // into an exit status).
      for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
      serve(path_, sv[1]);
    }
    ::close(sv[1]);
    pid_ = pid;
    ch_ = std::make_unique<Channel>(sv[0]);
    ch_->set_timeout_ms(std::max(timeout_ms_, 30000));  // loading may take longer than one call
    try {
      hello_ = read_hello(*ch_);
    } catch (const std::exception&) {
      const std::string why = reap();
      throw UsageError(fmt::format("plug-in {}: the library did not load: it {}", path_, why));
    }
    ch_->set_timeout_ms(timeout_ms_);
    return hello_;
  }

  std::vector<Tensor> call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params) {
    ensure();
    try {
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
      return read_reply(kernel);
    } catch (const ChannelTimeout&) {
      ::kill(pid_, SIGKILL);
      reap();
      throw KernelFault("timeout", fmt::format("the call ran past the per-call time limit of {} s (--timeout); the "
                                               "worker was killed",
                                               timeout_ms_ / 1000.0));
    } catch (const ChannelClosed&) {
      const std::string why = reap();
      const std::string kind = why.find("SIGABRT") != std::string::npos ? "abort"
                               : why.find("killed by") != std::string::npos ? "crash"
                                                                           : "exit";
      throw KernelFault(kind, fmt::format("the kernel {}", why));
    }
  }

  // In a forked child: the inherited worker belongs to the parent. Its
  // socket is closed here (the parent keeps its own descriptor, so the
  // worker sees no EOF) and the next call forks this process's own.
  void forget() {
    ch_.reset();
    pid_ = -1;
  }

  void stop() {
    if (pid_ <= 0) return;
    ch_.reset();  // the worker reads EOF and exits
    int status = 0;
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      ::usleep(10000);
    }
    ::kill(pid_, SIGKILL);
    reap();
  }

 private:
  std::vector<Tensor> read_reply(std::string_view kernel) {
    const auto kind = ch_->get<Reply>();
    if (kind == Reply::fault) {
      // "kind: what happened", as the worker writes it.
      const std::string what = ch_->get_string();
      const auto colon = what.find(": ");
      if (colon == std::string::npos) throw KernelFault("exception", what);
      throw KernelFault(what.substr(0, colon), what.substr(colon + 2));
    }
    if (kind == Reply::status) {
      const auto st = ch_->get<std::int32_t>();
      const std::string operand = ch_->get_string(), message = ch_->get_string(), rule = ch_->get_string();
      if (st <= KC_OK || st > KC_ERR_OTHER)
        throw std::runtime_error(fmt::format("the kernel returned status {}, which is not a kc_status", st));
      throw KernelError(std::string(kernel), operand, rule.empty() ? kRules[st] : rule, message);
    }
    if (kind != Reply::outputs) throw ChannelClosed("malformed reply");
    const auto n = ch_->get<std::int32_t>();
    if (n < 0 || n > 64) throw ChannelClosed("malformed reply");
    std::vector<Tensor> out;
    for (std::int32_t i = 0; i < n; ++i) {
      const auto dt = ch_->get<std::int32_t>();
      const auto rank = ch_->get<std::int32_t>();
      if (dt < KC_F32 || dt > KC_U8 || rank < 0 || rank > 64) throw ChannelClosed("malformed reply");
      Dims dims;
      for (std::int32_t d = 0; d < rank; ++d) dims.push_back(ch_->get<std::int64_t>());
      out.push_back(Tensor::from_bytes_unchecked(static_cast<DType>(dt), std::move(dims), ch_->get_blob(std::size_t{1} << 34)));
    }
    return out;
  }

  // Waits for the worker; says how it ended ("crashed: killed by SIGSEGV").
  std::string reap() {
    ch_.reset();
    int status = 0;
    pid_t r;
    do r = ::waitpid(pid_, &status, 0);
    while (r < 0 && errno == EINTR);
    pid_ = -1;
    if (r < 0) return "ended (no status)";
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      return sig == SIGABRT ? "aborted (killed by SIGABRT)"
                            : fmt::format("crashed (killed by {})", signal_text(sig));
    }
    return fmt::format("exited with status {}", WEXITSTATUS(status));
  }

  std::string path_;
  int timeout_ms_;
  pid_t pid_ = -1;
  std::unique_ptr<Channel> ch_;
  Hello hello_;
};

class PluginBackend final : public Backend {
 public:
  PluginBackend(std::string path, double timeout_s)
      : path_(std::move(path)), worker_(path_, static_cast<int>(std::lround(timeout_s * 1000))) {
    const Hello& h = worker_.ensure();
    if (!h.error.empty()) throw UsageError(fmt::format("plug-in {}: {}", path_, h.error));
    for (const auto& k : h.kernels) {
      const contract::KernelSpec* spec = contract::find_kernel(k.name);
      if (!spec)
        throw UsageError(fmt::format("plug-in {}: it registers kernel '{}', which is not an inventory kernel (see "
                                     "`kconform list`)",
                                     path_, k.name));
      if (k.dtype < KC_F32 || k.dtype > KC_U8 || !spec->dtypes().contains(static_cast<DType>(k.dtype)))
        throw UsageError(fmt::format("plug-in {}: it registers '{}' for dtype {}, which the kernel's contract does "
                                     "not have ({})",
                                     path_, k.name, k.dtype >= KC_F32 && k.dtype <= KC_U8
                                                        ? std::string(dtype_name(static_cast<DType>(k.dtype)))
                                                        : fmt::format("#{}", k.dtype),
                                     spec->dtypes().to_string()));
      dtypes_[k.name].insert(static_cast<DType>(k.dtype));
      declared_[{k.name, k.dtype}] = {claim_name(k.claim_metric), k.claim_bound, k.expected_failure};
    }
    if (h.kernels.empty()) throw UsageError(fmt::format("plug-in {}: it registers no kernel", path_));
    library_ = {h.name, h.version, h.build_flags, path_};
  }

  std::string name() const override { return "plugin:" + path_; }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> inputs, const Params& params) const override {
    return worker_.call(kernel, inputs, params);
  }
  std::optional<DTypeSet> supported(std::string_view kernel) const override {
    const auto it = dtypes_.find(std::string(kernel));
    if (it == dtypes_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<Library> library() const override { return library_; }
  void after_fork() override { worker_.forget(); }
  Declared declared(std::string_view kernel, DType t) const override {
    const auto it = declared_.find({std::string(kernel), static_cast<std::int32_t>(t)});
    return it == declared_.end() ? Declared{} : it->second;
  }

 private:
  std::string path_;
  mutable Worker worker_;
  std::map<std::string, DTypeSet> dtypes_;
  std::map<std::pair<std::string, std::int32_t>, Declared> declared_;
  Library library_;
};

}  // namespace

std::unique_ptr<Backend> make_plugin_backend(const std::string& path, double timeout_s) {
  return std::make_unique<PluginBackend>(path, timeout_s);
}

}  // namespace kc::plugin
