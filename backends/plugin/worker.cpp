// The worker process: everything that touches the plug-in's code runs here,
// so that whatever it does to its own process (a segfault, abort, a hang,
// a stray write) stays here. Inputs and outputs sit between guard bytes;
// a changed guard or input is reported as a fault of the call.
#include "backends/plugin/worker.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "core/dtype.h"
#include "kconform/plugin.h"

namespace kc::plugin {

void write_hello(Channel& ch, const Hello& h) {
  ch.put_string(h.error);
  if (!h.error.empty()) return;
  ch.put_string(h.name);
  ch.put_string(h.version);
  ch.put_string(h.build_flags);
  ch.put<std::uint32_t>(static_cast<std::uint32_t>(h.kernels.size()));
  for (const auto& k : h.kernels) {
    ch.put_string(k.name);
    ch.put(k.dtype);
    ch.put(k.claim_metric);
    ch.put(k.claim_bound);
    ch.put_string(k.expected_failure);
  }
}

Hello read_hello(Channel& ch) {
  Hello h;
  h.error = ch.get_string();
  if (!h.error.empty()) return h;
  h.name = ch.get_string();
  h.version = ch.get_string();
  h.build_flags = ch.get_string();
  const auto n = ch.get<std::uint32_t>();
  if (n > 100000) throw ChannelClosed("the worker sent a malformed kernel list");
  for (std::uint32_t i = 0; i < n; ++i) {
    KernelEntry k;
    k.name = ch.get_string();
    k.dtype = ch.get<std::int32_t>();
    k.claim_metric = ch.get<std::int32_t>();
    k.claim_bound = ch.get<double>();
    k.expected_failure = ch.get_string();
    h.kernels.push_back(std::move(k));
  }
  return h;
}

namespace {

constexpr std::size_t kGuard = 64;
constexpr auto kGuardByte = std::byte{0xA5};

// A buffer with guard bytes on both sides.
struct Guarded {
  std::vector<std::byte> storage;
  std::size_t size = 0;
  explicit Guarded(std::size_t n) : storage(n + 2 * kGuard, kGuardByte), size(n) {}
  std::byte* data() { return storage.data() + kGuard; }
  bool intact() const {
    for (std::size_t i = 0; i < kGuard; ++i)
      if (storage[i] != kGuardByte || storage[kGuard + size + i] != kGuardByte) return false;
    return true;
  }
};

struct OutputBuffer {
  kc_dtype dtype;
  std::vector<std::int64_t> dims;
  Guarded buf;
};

struct Outputs {
  std::vector<OutputBuffer> list;
  bool bad_request = false;
};

void* alloc_output(void* ctx, kc_dtype dtype, std::int32_t rank, const std::int64_t* dims) {
  auto* out = static_cast<Outputs*>(ctx);
  if (dtype < KC_F32 || dtype > KC_U8 || rank < 0 || rank > 16 || (rank > 0 && !dims)) {
    out->bad_request = true;
    return nullptr;
  }
  std::int64_t n = 1;
  for (int i = 0; i < rank; ++i) {
    if (dims[i] < 0 || (dims[i] > 0 && n > (std::int64_t{1} << 40) / dims[i])) {
      out->bad_request = true;
      return nullptr;
    }
    n *= dims[i];
  }
  const std::size_t bytes = static_cast<std::size_t>(n) * dtype_size(static_cast<DType>(dtype));
  out->list.push_back({dtype, std::vector<std::int64_t>(dims, dims + rank), Guarded(bytes)});
  return out->list.back().buf.data();
}

void fault(Channel& ch, const std::string& what) {
  ch.put(Reply::fault);
  ch.put_string(what);
}

void answer_call(Channel& ch, const kc_plugin_info& info) {
  const std::string kernel = ch.get_string(4096);
  const auto n_in = ch.get<std::int32_t>();
  if (n_in < 0 || n_in > 64) _exit(3);
  std::vector<std::vector<std::int64_t>> dims(static_cast<std::size_t>(n_in));
  std::vector<std::vector<std::byte>> original(static_cast<std::size_t>(n_in));
  std::vector<Guarded> data;
  std::vector<kc_tensor> in(static_cast<std::size_t>(n_in));
  for (std::int32_t i = 0; i < n_in; ++i) {
    auto& t = in[static_cast<std::size_t>(i)];
    t.dtype = static_cast<kc_dtype>(ch.get<std::int32_t>());
    t.rank = ch.get<std::int32_t>();
    if (t.rank < 0 || t.rank > 64) _exit(3);
    for (std::int32_t d = 0; d < t.rank; ++d) dims[static_cast<std::size_t>(i)].push_back(ch.get<std::int64_t>());
    original[static_cast<std::size_t>(i)] = ch.get_blob(std::size_t{1} << 34);
    t.bytes = original[static_cast<std::size_t>(i)].size();
  }
  data.reserve(static_cast<std::size_t>(n_in));
  for (std::int32_t i = 0; i < n_in; ++i) {
    const auto& o = original[static_cast<std::size_t>(i)];
    data.emplace_back(o.size());
    if (!o.empty()) std::memcpy(data.back().data(), o.data(), o.size());  // (an empty vector's data() may be null)
    in[static_cast<std::size_t>(i)].data = data.back().data();
    in[static_cast<std::size_t>(i)].dims = dims[static_cast<std::size_t>(i)].data();
  }
  const auto n_par = ch.get<std::int32_t>();
  if (n_par < 0 || n_par > 64) _exit(3);
  std::vector<std::string> names(static_cast<std::size_t>(n_par));
  std::vector<std::vector<std::int64_t>> pdims(static_cast<std::size_t>(n_par));
  std::vector<kc_param> params(static_cast<std::size_t>(n_par));
  for (std::int32_t i = 0; i < n_par; ++i) {
    const auto u = static_cast<std::size_t>(i);
    names[u] = ch.get_string(4096);
    params[u].kind = static_cast<kc_param_kind>(ch.get<std::int32_t>());
    params[u].integer = ch.get<std::int64_t>();
    params[u].real = ch.get<double>();
    params[u].rank = ch.get<std::int32_t>();
    if (params[u].rank < 0 || params[u].rank > 64) _exit(3);
    for (std::int32_t d = 0; d < params[u].rank; ++d) pdims[u].push_back(ch.get<std::int64_t>());
  }
  for (std::int32_t i = 0; i < n_par; ++i) {
    params[static_cast<std::size_t>(i)].name = names[static_cast<std::size_t>(i)].c_str();
    params[static_cast<std::size_t>(i)].dims = pdims[static_cast<std::size_t>(i)].data();
  }
  // The entry for the first input's dtype, else any entry of that name
  // (a bad-input call may pass a dtype the library does not list).
  const kc_kernel* entry = nullptr;
  for (std::int32_t i = 0; i < info.n_kernels; ++i) {
    const kc_kernel& k = info.kernels[i];
    if (kernel != k.name) continue;
    if (!entry || (n_in > 0 && k.dtype == in[0].dtype)) entry = &k;
  }
  if (!entry || !entry->fn) return fault(ch, fmt::format("the plug-in has no entry point for '{}'", kernel));
  Outputs outs;
  kc_error err{};
  kc_status st = KC_ERR_OTHER;
  try {
    st = entry->fn(in.data(), n_in, params.data(), n_par, alloc_output, &outs, &err);
  } catch (const std::exception& e) {
    return fault(ch, fmt::format("exception: an exception escaped the kernel: {}", e.what()));
  } catch (...) {
    return fault(ch, "exception: an exception escaped the kernel");
  }
  for (std::int32_t i = 0; i < n_in; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (!data[u].intact()) return fault(ch, fmt::format("out-of-bounds write: the kernel wrote outside input {}", i));
    if (!original[u].empty() && std::memcmp(data[u].data(), original[u].data(), original[u].size()) != 0)
      return fault(ch, fmt::format("input modified: the kernel wrote into input {}, which is read-only", i));
  }
  for (std::size_t o = 0; o < outs.list.size(); ++o)
    if (!outs.list[o].buf.intact())
      return fault(ch, fmt::format("out-of-bounds write: the kernel wrote outside output {} ({} bytes)", o,
                                   outs.list[o].buf.size));
  if (st != KC_OK) {
    err.operand[sizeof err.operand - 1] = '\0';
    err.message[sizeof err.message - 1] = '\0';
    err.rule[sizeof err.rule - 1] = '\0';
    ch.put(Reply::status);
    ch.put<std::int32_t>(st);
    ch.put_string(err.operand);
    ch.put_string(err.message);
    ch.put_string(err.rule);
    return;
  }
  if (outs.bad_request) return fault(ch, "exception: the kernel asked alloc_output for an impossible output");
  ch.put(Reply::outputs);
  ch.put<std::int32_t>(static_cast<std::int32_t>(outs.list.size()));
  for (auto& o : outs.list) {
    ch.put<std::int32_t>(o.dtype);
    ch.put<std::int32_t>(static_cast<std::int32_t>(o.dims.size()));
    for (auto d : o.dims) ch.put(d);
    ch.put_blob(std::span<const std::byte>(o.buf.data(), o.buf.size));
  }
}

}  // namespace

void serve(const std::string& path, int fd) {
  Channel ch(fd);
  Hello hello;
  kc_plugin_info info{};
  try {
    void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      hello.error = fmt::format("cannot load it: {}", ::dlerror());
    } else if (auto* reg = reinterpret_cast<kc_plugin_register_fn>(::dlsym(lib, KC_PLUGIN_REGISTER_SYMBOL)); !reg) {
      hello.error = fmt::format("it does not export {} (see include/kconform/plugin.h)", KC_PLUGIN_REGISTER_SYMBOL);
    } else if (const int v = reg(&info); v < KC_PLUGIN_ABI_OLDEST || v > KC_PLUGIN_ABI_VERSION) {
      hello.error = fmt::format("it was built for plug-in ABI version {}; this kconform speaks versions {} to {}", v,
                                KC_PLUGIN_ABI_OLDEST, KC_PLUGIN_ABI_VERSION);
    } else if (info.n_kernels < 0 || (info.n_kernels > 0 && !info.kernels)) {
      hello.error = "its kc_plugin_info lists no kernels array";
    } else {
      hello.name = info.name ? info.name : "";
      hello.version = info.version ? info.version : "";
      hello.build_flags = info.build_flags ? info.build_flags : "";
      for (std::int32_t i = 0; i < info.n_kernels; ++i) {
        const kc_kernel& k = info.kernels[i];
        hello.kernels.push_back({k.name ? k.name : "", k.dtype, k.claim, k.claim_bound,
                                 k.expected_failure ? k.expected_failure : ""});
        if (!k.fn) hello.error = fmt::format("kernel '{}' has no entry point", k.name ? k.name : "");
      }
    }
    write_hello(ch, hello);
    if (!hello.error.empty()) _exit(0);
    while (true) {
      try {
        answer_call(ch, info);
      } catch (const ChannelClosed&) {
        _exit(0);
      }
    }
  } catch (...) {
    _exit(4);
  }
}

}  // namespace kc::plugin
