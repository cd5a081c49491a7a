// Loading a plug-in and reading what it registers, in the worker: every
// pointer the plug-in hands over is read through process_vm_readv on this
// very process, so that a bad one (a kernel count larger than its array, a
// name that is not a string) is a message naming the entry, never a crash
// of the worker; every string is read up to its cap (protocol.h) with a
// note when cut. What the entries mean is judged in kconform
// (plugin_backend.cpp).
#include "backends/plugin/registration.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

namespace kc::plugin {

namespace {

// Copies n bytes at p, or returns false where any of them is unreadable.
bool safe_read(const void* p, void* out, std::size_t n) {
  if (n == 0) return true;
  if (!p) return false;
  iovec local{out, n}, remote{const_cast<void*>(p), n};
  return ::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) == static_cast<ssize_t>(n);
}

// The string at p, up to `cap` bytes (then cut, with a note); nullopt when
// it cannot be read at all. NULL reads as "".
std::optional<std::string> safe_string(const char* p, std::size_t cap, const std::string& field,
                                       std::vector<std::string>& notes) {
  if (!p) return std::string();
  std::string s;
  char chunk[256];
  while (true) {
    // A chunk may end past the string's last page: read byte by byte there.
    std::size_t got = 0;
    if (safe_read(p + s.size(), chunk, sizeof chunk)) got = sizeof chunk;
    else
      while (got < sizeof chunk && safe_read(p + s.size() + got, chunk + got, 1) && chunk[got] != '\0') ++got;
    const void* nul = std::memchr(chunk, '\0', got);
    const std::size_t take = nul ? static_cast<std::size_t>(static_cast<const char*>(nul) - chunk) : got;
    s.append(chunk, take);
    if (nul) break;
    if (got == 0) return s.empty() ? std::nullopt : std::optional<std::string>(s);  // unterminated, unreadable after
    if (s.size() > cap) {
      // Count on up to 64 MiB to say how long it was (a runaway string stops there).
      std::size_t total = s.size();
      while (total < (std::size_t{64} << 20)) {
        if (safe_read(p + total, chunk, sizeof chunk)) {
          const void* end = std::memchr(chunk, '\0', sizeof chunk);
          if (end) {
            total += static_cast<std::size_t>(static_cast<const char*>(end) - chunk);
            break;
          }
          total += sizeof chunk;
        } else if (safe_read(p + total, chunk, 1) && chunk[0] != '\0') {
          ++total;
        } else {
          break;
        }
      }
      notes.push_back(fmt::format("{}: {}{} bytes long, cut to the first {}", field, total >= (std::size_t{64} << 20) ? "over " : "",
                                  total, cap));
      s.resize(cap);
      break;
    }
  }
  return s;
}

const char* dtype_text(std::int32_t d) {
  static const char* names[] = {"f32", "f64", "bf16", "f16", "u32", "u8"};
  return d >= 0 && d < 6 ? names[d] : "?";
}

// OpenMP's threads spin between parallel regions by default: on a machine
// whose cores kconform's own grading shares (-j N workers, each with a
// pool as wide as the machine), spinning pools took the cores from each
// other and from the grading (a oneDNN run: 3.5 s, 0.65 s with passive
// waits). Passive waiting changes when a pool's threads sleep, never what
// they compute; a policy the environment sets is kept.
void prefer_passive_omp_waits(Hello& h) {
  if (!std::getenv("OMP_WAIT_POLICY")) {
    ::setenv("OMP_WAIT_POLICY", "passive", 0);
    h.notes.push_back("OMP_WAIT_POLICY=passive (kconform's default for workers; set it to choose another)");
  }
}

// Loads the library at path and calls its registration function into
// info; false (h.error set) where it cannot be loaded, exports none, or
// speaks an ABI version this kconform does not.
bool call_register(const std::string& path, kc_plugin_info& info, Hello& h) {
  void* lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    h.error = fmt::format("cannot load it: {}", ::dlerror());
    return false;
  }
  auto* reg = reinterpret_cast<kc_plugin_register_fn>(::dlsym(lib, KC_PLUGIN_REGISTER_SYMBOL));
  if (!reg) {
    h.error = fmt::format("it does not export {} (see include/kconform/plugin.h)", KC_PLUGIN_REGISTER_SYMBOL);
    return false;
  }
  const int v = reg(&info);
  if (v < KC_PLUGIN_ABI_OLDEST || v > KC_PLUGIN_ABI_VERSION) {
    h.error = fmt::format("it was built for plug-in ABI version {}; this kconform speaks versions {} to {}", v,
                          KC_PLUGIN_ABI_OLDEST, KC_PLUGIN_ABI_VERSION);
    return false;
  }
  return true;
}

