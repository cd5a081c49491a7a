// Planted defects of the binary, reduction and cast families.
#include <cmath>
#include <cstring>

#include "backends/mutants/mutants.h"
#include "backends/reference/executor.h"
#include "kernels/shape_math.h"

namespace kc::mutants {

namespace {

using Outputs = std::vector<Tensor>;

double rn(DType t, double v) { return round_to_format(v, t); }
std::uint64_t bits(DType t, double v) { return double_to_bits(t, rn(t, v)); }
bool valid_unary(std::span<const Tensor> in) { return in.size() == 1 && in[0].consistent(); }

// Fold `x` along `dim` with a custom accumulator: acc = step(acc, v).
template <class Step>
Tensor fold_dim(const Tensor& x, std::size_t dim, DType out_t, Step step) {
  Dims out = x.dims();
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(dim));
  Tensor y(out_t, out);
  std::int64_t inner = 1;
  for (std::size_t d = dim + 1; d < x.dims().size(); ++d) inner *= x.dims()[d];
  const std::int64_t len = x.dims()[dim];
  for (std::int64_t o = 0; o < y.numel(); ++o) {
    const std::int64_t base = (o / inner) * inner * len + o % inner;
    double acc = 0;
    for (std::int64_t k = 0; k < len; ++k) acc = step(acc, x.value_at(base + k * inner));
    y.set_bits(o, bits(out_t, acc));
  }
  return y;
}

Outputs sum_drops_last(std::span<const Tensor> in, const Params& p) {
  // An off-by-one loop bound: the last element is never added.
  if (!valid_unary(in) || in[0].dtype() != DType::f32) return ref::execute("sum_all", in, p);
  Tensor y(DType::f32, {});
  float acc = 0;
  for (std::int64_t i = 0; i + 1 < in[0].numel(); ++i) acc += static_cast<float>(in[0].value_at(i));
  y.set_bits(0, bits(DType::f32, acc));
  return {y};
}

// sum_dim whose accumulator is a bf16 register (each f32 partial sum
// rounded to bf16), for dtype `t`.
Outputs sum_dim_in_bf16(DType t, std::span<const Tensor> in, const Params& p) {
  Outputs ref_out = ref::execute("sum_dim", in, p);
  if (in[0].dtype() != t) return ref_out;
  const auto dim = static_cast<std::size_t>(ref::int_param(p, "dim"));
  return {fold_dim(in[0], dim, t, [](double acc, double v) { return rn(DType::bf16, rn(DType::f32, acc + v)); })};
}

Outputs sum_f32_in_bf16(std::span<const Tensor> in, const Params& p) { return sum_dim_in_bf16(DType::f32, in, p); }

Outputs sum_bf16_in_f32(std::span<const Tensor> in, const Params& p) {
  // bf16 sum_all accumulated in f32 and rounded once: more accurate, but not the reference's bits.
  Outputs ref_out = ref::execute("sum_all", in, p);
  if (in[0].dtype() != DType::bf16) return ref_out;
  float acc = 0;
  for (std::int64_t i = 0; i < in[0].numel(); ++i) acc += static_cast<float>(in[0].value_at(i));
  ref_out[0].set_bits(0, bits(DType::bf16, acc));
  return ref_out;
}

// f16 sum_dim accumulated in bf16 (3 fewer bits): within the worst-case
// bound, but the errors are 8 times larger than f16 rounding allows.
Outputs sum_f16_in_bf16(std::span<const Tensor> in, const Params& p) { return sum_dim_in_bf16(DType::f16, in, p); }

Outputs sum_bf16_truncating(std::span<const Tensor> in, const Params& p) {
  // bf16 sum_dim narrowing each f32 sum by truncation (dropping the low 16 bits).
  Outputs ref_out = ref::execute("sum_dim", in, p);
  if (in[0].dtype() != DType::bf16) return ref_out;
  const auto dim = static_cast<std::size_t>(ref::int_param(p, "dim"));
  return {fold_dim(in[0], dim, DType::bf16, [](double acc, double v) {
    const float s = static_cast<float>(acc + v);  // acc + v is exact in double; one f32 rounding, as the reference adds
    std::uint32_t b;
    std::memcpy(&b, &s, 4);
    if (std::isnan(s)) return static_cast<double>(s);
    b &= 0xFFFF0000u;
    float t;
    std::memcpy(&t, &b, 4);
    return static_cast<double>(t);
  })};
}

Outputs mean_n_minus_1(std::span<const Tensor> in, const Params& p) {
  // Divides by n - 1 (the unbiased-variance habit).
  Outputs out = ref::execute("mean_dim", in, p);
  if (in[0].dtype() != DType::f32) return out;
  const auto dim = static_cast<std::size_t>(ref::int_param(p, "dim"));
  const std::int64_t n = in[0].dims()[dim];
  if (n < 2) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o)
    out[0].set_bits(o, bits(DType::f32, rn(DType::f32, out[0].value_at(o) * n) / static_cast<float>(n - 1)));
  return out;
}

