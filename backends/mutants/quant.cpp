// Planted defects of the quantized weights: each dequantizes with a defect
// (dequantize_blocks shows it directly, qmatmul through its f32 matmul),
// and one of qmatmul's layout.
#include <cstring>
#include <vector>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

float half_at(const std::uint8_t* p) { return f16_to_f32(f16{static_cast<std::uint16_t>(p[0] | (p[1] << 8))}); }

// The reference's outputs (its checks first), then recomputed from the
// weight w[n, k] that deq(type, block bytes, 256 floats out) gives, block
// by block; qmatmul then folds a[m, :] . w[j, :] in f32 (w read at
// w_at(j, kk, n, k): the layout), each step step(acc, a, w).
float round_step(float acc, float a, float w) { return acc + a * w; }
template <class Deq, class At, class Step = float (*)(float, float, float)>
Outputs recompute(std::string_view kernel, std::span<const Tensor> in, const Params& p, std::int64_t only_type, Deq deq,
                  At w_at, Step step = round_step) {
  Outputs y = ref::execute(kernel, in, p);
  const std::int64_t type = p.integer("quant_type"), k = p.integer("k"), n = p.integer("n");
  if (only_type >= 0 && type != only_type) return y;
  const int epb = type == 12 ? 256 : 32, bpb = type == 2 ? 18 : type == 8 ? 34 : 144;
  const Tensor& wt = in.back();
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(wt.numel()) * 4);
  if (!bytes.empty()) std::memcpy(bytes.data(), wt.bytes(), bytes.size());
  std::vector<float> w(static_cast<std::size_t>(n * k));
  for (std::int64_t b = 0; b < n * (k / epb); ++b) deq(type, bytes.data() + b * bpb, w.data() + b * epb);
  if (kernel == "dequantize_blocks") {
    for (std::size_t i = 0; i < w.size(); ++i) y[0].set_bits(static_cast<std::int64_t>(i), double_to_bits(DType::f32, w[i]));
    return y;
  }
  const Tensor& a = in[0];
  const std::int64_t m = a.dims()[0];
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::int64_t kk = 0; kk < k; ++kk) acc = step(acc, static_cast<float>(a.value_at(i * k + kk)), w[w_at(j, kk, n, k)]);
      y[0].set_bits(i * n + j, double_to_bits(DType::f32, acc));
    }
  return y;
}

std::size_t hf_layout(std::int64_t j, std::int64_t kk, std::int64_t, std::int64_t k) { return static_cast<std::size_t>(j * k + kk); }

// The reference's dequantization of one block (for the defects elsewhere).
void deq_ref(std::int64_t type, const std::uint8_t* b, float* y) {
  const float d = half_at(b);
  if (type == 2)
    for (int j = 0; j < 16; ++j) y[j] = static_cast<float>((b[2 + j] & 0xF) - 8) * d, y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  else if (type == 8)
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

void q4k(const std::uint8_t* b, float* y, bool swap_scales) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const std::uint8_t *q = b + 4, *qs = b + 16;
  auto sm = [q](int j, int& sc, int& m) {
    if (j < 4) sc = q[j] & 63, m = q[j + 4] & 63;
    else sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4), m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  };
  for (int c = 0; c < 4; ++c) {
    int s1, m1, s2, m2;
    sm(2 * c, s1, m1);
    sm(2 * c + 1, s2, m2);
    if (swap_scales) std::swap(s1, s2);  // the two sub-blocks' scales exchanged
    const float d1 = d * static_cast<float>(s1), mm1 = dmin * static_cast<float>(m1);
    const float d2 = d * static_cast<float>(s2), mm2 = dmin * static_cast<float>(m2);
    for (int l = 0; l < 32; ++l) y[64 * c + l] = d1 * static_cast<float>(qs[32 * c + l] & 0xF) - mm1;
    for (int l = 0; l < 32; ++l) y[64 * c + 32 + l] = d2 * static_cast<float>(qs[32 * c + l] >> 4) - mm2;
  }
}

Outputs q4k_scales_swapped(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return recompute(kernel, in, p, 12, [](std::int64_t, const std::uint8_t* b, float* y) { q4k(b, y, true); }, hf_layout);
}

Outputs q4_0_interleaved(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Byte j's nibbles as values 2j and 2j + 1 (ggml's order is j and j + 16).
  return recompute(kernel, in, p, 2, [](std::int64_t, const std::uint8_t* b, float* y) {
    const float d = half_at(b);
    for (int j = 0; j < 16; ++j) y[2 * j] = static_cast<float>((b[2 + j] & 0xF) - 8) * d, y[2 * j + 1] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
  }, hf_layout);
}

Outputs q8_0_unsigned(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The quant bytes read unsigned (0..255), not as i8.
  return recompute(kernel, in, p, 8, [](std::int64_t, const std::uint8_t* b, float* y) {
    const float d = half_at(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(b[2 + j]) * d;
  }, hf_layout);
}

Outputs qmatmul_untransposed(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The dequantized weight read as [K, N] (w[kk n + j]), not HF's [N, K].
  return recompute(kernel, in, p, -1, [](std::int64_t type, const std::uint8_t* b, float* y) {
    if (type == 12) q4k(b, y, false);
    else deq_ref(type, b, y);
  }, [](std::int64_t j, std::int64_t kk, std::int64_t n, std::int64_t) { return static_cast<std::size_t>(kk * n + j); });
}

Outputs qmatmul_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The reference's weights, the fold's products and sums rounded toward
  // zero (each step within 2u where the bound counts u).
  return recompute(kernel, in, p, -1, [](std::int64_t type, const std::uint8_t* b, float* y) {
    if (type == 12) q4k(b, y, false);
    else deq_ref(type, b, y);
  }, hf_layout, [](float acc, float a, float w) {
    return static_cast<float>(rz32(static_cast<double>(acc) + rz32(static_cast<double>(a) * w)));
  });
}

}  // namespace

void register_quant(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"q4k_scales_swapped", {"dequantize_blocks", "qmatmul"}, {DType::u32, DType::f32}, "accuracy",
       "Q4_K dequantization exchanges the two sub-blocks' scales of each chunk", q4k_scales_swapped},
      {"q4_0_nibbles_interleaved", {"dequantize_blocks", "qmatmul"}, {DType::u32, DType::f32}, "accuracy",
       "Q4_0 dequantization puts byte j's nibbles at 2j and 2j + 1", q4_0_interleaved},
      {"q8_0_unsigned", {"dequantize_blocks", "qmatmul"}, {DType::u32, DType::f32}, "accuracy",
       "Q8_0 dequantization reads the quant bytes unsigned", q8_0_unsigned},
      {"qmatmul_toward_zero", {"qmatmul"}, {DType::f32}, "statistics",
       "qmatmul rounds each product and partial sum of its f32 fold toward zero (each step within 2u where the "
       "bound counts u; the errors' mean square three times its limit)",
       qmatmul_toward_zero},
      {"qmatmul_untransposed", {"qmatmul"}, {DType::f32}, "accuracy",
       "qmatmul reads the dequantized weight as [K, N] instead of HF's [N, K]", qmatmul_untransposed},
  });
}

}  // namespace kc::mutants
