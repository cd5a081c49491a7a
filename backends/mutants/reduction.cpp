// Planted defects of the reductions, reduce-to-shape and broadcast_to.
#include <cmath>
#include <cstring>

#include "backends/mutants/support.h"
#include "kernels/shape_math.h"

namespace kc::mutants {

namespace {

// Fold `x` along `dim` with a custom accumulator: acc = step(acc, v).
template <class Step>
Tensor fold_dim(const Tensor& x, std::size_t dim, DType out_t, Step step) {
  Dims out = x.dims();
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(dim));
  Tensor y(out_t, out);
  for_each_cell_along(x, dim, [&](std::int64_t o, std::int64_t base, std::int64_t stride, std::int64_t len) {
    double acc = 0;
    for (std::int64_t k = 0; k < len; ++k) acc = step(acc, x.value_at(base + k * stride));
    y.set_bits(o, bits(out_t, acc));
  });
  return y;
}

Outputs sum_drops_last(std::string_view, std::span<const Tensor> in, const Params& p) {
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
  const auto dim = static_cast<std::size_t>(p.integer("dim"));
  return {fold_dim(in[0], dim, t, [](double acc, double v) { return rn(DType::bf16, rn(DType::f32, acc + v)); })};
}

Outputs sum_f32_in_bf16(std::string_view, std::span<const Tensor> in, const Params& p) { return sum_dim_in_bf16(DType::f32, in, p); }

Outputs sum_bf16_in_f32(std::string_view, std::span<const Tensor> in, const Params& p) {
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
Outputs sum_f16_in_bf16(std::string_view, std::span<const Tensor> in, const Params& p) { return sum_dim_in_bf16(DType::f16, in, p); }

Outputs sum_bf16_truncating(std::string_view, std::span<const Tensor> in, const Params& p) {
  // bf16 sum_dim narrowing each f32 sum by truncation (dropping the low 16 bits).
  Outputs ref_out = ref::execute("sum_dim", in, p);
  if (in[0].dtype() != DType::bf16) return ref_out;
  const auto dim = static_cast<std::size_t>(p.integer("dim"));
  return {fold_dim(in[0], dim, DType::bf16, [](double acc, double v) {
    // (acc + v is exact in double; one f32 rounding, as the reference adds)
    return truncate_to_bf16(static_cast<float>(acc + v));
  })};
}

Outputs mean_n_minus_1(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Divides by n - 1 (the unbiased-variance habit).
  Outputs out = ref::execute("mean_dim", in, p);
  if (in[0].dtype() != DType::f32) return out;
  const auto dim = static_cast<std::size_t>(p.integer("dim"));
  const std::int64_t n = in[0].dims()[dim];
  if (n < 2) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o)
    out[0].set_bits(o, bits(DType::f32, rn(DType::f32, out[0].value_at(o) * n) / static_cast<float>(n - 1)));
  return out;
}

Outputs argmax_last_tie(std::string_view, std::span<const Tensor> in, const Params& p) {
  // `>=` instead of `>`: ties go to the largest index.
  Outputs out = ref::execute("argmax_dim", in, p);
  const Tensor& x = in[0];
  for_each_cell_along(x, static_cast<std::size_t>(p.integer("dim")),
                      [&](std::int64_t o, std::int64_t base, std::int64_t stride, std::int64_t len) {
                        double best = x.value_at(base);
                        std::uint32_t at = 0;
                        for (std::int64_t k = 1; k < len; ++k) {
                          const double v = x.value_at(base + k * stride);
                          if (v >= best) best = v, at = static_cast<std::uint32_t>(k);
                        }
                        out[0].set_bits(o, at);
                      });
  return out;
}

Outputs broadcast_to_copies(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Always materialises a copy: the zero-copy guarantee of pure padding is lost.
  Outputs out = ref::execute("broadcast_to", in, p);
  if (out[0].shares_storage(in[0])) {
    Tensor copy(out[0].dtype(), out[0].dims());
    for (std::int64_t i = 0; i < copy.numel(); ++i) copy.set_bits(i, out[0].bits_at(i));
    return {copy};
  }
  return out;
}

Outputs max_backward_no_split(std::string_view, std::span<const Tensor> in, const Params& p) {
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

// Pairwise summation (how GPUs and BLAS sum): halves of the range summed
// apart, then added; each addition one operation in T. Correct, and not the
// reference's left-to-right fold.
template <class Add>
double pairwise(std::span<const double> v, Add add) {
  if (v.empty()) return 0.0;
  if (v.size() == 1) return add(0.0, v[0]);
  const std::size_t mid = v.size() / 2;
  return add(pairwise(v.first(mid), add), pairwise(v.subspan(mid), add));
}
Outputs sum_all_pairwise(std::string_view, std::span<const Tensor> in, const Params& p) {
  Outputs out = ref::execute("sum_all", in, p);
  const DType t = in[0].dtype();
  std::vector<double> v(static_cast<std::size_t>(in[0].numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = in[0].value_at(static_cast<std::int64_t>(i));
  const double s = pairwise(v, [t](double a, double b) {
    if (t == DType::f64) return a + b;
    const double r = static_cast<float>(a) + static_cast<float>(b);
    return t == DType::f32 ? r : round_to_format(r, t);
  });
  out[0].set_bits(0, double_to_bits(t, s));
  return out;
}

}  // namespace

void register_reduction(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"sum_drops_last", {"sum_all"}, {DType::f32}, "accuracy", "f32 sum_all never adds the last element", sum_drops_last},
      {"sum_f32_in_bf16", {"sum_dim"}, {DType::f32}, "accuracy", "f32 sum_dim accumulates in bf16", sum_f32_in_bf16},
      {"sum_bf16_in_f32", {"sum_all"}, {DType::bf16}, "semantics",
       "bf16 sum_all accumulates in f32 where the reference accumulates in bf16", sum_bf16_in_f32, "reference", true},
      {"sum_all_pairwise", {"sum_all"}, kFloatSet, "semantics",
       "sum_all by pairwise summation (as GPUs sum) instead of the reference's left-to-right fold", sum_all_pairwise,
       "reference", true},
      {"sum_f16_in_bf16", {"sum_dim"}, {DType::f16}, "statistics",
       "f16 sum_dim accumulates in bf16: inside the worst-case bound, errors 8x too large", sum_f16_in_bf16},
      {"sum_bf16_truncating", {"sum_dim"}, {DType::bf16}, "statistics",
       "bf16 sum_dim narrows each partial sum by truncation (biased)", sum_bf16_truncating},
      {"mean_n_minus_1", {"mean_dim"}, {DType::f32}, "accuracy", "f32 mean_dim divides by n - 1", mean_n_minus_1},
      {"argmax_last_tie", {"argmax_dim"}, kFloatSet, "reference-choice", "argmax_dim gives ties to the largest index",
       argmax_last_tie, "reference", true},
      {"broadcast_to_copies", {"broadcast_to"}, kFloatSet, "layout", "broadcast_to copies even on pure padding",
       broadcast_to_copies, "reference", true},
      {"max_backward_no_split", {"reduce_max_to_backward"}, {DType::f32}, "accuracy",
       "f32 reduce_max_to_backward gives the full upstream value to every tied maximum", max_backward_no_split},
  });
}

}  // namespace kc::mutants