Outputs maximum_nan_symmetric(std::span<const Tensor> in, const Params& p) {
  // PyTorch's maximum: NaN from either side propagates.
  Outputs out = ref::execute("maximum", in, p);
  for (std::int64_t o = 0; o < out[0].numel(); ++o)
    if (std::isnan(in[0].value_at(o))) out[0].set_bits(o, in[0].bits_at(o));
  return out;
}

Outputs argmax_last_tie(std::span<const Tensor> in, const Params& p) {
  // `>=` instead of `>`: ties go to the largest index.
  Outputs out = ref::execute("argmax_dim", in, p);
  const auto dim = static_cast<std::size_t>(ref::int_param(p, "dim"));
  const Tensor& x = in[0];
  std::int64_t inner = 1;
  for (std::size_t d = dim + 1; d < x.dims().size(); ++d) inner *= x.dims()[d];
  const std::int64_t len = x.dims()[dim];
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::int64_t base = (o / inner) * inner * len + o % inner;
    double best = x.value_at(base);
    std::uint32_t at = 0;
    for (std::int64_t k = 1; k < len; ++k) {
      const double v = x.value_at(base + k * inner);
      if (v >= best) best = v, at = static_cast<std::uint32_t>(k);
    }
    out[0].set_bits(o, at);
  }
  return out;
}

Outputs broadcast_to_copies(std::span<const Tensor> in, const Params& p) {
  // Always materialises a copy: the zero-copy guarantee of pure padding is lost.
  Outputs out = ref::execute("broadcast_to", in, p);
  if (out[0].shares_storage(in[0])) {
    Tensor copy(out[0].dtype(), out[0].dims());
    for (std::int64_t i = 0; i < copy.numel(); ++i) copy.set_bits(i, out[0].bits_at(i));
    return {copy};
  }
  return out;
}

Outputs cast_f64_to_bf16_rn(std::span<const Tensor> in, const Params& p) {
  // Correctly rounded f64 -> bf16: better, but not what the reference does.
  Outputs out = ref::execute("cast_f64_to_bf16", in, p);
  for (std::int64_t i = 0; i < out[0].numel(); ++i)
    if (!std::isnan(in[0].value_at(i))) out[0].set_bits(i, bits(DType::bf16, in[0].value_at(i)));
  return out;
}

Outputs cast_f32_to_u32_wraps(std::span<const Tensor> in, const Params& p) {
  // C-style modular conversion instead of Rust's saturation.
  Outputs out = ref::execute("cast_f32_to_u32", in, p);
  for (std::int64_t i = 0; i < out[0].numel(); ++i) {
    const double v = in[0].value_at(i);
    if (std::isfinite(v) && std::fabs(v) < 9e18)
      out[0].set_bits(i, static_cast<std::uint32_t>(static_cast<std::int64_t>(std::trunc(v))));
  }
  return out;
}

Outputs rem_fmod(std::span<const Tensor> in, const Params& p) {
  // PyTorch CPU's exact fmod-based remainder instead of the reference's rounded steps.
  Outputs out = ref::execute("rem", in, p);
  if (in[0].dtype() != DType::f32) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const double a = in[0].value_at(o), b = in[1].value_at(o);
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    out[0].set_bits(o, bits(DType::f32, r));
  }
  return out;
}

