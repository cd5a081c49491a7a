// libtorch 1.13 (CPU) graded as a kernel library: every kernel of the
// inventory's ported families that has a torch operator, for each dtype of
// f32, f64, bf16 and f16 that torch's CPU build implements it for (probed at
// load time: a kernel x dtype torch refuses is not declared). No claims:
// torch documents no ulp bound.
//
// Kernel -> operator: neg, relu, square (sqr), sqrt, exp, sign, log, sin,
// cos, abs, reciprocal (recip), tanh, floor, ceil, erf, gelu(approximate
// "none") (gelu_erf), round, sigmoid, silu, gelu(approximate "tanh") (gelu),
// rsqrt, pow(x, int n) (powi), add(x, c), mul(x, c), clamp(x, min, max);
// add, sub, mul, div, maximum, minimum, remainder (rem), pow; the broadcast_*
// four with torch's broadcasting; sum, amax, amin, mean over all elements and
// over `dim`; argmax, argmin (int64 indices, written as the contract's u32);
// sum_to_size (reduce_sum_to); expand (broadcast_to); Tensor::to (casts
// between f32, f64, bf16 and f16; torch 1.13 has no u32).
//
// torch reports a broken precondition as a c10::Error string, so the adapter
// checks each contract precondition itself and answers in the contract's
// terms (status and operand); a torch exception on a call it accepted is a
// failure of the call (KC_ERR_OTHER, with torch's message). Where torch has
// no answer the contract has (max/min of an empty tensor or an empty axis:
// -inf/+inf), the adapter supplies it; those cases grade the adapter.
#include <torch/torch.h>

#include <cstring>
#include <array>
#include <functional>
#include <optional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "adapters/adapter.h"
}

#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif

