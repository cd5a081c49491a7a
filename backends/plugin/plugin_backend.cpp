// The parent side of a plug-in backend: checks what the library registers
// (every entry an inventory kernel and one of its contract's dtypes, no
// entry twice, claims in a known metric), repairs its text, and turns each
// call's reply into outputs, a KernelError (a precondition rule from the
// fixed list) or a KernelFault (crash, abort, exception, hang, a stray
// read or write, ...), keeping what the call left behind for the engine
// (take_call_log). Calls alternate the buffers' placement by the call's
// content, so that a replay of a case lays it out as the run did.
#include "backends/plugin/plugin_backend.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "backends/plugin/hygiene.h"
#include "backends/plugin/worker_process.h"
#include "contracts/contract.h"
#include "core/error.h"
#include "core/utf8.h"
#include "kconform/plugin.h"

namespace kc::plugin {

namespace {

static_assert(static_cast<int>(DType::f32) == KC_F32 && static_cast<int>(DType::f64) == KC_F64 &&
              static_cast<int>(DType::bf16) == KC_BF16 && static_cast<int>(DType::f16) == KC_F16 &&
              static_cast<int>(DType::u32) == KC_U32 && static_cast<int>(DType::u8) == KC_U8);

// The rule of each kc_status (KC_OK, 0, raises none: a placeholder).
constexpr Rule kStatusRules[] = {Rule::other,          Rule::arity,          Rule::shape_negative_dim,
                                 Rule::buffer_size,    Rule::dtype_unsupported, Rule::dtype_mismatch,
                                 Rule::shape_mismatch, Rule::param_missing,  Rule::param_type,
                                 Rule::param_domain,   Rule::dim_out_of_range, Rule::dim_empty,
                                 Rule::broadcast_incompatible, Rule::target_rank, Rule::target_incompatible,
                                 Rule::other};
static_assert(std::size(kStatusRules) == KC_ERR_OTHER + 1);
constexpr std::string_view kStatusNames[] = {
    "KC_OK", "KC_ERR_ARITY", "KC_ERR_SHAPE_NEGATIVE_DIM", "KC_ERR_BUFFER_SIZE", "KC_ERR_DTYPE_UNSUPPORTED",
    "KC_ERR_DTYPE_MISMATCH", "KC_ERR_SHAPE_MISMATCH", "KC_ERR_PARAM_MISSING", "KC_ERR_PARAM_TYPE",
    "KC_ERR_PARAM_DOMAIN", "KC_ERR_DIM_OUT_OF_RANGE", "KC_ERR_DIM_EMPTY", "KC_ERR_BROADCAST_INCOMPATIBLE",
    "KC_ERR_TARGET_RANK", "KC_ERR_TARGET_INCOMPATIBLE", "KC_ERR_OTHER"};
static_assert(std::size(kStatusNames) == std::size(kStatusRules));

const char* claim_name(std::int32_t m) {
  switch (m) {
    case KC_CLAIM_FRAC_ULP: return "frac_ulp";
    case KC_CLAIM_DISTANCE: return "distance";
    case KC_CLAIM_RELATIVE: return "relative";
    case KC_CLAIM_ABSOLUTE: return "absolute";
    default: return "";
  }
}

std::string dtype_text(std::int32_t d) {
  return d >= KC_F32 && d <= KC_U8 ? std::string(dtype_name(static_cast<DType>(d))) : fmt::format("#{}", d);
}

// Text from the worker, fit to write; what was done to it is noted in
// `notes`, or, without, said in the text itself.
std::string repaired(const std::string& s, const std::string& field, std::vector<std::string>* notes = nullptr) {
  RepairedText r = repair_utf8(s);
  if (r.replaced && notes) notes->push_back(r.note(field));
  if (r.replaced && !notes) r.text += " [kconform replaced bytes that are not UTF-8 by U+FFFD]";
  return std::move(r.text);
}

// FNV-1a over the call (the kernel, each input's dims and first 256
// bytes: a sweep's block has 16 MiB): the placement it gets (tail or
// head), the same in every run and replay of the case.
std::uint64_t call_hash(std::string_view kernel, std::span<const Tensor> inputs) {
  std::uint64_t h = 1469598103934665603ull;
  auto add = [&](const void* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
  };
  add(kernel.data(), kernel.size());
  for (const Tensor& t : inputs) {
    for (auto d : t.dims()) add(&d, sizeof d);
    add(t.bytes(), std::min<std::size_t>(t.byte_size(), 256));
  }
  return h;
}

Limits limits_of(const IsolationOptions& o) {
  auto ms = [](double s) { return static_cast<int>(std::min(std::lround(s * 1000), 86'400'000l)); };
  return {.call_ms = ms(o.timeout_s),
          .load_ms = ms(o.load_timeout_s),
          .max_calls = o.worker_calls,
          .max_resident = o.worker_memory_mb << 20,
          .max_output = o.max_output_mb << 20,
          .settle_us = static_cast<int>(std::lround(o.settle_ms * 1000)),
          .alignment = o.align};
}

class PluginBackend final : public Backend {
 public:
  PluginBackend(std::string path, const IsolationOptions& o)
      : path_(std::move(path)), limits_(limits_of(o)), worker_(path_, limits_) {
    const Hello& h = worker_.start();
    if (!h.error.empty()) throw UsageError(fmt::format("plug-in {}: {}", path_, repaired(h.error, "error")));
    library_.path = path_;
    library_.name = repaired(h.name, "library name", &library_.notes);
    library_.version = repaired(h.version, "version", &library_.notes);
    library_.build_flags = repaired(h.build_flags, "build flags", &library_.notes);
    for (const auto& n : h.notes) library_.notes.push_back(repaired(n, "note"));
    std::map<std::pair<std::string, std::int32_t>, std::size_t> seen;
    for (std::size_t i = 0; i < h.kernels.size(); ++i) check_entry(h.kernels[i], i, seen);
    if (h.kernels.empty()) throw UsageError(fmt::format("plug-in {}: it registers no kernel", path_));
    // Each result starts in a fresh runner (a copy of the zygote that loaded the library): this one only vouched for it.
    worker_.end();
  }