// Kernel entry i of info into h.kernels; false (h.error set) where it is
// past the cap, unreadable, nameless or without an entry point.
bool read_kernel_entry(const kc_plugin_info& info, std::int32_t i, Hello& h) {
  // (Past the cap, only if every entry so far was sound: then the count
  // is likely true, and too large.)
  if (i == kMaxKernelEntries) {
    h.error = fmt::format("its kc_plugin_info says n_kernels = {}; kconform grades at most {} entries", info.n_kernels,
                          kMaxKernelEntries);
    return false;
  }
  kc_kernel k;
  // An entry beyond the array's end: unreadable memory, or garbage that
  // fails the checks below; both say the count may be the cause.
  const std::string count = fmt::format("(is n_kernels = {} larger than the kernels array?)", info.n_kernels);
  if (!safe_read(info.kernels + i, &k, sizeof k)) {
    h.error = fmt::format("kernel entry {} of {} is not readable memory {}", i, info.n_kernels, count);
    return false;
  }
  const auto name = safe_string(k.name, kNameCap, fmt::format("kernel entry {}'s name", i), h.notes);
  if (!name || name->empty()) {
    h.error = fmt::format("kernel entry {} of {} has {} name {}", i, info.n_kernels, name ? "an empty" : "an unreadable",
                          count);
    return false;
  }
  if (!k.fn) {
    h.error = fmt::format("kernel entry {} ('{}' {}) has no entry point", i, *name, dtype_text(k.dtype));
    return false;
  }
  KernelEntry e;
  e.name = *name;
  e.dtype = k.dtype;
  e.claim_metric = static_cast<std::int32_t>(k.claim);
  e.claim_bound = k.claim_bound;
  const auto reason = safe_string(k.expected_failure, kTextCap, fmt::format("{} {}'s expected-failure reason", *name,
                                                                            dtype_text(k.dtype)),
                                  h.notes);
  if (!reason) {
    h.error = fmt::format("kernel entry {} ('{}')'s expected-failure reason is not a readable string {}", i, *name, count);
    return false;
  }
  e.expected_failure = *reason;
  h.kernels.push_back(std::move(e));
  return true;
}

}  // namespace

Hello load_and_register(const std::string& path, kc_plugin_info& info) {
  Hello h;
  prefer_passive_omp_waits(h);
  if (!call_register(path, info, h)) return h;
  auto text = [&](const char* p, std::size_t cap, const std::string& field) {
    auto s = safe_string(p, cap, field, h.notes);
    if (!s && h.error.empty()) h.error = fmt::format("its {} is not a readable string", field);
    return s.value_or("");
  };
  h.name = text(info.name, kNameCap, "library name");
  h.version = text(info.version, kNameCap, "version");
  h.build_flags = text(info.build_flags, kTextCap, "build flags");
  if (!h.error.empty()) return h;
  if (info.n_kernels < 0) {
    h.error = fmt::format("its kc_plugin_info says n_kernels = {}, which is not a count", info.n_kernels);
    return h;
  }
  if (info.n_kernels > 0 && !info.kernels) {
    h.error = fmt::format("its kc_plugin_info says n_kernels = {} but its kernels array is NULL", info.n_kernels);
    return h;
  }
  for (std::int32_t i = 0; i < info.n_kernels; ++i)
    if (!read_kernel_entry(info, i, h)) return h;
  return h;
}

}  // namespace kc::plugin
