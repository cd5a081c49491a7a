// Planted defects of matmul, the transposes and permute.
#include <cmath>

#include "backends/mutants/support.h"
#include "kernels/shape_math.h"

namespace kc::mutants {

namespace {

// The reference's output (so that bad input still raises its errors), each
// element o of dtype t recomputed as a fold over kk of step(acc, a, b) from
// start(o) (0 in refold), through doubles; a [..., m, k], b [..., k, n]
// (b's values exact in double).
template <class Start, class Step>
Outputs refold_from(std::string_view kernel, std::span<const Tensor> in, const Params& p, DType t, Start start,
                    Step step) {
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != t) return out;
  const Dims& da = in[0].dims();
  const std::size_t r = da.size();
  const std::int64_t m = da[r - 2], k = da[r - 1], n = in[1].dims()[r - 1];
  Tensor& y = out[0];
  for (std::int64_t o = 0; o < y.numel(); ++o) {
    const std::int64_t j = o % n, i = (o / n) % m, b = o / (n * m);
    double acc = start(o);
    for (std::int64_t kk = 0; kk < k; ++kk)
      acc = step(acc, in[0].value_at((b * m + i) * k + kk), in[1].value_at((b * k + kk) * n + j), kk, k);
    y.set_bits(o, bits(t, acc));
  }
  return out;
}
template <class Step>
Outputs refold(std::string_view kernel, std::span<const Tensor> in, const Params& p, DType t, Step step) {
  return refold_from(kernel, in, p, t, [](std::int64_t) { return 0.0; }, step);
}

Outputs matmul_drops_last_k(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // An off-by-one inner loop bound: the last product is never added.
  return refold(kernel, in, p, DType::f32, [](double acc, double a, double b, std::int64_t kk, std::int64_t k) {
    return kk + 1 == k ? acc : rn(DType::f32, acc + rn(DType::f32, a * b));
  });
}

Outputs matmul_f32_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // An f32 matmul whose accumulator is a bf16 register: every partial sum
  // rounded to bf16 (relative error 2^-8 a step against the bound's 2^-24).
  return refold(kernel, in, p, DType::f32, [](double acc, double a, double b, std::int64_t, std::int64_t) {
    return rn(DType::bf16, rn(DType::f32, acc + rn(DType::f32, a * b)));
  });
}

Outputs matmul_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The fold's products and sums rounded toward zero (a kernel run in
  // round-toward-zero mode): each step within 2u where the bound counts u.
  return refold(kernel, in, p, DType::f32, [](double acc, double a, double b, std::int64_t, std::int64_t) {
    return rz32(acc + rz32(a * b));
  });
}

Outputs matmul_fma(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // acc = fma(a, b, acc) in T: one rounding a step instead of two. More
  // accurate, within the bound, and not the reference's bits.
  const DType t = in.empty() ? DType::f32 : in[0].dtype();
  if (t != DType::f32 && t != DType::f64) return ref::execute(kernel, in, p);
  return refold(kernel, in, p, t, [t](double acc, double a, double b, std::int64_t, std::int64_t) {
    return t == DType::f64 ? std::fma(a, b, acc)
                           : static_cast<double>(std::fmaf(static_cast<float>(a), static_cast<float>(b),
                                                           static_cast<float>(acc)));
  });
}

Outputs fused_linear_drops_bias(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // f32 fused_linear returns the matmul alone: the bias is never added.
  Outputs out = ref::execute(kernel, in, p);  // (bad input raises the reference's errors)
  return in[0].dtype() == DType::f32 ? ref::execute("matmul", in.first(2), p) : out;
}

Outputs fused_linear_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // fused_linear with matmul_toward_zero's fold, the bias added last toward zero too.
  Outputs out = refold(kernel, in, p, DType::f32, [](double acc, double a, double b, std::int64_t, std::int64_t) {
    return rz32(acc + rz32(a * b));
  });
  if (in[0].dtype() != DType::f32) return out;
  Tensor& y = out[0];
  const kern::BroadcastIndex bias_at(in[2].dims(), y.dims());
  for (std::int64_t o = 0; o < y.numel(); ++o) y.set_bits(o, bits(DType::f32, rz32(y.value_at(o) + in[2].value_at(bias_at(o)))));
  return out;
}