Outputs max_backward_no_split(std::span<const Tensor> in, const Params& p) {
  // Routes the whole upstream value to every tied maximum (no fair share).
  Outputs out = ref::execute("reduce_max_to_backward", in, p);
  if (in.size() != 2 || in[0].dtype() != DType::f32) return out;
  const Tensor& x = in[0];
  const Tensor& up = in[1];
  Outputs mx = ref::execute("reduce_max_to", std::vector<Tensor>{x}, Params().set("target", up.dims()));
  const kern::BroadcastIndex cell(up.dims(), x.dims());
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const std::int64_t c = cell(i);
    const bool is_max = x.value_at(i) == mx[0].value_at(c);
    out[0].set_bits(i, bits(DType::f32, is_max ? up.value_at(c) : up.value_at(c) * 0.0));
  }
  return out;
}

Outputs broadcast_add_accepts_incompatible(std::span<const Tensor> in, const Params& p) {
  // Skips the compatibility check and returns a zero tensor of a's shape.
  if (in.size() == 2 && in[0].consistent() && in[1].consistent() && !kern::broadcast_shape(in[0].dims(), in[1].dims()))
    return {Tensor(in[0].dtype(), in[0].dims())};
  return ref::execute("broadcast_add", in, p);
}

Outputs add_f16_ftz(std::span<const Tensor> in, const Params& p) {
  // Flushes subnormal f16 sums to zero.
  Outputs out = ref::execute("add", in, p);
  if (in[0].dtype() != DType::f16) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::uint64_t y = out[0].bits_at(o);
    if ((y & 0x7c00u) == 0 && (y & 0x3ffu) != 0) out[0].set_bits(o, y & 0x8000u);
  }
  return out;
}

}  // namespace

std::vector<Mutant> family_mutants() {
  const DTypeSet floats{DType::f32, DType::f64, DType::bf16, DType::f16};
  return {
      {"sum_drops_last", "sum_all", {DType::f32}, "accuracy", "f32 sum_all never adds the last element", sum_drops_last},
      {"sum_f32_in_bf16", "sum_dim", {DType::f32}, "accuracy", "f32 sum_dim accumulates in bf16", sum_f32_in_bf16},
      {"sum_bf16_in_f32", "sum_all", {DType::bf16}, "semantics",
       "bf16 sum_all accumulates in f32 where the reference accumulates in bf16", sum_bf16_in_f32},
      {"sum_f16_in_bf16", "sum_dim", {DType::f16}, "statistics",
       "f16 sum_dim accumulates in bf16: inside the worst-case bound, errors 8x too large", sum_f16_in_bf16},
      {"sum_bf16_truncating", "sum_dim", {DType::bf16}, "statistics",
       "bf16 sum_dim narrows each partial sum by truncation (biased)", sum_bf16_truncating},
      {"mean_n_minus_1", "mean_dim", {DType::f32}, "accuracy", "f32 mean_dim divides by n - 1", mean_n_minus_1},
      {"maximum_nan_symmetric", "maximum", floats, "accuracy", "maximum propagates a NaN in a (PyTorch's rule)",
       maximum_nan_symmetric},
      {"argmax_last_tie", "argmax_dim", floats, "accuracy", "argmax_dim gives ties to the largest index",
       argmax_last_tie},
      {"broadcast_to_copies", "broadcast_to", floats, "layout", "broadcast_to copies even on pure padding",
       broadcast_to_copies},
      {"cast_f64_to_bf16_rn", "cast_f64_to_bf16", {DType::f64}, "semantics",
       "f64 -> bf16 correctly rounded instead of half's truncating rounding", cast_f64_to_bf16_rn},
      {"cast_f32_to_u32_wraps", "cast_f32_to_u32", {DType::f32}, "accuracy",
       "f32 -> u32 wraps modulo 2^32 instead of saturating", cast_f32_to_u32_wraps},
      {"rem_fmod", "rem", {DType::f32}, "accuracy", "f32 rem via exact fmod instead of the reference's rounded steps",
       rem_fmod},
      {"max_backward_no_split", "reduce_max_to_backward", {DType::f32}, "accuracy",
       "f32 reduce_max_to_backward gives the full upstream value to every tied maximum", max_backward_no_split},
      {"broadcast_add_accepts_incompatible", "broadcast_add", floats, "bad-input",
       "broadcast_add returns zeros for incompatible shapes instead of rejecting them",
       broadcast_add_accepts_incompatible},
      {"add_f16_ftz", "add", {DType::f16}, "accuracy", "f16 add flushes subnormal results to zero", add_f16_ftz},
  };
}

}  // namespace kc::mutants