  std::string name() const override { return "plugin:" + path_; }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> inputs, const Params& params) const override {
    return call(kernel, inputs, params);
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
  CallLog take_call_log() const override { return std::exchange(log_, {}); }
  std::vector<std::string> call_checks() const override { return {kFpEnvironmentCheck, kLeftoverCheck, kUnwrittenCheck}; }
  void fresh_process() const override { worker_.end(); }

 private:
  void check_entry(const KernelEntry& k, std::size_t i, std::map<std::pair<std::string, std::int32_t>, std::size_t>& seen) {
    const std::string name = repaired(k.name, "kernel name");
    const contract::KernelSpec* spec = contract::find_kernel(name);
    if (!spec)
      throw UsageError(fmt::format("plug-in {}: it registers kernel '{}', which is not an inventory kernel (see "
                                   "`kconform list`)",
                                   path_, name));
    if (k.dtype < KC_F32 || k.dtype > KC_U8 || !spec->dtypes().contains(static_cast<DType>(k.dtype)))
      throw UsageError(fmt::format("plug-in {}: it registers '{}' for dtype {}, which the kernel's contract does not "
                                   "have ({})",
                                   path_, name, dtype_text(k.dtype), spec->dtypes().to_string()));
    if (const auto [at, fresh] = seen.emplace(std::pair{name, k.dtype}, i); !fresh)
      throw UsageError(fmt::format("plug-in {}: it registers {} {} twice (kernel entries {} and {}); each kernel x dtype "
                                   "may have one entry",
                                   path_, name, dtype_text(k.dtype), at->second, i));
    if (k.claim_metric < KC_CLAIM_NONE || k.claim_metric > KC_CLAIM_ABSOLUTE)
      throw UsageError(fmt::format("plug-in {}: kernel entry {} ({} {}) claims metric {}, which is not a kc_claim_metric "
                                   "(0 none, 1 frac_ulp, 2 distance, 3 relative, 4 absolute)",
                                   path_, i, name, dtype_text(k.dtype), k.claim_metric));
    if (k.claim_metric != KC_CLAIM_NONE && !(k.claim_bound >= 0 && std::isfinite(k.claim_bound)))
      throw UsageError(fmt::format("plug-in {}: kernel entry {} ({} {}) claims {} <= {}, which is not a bound (a finite "
                                   "number >= 0)",
                                   path_, i, name, dtype_text(k.dtype), claim_name(k.claim_metric), k.claim_bound));
    dtypes_[name].insert(static_cast<DType>(k.dtype));
    declared_[{name, k.dtype}] = {claim_name(k.claim_metric), k.claim_bound,
                                  repaired(k.expected_failure, fmt::format("{} {}'s expected-failure reason", name,
                                                                           dtype_text(k.dtype)),
                                           &library_.notes)};
  }

  // "input 'x'", "the output", "output 1": the operand a fault touched.
  static std::string operand_text(std::string_view kernel, Role role, std::int32_t index) {
    const contract::KernelSpec* spec = contract::find_kernel(kernel);
    if (role == Role::input) {
      if (spec && index >= 0 && static_cast<std::size_t>(index) < spec->inputs.size())
        return fmt::format("input '{}'", spec->inputs[static_cast<std::size_t>(index)].name);
      return fmt::format("input {}", index);
    }
    if (role == Role::output) return fmt::format("output {}", index);
    return "a buffer";
  }

  // (The same call is laid out the same way every time: a kernel whose
  // bits depend on its buffers' alignment, as a vectorized reduction's may,
  // is not taken for a nondeterministic one.)
  std::vector<Tensor> call(std::string_view kernel, std::span<const Tensor> inputs, const Params& params) const {
    CallSetup setup;
    setup.placement = (call_hash(kernel, inputs) & 1) != 0 ? Placement::head : Placement::tail;
    setup.max_output_bytes = limits_.max_output;
    setup.settle_us = limits_.settle_us;
    setup.alignment = limits_.alignment;
    CallReply r = worker_.call(kernel, inputs, params, setup);
    keep(r.after);
    if (r.kind == Reply::fault) {
      std::string what = repaired(r.fault.what, "fault");
      if (const auto at = what.find("{operand}"); at != std::string::npos)
        what.replace(at, 9, operand_text(kernel, r.fault.role, r.fault.index));
      throw KernelFault(repaired(r.fault.kind, "fault kind"), what);
    }
    if (r.kind == Reply::status) {
      if (r.status <= KC_OK || r.status > KC_ERR_OTHER)
        throw KernelFault("exception", fmt::format("the kernel returned status {}, which is not a kc_status", r.status));
      // (the rule's text is parsed here, at the ABI: a name kconform does not know is kept as it is)
      const std::string rule = repaired(r.rule, "rule");
      std::string operand = repaired(r.operand, "operand"), message = repaired(r.message, "message");
      if (rule.empty()) throw KernelError(std::string(kernel), std::move(operand), kStatusRules[r.status], std::move(message));
      throw KernelError::from_text(std::string(kernel), std::move(operand), rule, std::move(message));
    }
    return std::move(r.outputs);
  }

  void keep(const Aftermath& a) const {
    for (const auto& [check, what] : a.notes) log_.notes.push_back({repaired(check, "check"), repaired(what, "note")});
    if (a.printed_bytes > 0) {
      if (log_.printed.size() < kPrintedCap) log_.printed += repair_utf8(a.printed, kPrintedCap - log_.printed.size()).text;
      log_.printed_bytes += a.printed_bytes;
    }
  }

  std::string path_;
  Limits limits_;
  mutable WorkerProcess worker_;
  std::map<std::string, DTypeSet> dtypes_;
  std::map<std::pair<std::string, std::int32_t>, Declared> declared_;
  Library library_;
  mutable CallLog log_;
};

}  // namespace

std::optional<std::string_view> status_for_rule(Rule rule) {
  for (std::size_t s = KC_ERR_ARITY; s < KC_ERR_OTHER; ++s)
    if (kStatusRules[s] == rule) return kStatusNames[s];
  return std::nullopt;
}

std::unique_ptr<Backend> make_plugin_backend(const std::string& path, const IsolationOptions& isolation) {
  return std::make_unique<PluginBackend>(path, isolation);
}

}  // namespace kc::plugin