namespace {

enum class Shape { unary, same, broadcast, all, dim, sum_to, expand, cast };

struct Args {
  std::vector<torch::Tensor> in;
  const kc_param* p;
  int32_t np;
  const kc_param* get(const char* name) const {
    for (int32_t i = 0; i < np; ++i)
      if (std::strcmp(p[i].name, name) == 0) return &p[i];
    return nullptr;
  }
  double real(const char* n) const { return get(n)->real; }
  int64_t integer(const char* n) const { return get(n)->integer; }
  std::vector<int64_t> shape(const char* n) const { return {get(n)->dims, get(n)->dims + get(n)->rank}; }
};

using Op = std::function<torch::Tensor(const Args&)>;

struct Kernel {
  const char* name;
  Shape shape;
  Op op;
  std::vector<std::pair<const char*, kc_param_kind>> params;
  kc_dtype out = KC_F32;  // casts and arg-reductions: the output dtype (else the input's)
  bool fixed_out = false;
  std::vector<kc_dtype> dtypes = {KC_F32, KC_F64, KC_BF16, KC_F16};
};

torch::ScalarType st(kc_dtype t) {
  switch (t) {
    case KC_F32: return torch::kFloat32;
    case KC_F64: return torch::kFloat64;
    case KC_BF16: return torch::kBFloat16;
    case KC_F16: return torch::kFloat16;
    default: return torch::kUInt8;
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// Max or min over an axis, where torch refuses an empty one.
torch::Tensor extremum(const torch::Tensor& x, std::optional<int64_t> dim, bool max) {
  if (!dim) return x.numel() == 0 ? torch::full({}, max ? -kInf : kInf, x.options()) : (max ? x.max() : x.min());
  if (x.size(*dim) == 0) {
    auto s = x.sizes().vec();
    s.erase(s.begin() + *dim);
    return torch::full(s, max ? -kInf : kInf, x.options());
  }
  return max ? torch::amax(x, {*dim}) : torch::amin(x, {*dim});
}

const std::vector<Kernel>& kernels() {
  using K = Kernel;
  using A = const Args&;
  static const std::vector<Kernel> ks = {
      K{"neg", Shape::unary, [](A a) { return torch::neg(a.in[0]); }},
      K{"relu", Shape::unary, [](A a) { return torch::relu(a.in[0]); }},
      K{"sqr", Shape::unary, [](A a) { return torch::square(a.in[0]); }},
      K{"sqrt", Shape::unary, [](A a) { return torch::sqrt(a.in[0]); }},
      K{"exp", Shape::unary, [](A a) { return torch::exp(a.in[0]); }},
      K{"sign", Shape::unary, [](A a) { return torch::sign(a.in[0]); }},
      K{"log", Shape::unary, [](A a) { return torch::log(a.in[0]); }},
      K{"sin", Shape::unary, [](A a) { return torch::sin(a.in[0]); }},
      K{"cos", Shape::unary, [](A a) { return torch::cos(a.in[0]); }},
      K{"abs", Shape::unary, [](A a) { return torch::abs(a.in[0]); }},
      K{"recip", Shape::unary, [](A a) { return torch::reciprocal(a.in[0]); }},
      K{"tanh", Shape::unary, [](A a) { return torch::tanh(a.in[0]); }},
      K{"floor", Shape::unary, [](A a) { return torch::floor(a.in[0]); }},
      K{"ceil", Shape::unary, [](A a) { return torch::ceil(a.in[0]); }},
      K{"erf", Shape::unary, [](A a) { return torch::erf(a.in[0]); }},
      K{"gelu_erf", Shape::unary, [](A a) { return torch::gelu(a.in[0], "none"); }},
      K{"round", Shape::unary, [](A a) { return torch::round(a.in[0]); }},
      K{"sigmoid", Shape::unary, [](A a) { return torch::sigmoid(a.in[0]); }},
      K{"silu", Shape::unary, [](A a) { return torch::silu(a.in[0]); }},
      K{"gelu", Shape::unary, [](A a) { return torch::gelu(a.in[0], "tanh"); }},
      K{"rsqrt", Shape::unary, [](A a) { return torch::rsqrt(a.in[0]); }},
      K{"powi", Shape::unary, [](A a) { return torch::pow(a.in[0], a.integer("n")); }, {{"n", KC_PARAM_INT}}},
      K{"add_scalar", Shape::unary, [](A a) { return torch::add(a.in[0], a.real("c")); }, {{"c", KC_PARAM_REAL}}},
      K{"mul_scalar", Shape::unary, [](A a) { return torch::mul(a.in[0], a.real("c")); }, {{"c", KC_PARAM_REAL}}},
      K{"clamp", Shape::unary, [](A a) { return torch::clamp(a.in[0], a.real("min"), a.real("max")); },
        {{"min", KC_PARAM_REAL}, {"max", KC_PARAM_REAL}}},
      K{"add", Shape::same, [](A a) { return torch::add(a.in[0], a.in[1]); }},
      K{"sub", Shape::same, [](A a) { return torch::sub(a.in[0], a.in[1]); }},
      K{"mul", Shape::same, [](A a) { return torch::mul(a.in[0], a.in[1]); }},
      K{"div", Shape::same, [](A a) { return torch::div(a.in[0], a.in[1]); }},
      K{"maximum", Shape::same, [](A a) { return torch::maximum(a.in[0], a.in[1]); }},
      K{"minimum", Shape::same, [](A a) { return torch::minimum(a.in[0], a.in[1]); }},
      K{"rem", Shape::same, [](A a) { return torch::remainder(a.in[0], a.in[1]); }},
      K{"pow", Shape::same, [](A a) { return torch::pow(a.in[0], a.in[1]); }},
      K{"broadcast_add", Shape::broadcast, [](A a) { return torch::add(a.in[0], a.in[1]); }},
      K{"broadcast_sub", Shape::broadcast, [](A a) { return torch::sub(a.in[0], a.in[1]); }},
      K{"broadcast_mul", Shape::broadcast, [](A a) { return torch::mul(a.in[0], a.in[1]); }},
      K{"broadcast_div", Shape::broadcast, [](A a) { return torch::div(a.in[0], a.in[1]); }},
      K{"sum_all", Shape::all, [](A a) { return torch::sum(a.in[0]); }},
      K{"max_all", Shape::all, [](A a) { return extremum(a.in[0], std::nullopt, true); }},
      K{"min_all", Shape::all, [](A a) { return extremum(a.in[0], std::nullopt, false); }},
      K{"mean_all", Shape::all, [](A a) { return torch::mean(a.in[0]); }},
      K{"sum_dim", Shape::dim, [](A a) { return torch::sum(a.in[0], {a.integer("dim")}); }, {{"dim", KC_PARAM_INT}}},
      K{"max_dim", Shape::dim, [](A a) { return extremum(a.in[0], a.integer("dim"), true); }, {{"dim", KC_PARAM_INT}}},
      K{"min_dim", Shape::dim, [](A a) { return extremum(a.in[0], a.integer("dim"), false); }, {{"dim", KC_PARAM_INT}}},
      K{"mean_dim", Shape::dim, [](A a) { return torch::mean(a.in[0], {a.integer("dim")}); }, {{"dim", KC_PARAM_INT}}},
      K{"argmax_dim", Shape::dim, [](A a) { return torch::argmax(a.in[0], a.integer("dim")); }, {{"dim", KC_PARAM_INT}}, KC_U32, true},
      K{"argmin_dim", Shape::dim, [](A a) { return torch::argmin(a.in[0], a.integer("dim")); }, {{"dim", KC_PARAM_INT}}, KC_U32, true},
      K{"reduce_sum_to", Shape::sum_to, [](A a) { return a.in[0].sum_to_size(a.shape("target")); }, {{"target", KC_PARAM_SHAPE}}},
      K{"broadcast_to", Shape::expand, [](A a) { return a.in[0].expand(a.shape("target")); }, {{"target", KC_PARAM_SHAPE}}},
  };
  return ks;
}

// The casts: a kernel per (source, destination) pair of float dtypes.
struct Cast {
  std::string name;
  kc_dtype from, to;
};
const std::vector<Cast>& casts() {
  static const std::vector<Cast> cs = [] {
    std::vector<Cast> v;
    const std::pair<const char*, kc_dtype> ts[] = {{"f32", KC_F32}, {"f64", KC_F64}, {"bf16", KC_BF16}, {"f16", KC_F16}};
    for (const auto& [a, ta] : ts)
      for (const auto& [b, tb] : ts)
        if (ta != tb) v.push_back({std::string("cast_") + a + "_to_" + b, ta, tb});
    return v;
  }();
  return cs;
}

// The contract's preconditions, in its terms.
kc_status check(const Kernel& k, kc_dtype t, const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_error* err) {
  const bool two = k.shape == Shape::same || k.shape == Shape::broadcast;
  if (n != (two ? 2 : 1)) return ad_fail(err, KC_ERR_ARITY, "inputs", two ? "expected two inputs" : "expected one input");
  int64_t numel = 0;
  if (kc_status s = ad_check_operand(&in[0], two ? "a" : "x", t, err, &numel); s != KC_OK) return s;
  if (two) {
    if (in[1].dtype != in[0].dtype) return ad_fail(err, KC_ERR_DTYPE_MISMATCH, "b", "b's dtype differs from a's");
    if (kc_status s = ad_check_operand(&in[1], "b", t, err, &numel); s != KC_OK) return s;
  }
  if (k.shape == Shape::same &&
      (in[1].rank != in[0].rank || !std::equal(in[0].dims, in[0].dims + in[0].rank, in[1].dims)))
    return ad_fail(err, KC_ERR_SHAPE_MISMATCH, "b", "b's dims differ from a's");
  if (k.shape == Shape::broadcast)
    for (int32_t i = 1; i <= std::min(in[0].rank, in[1].rank); ++i) {
      const int64_t x = in[0].dims[in[0].rank - i], y = in[1].dims[in[1].rank - i];
      if (x != y && x != 1 && y != 1) return ad_fail(err, KC_ERR_BROADCAST_INCOMPATIBLE, "b", "dims are neither equal nor 1");
    }
  for (const auto& [name, kind] : k.params) {
    const kc_param* q = nullptr;
    for (int32_t i = 0; i < np; ++i)
      if (std::strcmp(p[i].name, name) == 0) q = &p[i];
    if (!q) return ad_fail(err, KC_ERR_PARAM_MISSING, name, "missing parameter");
    if (q->kind != kind) return ad_fail(err, KC_ERR_PARAM_TYPE, name, "wrong parameter kind");
    if (std::strcmp(name, "n") == 0 && (q->integer < INT32_MIN || q->integer > INT32_MAX))
      return ad_fail(err, KC_ERR_PARAM_DOMAIN, name, "n does not fit in i32");
    if (std::strcmp(name, "dim") == 0) {
      if (q->integer < 0 || q->integer > INT32_MAX) return ad_fail(err, KC_ERR_PARAM_DOMAIN, name, "dim is not in [0, 2^31)");
      if (q->integer >= in[0].rank) return ad_fail(err, KC_ERR_DIM_OUT_OF_RANGE, name, "dim >= rank");
      // argmax over an empty axis of a non-empty output has no answer.
      if (k.fixed_out && in[0].dims[q->integer] == 0 && numel == 0) {
        int64_t out = 1;
        for (int32_t d = 0; d < in[0].rank; ++d)
          if (d != q->integer) out *= in[0].dims[d];
        if (out > 0) return ad_fail(err, KC_ERR_DIM_EMPTY, "x", "the reduced axis is empty");
      }
    }
    if (std::strcmp(name, "target") == 0) {
      const bool down = k.shape == Shape::sum_to;  // target is the smaller shape
      const int32_t small = down ? q->rank : in[0].rank, big = down ? in[0].rank : q->rank;
      if (small > big) return ad_fail(err, KC_ERR_TARGET_RANK, name, "target's rank does not fit");
      for (int32_t i = 1; i <= small; ++i) {
        const int64_t s = down ? q->dims[q->rank - i] : in[0].dims[in[0].rank - i];
        const int64_t b = down ? in[0].dims[in[0].rank - i] : q->dims[q->rank - i];
        if (s != b && s != 1) return ad_fail(err, KC_ERR_TARGET_INCOMPATIBLE, name, "a dim is neither equal nor 1");
      }
    }
  }
  return KC_OK;
}

torch::Tensor wrap(const kc_tensor& t) {
  return torch::from_blob(const_cast<void*>(t.data), std::vector<int64_t>(t.dims, t.dims + t.rank),
                          torch::TensorOptions().dtype(st(t.dtype)));
}

kc_status emit(torch::Tensor y, kc_dtype out, kc_alloc_output alloc, void* ctx) {
  if (out == KC_U32) y = y.to(torch::kInt64);  // indices, written as u32 below
  else y = y.to(st(out));
  y = y.contiguous();
  const auto dims = y.sizes().vec();
  void* buf = alloc(ctx, out, static_cast<int32_t>(dims.size()), dims.data());
  if (!buf) return KC_ERR_OTHER;
  if (out == KC_U32) {
    const int64_t* src = y.data_ptr<int64_t>();
    auto* dst = static_cast<uint32_t*>(buf);
    for (int64_t i = 0; i < y.numel(); ++i) dst[i] = static_cast<uint32_t>(src[i]);
  } else {
    std::memcpy(buf, y.data_ptr(), static_cast<size_t>(y.numel()) * ad_dtype_size(out));
  }
  return KC_OK;
}

// The entries: (kernel or cast, dtype), in declaration order.
struct Entry {
  const Kernel* kernel;
  const Cast* cast;
  kc_dtype dtype;
};
std::vector<Entry>& entries() {
  static std::vector<Entry> e;
  return e;
}

kc_status call(const Entry& e, const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc, void* ctx,
               kc_error* err) {
  try {
    if (e.cast) {
      int64_t numel = 0;
      if (kc_status s = ad_check_unary(in, n, e.cast->from, err, &numel); s != KC_OK) return s;
      return emit(wrap(in[0]).to(st(e.cast->to)), e.cast->to, alloc, ctx);
    }
    if (kc_status s = check(*e.kernel, e.dtype, in, n, p, np, err); s != KC_OK) return s;
    Args a{{}, p, np};
    for (int32_t i = 0; i < n; ++i) a.in.push_back(wrap(in[i]));
    return emit(e.kernel->op(a), e.kernel->fixed_out ? e.kernel->out : e.dtype, alloc, ctx);
  } catch (const std::exception& ex) {
    return ad_fail(err, KC_ERR_OTHER, "inputs", ex.what());
  }
}

template <std::size_t I>
kc_status trampoline(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc, void* ctx, kc_error* err) {
  return call(entries()[I], in, n, p, np, alloc, ctx, err);
}
constexpr std::size_t kMaxEntries = 256;
template <std::size_t... I>
constexpr std::array<kc_kernel_fn, sizeof...(I)> make_table(std::index_sequence<I...>) {
  return {trampoline<I>...};
}
constexpr auto kTable = make_table(std::make_index_sequence<kMaxEntries>{});

// Whether torch's CPU build runs the entry: one call on small valid inputs.
bool runs(const Entry& e) {
  static std::vector<unsigned char> ones(4096), out(4096);
  const int64_t dims[2] = {4, 4};
  kc_tensor t{e.cast ? e.cast->from : e.dtype, 2, dims, nullptr, 0};
  t.bytes = 16 * ad_dtype_size(t.dtype);
  torch::Tensor one = torch::ones({16}, torch::TensorOptions().dtype(st(t.dtype)));
  std::memcpy(ones.data(), one.data_ptr(), t.bytes);
  t.data = ones.data();
  const kc_tensor in[2] = {t, t};
  const int64_t shape[1] = {4};
  kc_param params[4] = {{"n", KC_PARAM_INT, 2, 0, 0, nullptr}, {"c", KC_PARAM_REAL, 0, 0.5, 0, nullptr},
                        {"min", KC_PARAM_REAL, 0, 0, 0, nullptr}, {"max", KC_PARAM_REAL, 0, 1, 0, nullptr}};
  kc_param dim{"dim", KC_PARAM_INT, 1, 0, 0, nullptr}, target{"target", KC_PARAM_SHAPE, 0, 0, 1, shape};
  std::vector<kc_param> ps(params, params + 4);
  ps.push_back(dim);
  ps.push_back(target);
  const bool two = e.kernel && (e.kernel->shape == Shape::same || e.kernel->shape == Shape::broadcast);
  if (e.kernel && e.kernel->shape == Shape::expand) {
    static const int64_t big[2] = {4, 4};
    ps.back().rank = 2;
    ps.back().dims = big;
  }
  kc_error err{};
  auto alloc = [](void*, kc_dtype, int32_t, const int64_t*) -> void* { return out.data(); };
  return call(e, in, two ? 2 : 1, ps.data(), static_cast<int32_t>(ps.size()), alloc, nullptr, &err) == KC_OK;
}

}  // namespace

extern "C" int kconform_plugin_register(kc_plugin_info* info) {
  static std::vector<kc_kernel> table;
  static std::string version, missing;
  auto& es = entries();
  es.clear();
  for (const auto& k : kernels())
    for (kc_dtype t : k.dtypes) es.push_back({&k, nullptr, t});
  for (const auto& c : casts()) es.push_back({nullptr, &c, c.from});
  std::vector<Entry> kept;
  for (const auto& e : es) {
    if (runs(e)) kept.push_back(e);
    else missing += std::string(missing.empty() ? "" : ", ") + (e.cast ? e.cast->name.c_str() : e.kernel->name) + " " +
                    (e.dtype == KC_F32 ? "f32" : e.dtype == KC_F64 ? "f64" : e.dtype == KC_BF16 ? "bf16" : "f16");
  }
  es = kept;
  if (es.size() > kMaxEntries) es.resize(kMaxEntries);
  table.clear();
  for (std::size_t i = 0; i < es.size(); ++i)
    table.push_back({es[i].cast ? es[i].cast->name.c_str() : es[i].kernel->name, es[i].dtype, kTable[i], KC_CLAIM_NONE, 0, nullptr});
  version = std::string("libtorch ") + TORCH_VERSION + " (CPU), " + std::to_string(at::get_num_threads()) + " threads" +
            (missing.empty() ? "" : "; not implemented on CPU: " + missing);
  info->name = "libtorch";
  info->version = version.c_str();
  info->build_flags = KC_ADAPTER_FLAGS;
  info->kernels = table.data();
  info->n_kernels = static_cast<int32_t>(table.size());
  return KC_PLUGIN_ABI_VERSION;
}