Outputs fused_linear_bias_first(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The fold starts from the bias instead of +0 (bias + a_0 b_0 + ...):
  // the same k + 1 roundings in another order, inside the bound, not the
  // reference's bits.
  const DType t = in[0].dtype();
  const Dims out = ref::execute(kernel, in, p)[0].dims();  // (bad input raises the reference's errors first)
  const kern::BroadcastIndex bias_at(in[2].dims(), out);
  return refold_from(kernel, in, p, t, [&](std::int64_t o) { return in[2].value_at(bias_at(o)); },
                     [t](double acc, double a, double b, std::int64_t, std::int64_t) { return rn(t, acc + rn(t, a * b)); });
}

Outputs mixed_a_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The mixed arm narrows the activations to bf16 as well (both operands in
  // the weights' dtype), then folds in f32.
  return refold(kernel, in, p, DType::f32, [](double acc, double a, double b, std::int64_t, std::int64_t) {
    return rn(DType::f32, acc + rn(DType::f32, rn(DType::bf16, a) * b));
  });
}

Outputs transpose_batch_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Batched transpose that forgets the batch offset of the source: every
  // output matrix is the transpose of x's first.
  Outputs out = ref::execute(kernel, in, p);
  const Dims& d = in[0].dims();
  const std::size_t r = d.size();
  const std::int64_t m = d[r - 2], n = d[r - 1];
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::int64_t rem = o % (m * n), jj = rem / m, ii = rem % m;
    out[0].set_bits(o, in[0].bits_at(ii * n + jj));
  }
  return out;
}

Outputs permute_inverse(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Output dims from axes, but the source coordinates from the inverse
  // permutation (out_index[axes[i]] = in_index[i]): right for every
  // involution (all of rank <= 2, any swap), wrong for a 3-cycle.
  Outputs out = ref::execute(kernel, in, p);
  const std::vector<std::int64_t>& axes = p.shape("axes");
  const Dims& d = in[0].dims();
  const Dims& od = out[0].dims();
  const std::size_t r = d.size();
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    std::vector<std::int64_t> oc(r);
    std::int64_t rest = o;
    for (std::size_t i = r; i-- > 0;) oc[i] = rest % od[i], rest /= od[i];
    std::int64_t src = 0;
    bool inside = true;
    for (std::size_t i = 0; i < r; ++i) {
      const std::int64_t c = oc[static_cast<std::size_t>(axes[i])];
      inside &= c < d[i];
      src = src * d[i] + c;
    }
    out[0].set_bits(o, inside ? in[0].bits_at(src) : 0);
  }
  return out;
}

}  // namespace

void register_linalg(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"matmul_drops_last_k", {"matmul"}, {DType::f32}, "accuracy", "f32 matmul never adds the last product",
       matmul_drops_last_k},
      {"matmul_toward_zero", {"matmul"}, {DType::f32}, "accuracy",
       "f32 matmul rounds each product and partial sum toward zero (each step within 2u where the bound counts u)",
       matmul_toward_zero},
      {"matmul_f32_in_bf16", {"matmul"}, {DType::f32}, "accuracy", "f32 matmul accumulates in bf16",
       matmul_f32_in_bf16},
      {"matmul_fma", {"matmul"}, {DType::f32, DType::f64}, "semantics",
       "matmul accumulates with FMA (one rounding a step) instead of the reference's product then sum", matmul_fma,
       "reference", true},
      {"fused_linear_drops_bias", {"fused_linear"}, {DType::f32}, "accuracy",
       "f32 fused_linear returns the matmul without the bias", fused_linear_drops_bias},
      {"fused_linear_toward_zero", {"fused_linear"}, {DType::f32}, "accuracy",
       "f32 fused_linear rounds each product and partial sum, and the bias's addition, toward zero",
       fused_linear_toward_zero},
      {"fused_linear_bias_first", {"fused_linear"}, {DType::f32, DType::f64}, "semantics",
       "fused_linear folds the products onto the bias (bias + a b + ...) instead of adding it last: correct, not the "
       "reference's bits", fused_linear_bias_first, "reference", true},
      {"matmul_mixed_a_in_bf16", {"matmul_f32_bf16"}, {DType::f32}, "accuracy",
       "the mixed-precision arm narrows the f32 activations to bf16 too", mixed_a_in_bf16},
      {"transpose_batch_zero", {"transpose_last_two"}, kFloatSet, "accuracy",
       "transpose_last_two reads every output matrix from x's first", transpose_batch_zero},
      {"permute_inverse", {"permute"}, {DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32}, "accuracy",
       "permute indexes the source by the inverse permutation", permute_inverse},
  });
}

}  // namespace kc::mutants
