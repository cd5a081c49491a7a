// Quantized matmul of the reference's executor (eval_qmatmul, exec.rs:1494;
// reference-semantics.md §18) and its dequantization helper
// (dequantize_blocks / dequantize_q4_km_block), which kconform grades as a
// kernel of its own. The weight arrives as u32 words whose little-endian
// bytes are ggml blocks (quant-formats.md), logically [N, K] (HF out x in),
// row r a run of K/epb blocks. qmatmul dequantizes to f32 [N, K],
// transposes to [K, N] and runs the f32 matmul: out[m, n] = +0 + a[m, 0]
// w[n, 0] + ... in f32, no FMA. The quant type is ggml's type code: 2
// (Q4_0, 32 values in 18 bytes), 8 (Q8_0, 32 in 34), 12 (Q4_K, 256 in 144:
// the inventory's Q4_K_M).
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {

struct Blocks {
  int epb, bpb;  // elements and bytes per block
};

Blocks blocks_of(std::string_view op, std::int64_t type) {
  switch (type) {
    case 2: return {32, 18};
    case 8: return {32, 34};
    case 12: return {256, 144};
    default:
      throw KernelError(std::string(op), "quant_type", Rule::quant_type_unsupported,
                        fmt::format("dequantize_blocks does not support quant type {} yet (2 Q4_0, 8 Q8_0, 12 Q4_K)", type));
  }
}

float half_at(const std::uint8_t* p) { return f16_to_f32(f16{static_cast<std::uint16_t>(p[0] | (p[1] << 8))}); }

// ggml's get_scale_min_k4: sub-block j's 6-bit scale and min.
void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& sc, std::uint8_t& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

void dequant_block(std::int64_t type, const std::uint8_t* b, float* y) {
  if (type == 2) {
    const float d = half_at(b);
    for (int j = 0; j < 16; ++j) {
      y[j] = static_cast<float>((b[2 + j] & 0xF) - 8) * d;
      y[j + 16] = static_cast<float>((b[2 + j] >> 4) - 8) * d;
    }
  } else if (type == 8) {
    const float d = half_at(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
  } else {  // Q4_K: four chunks of 64 outputs from 32 bytes of qs
    const float d = half_at(b), dmin = half_at(b + 2);
    const std::uint8_t *scales = b + 4, *qs = b + 16;
    for (int c = 0; c < 4; ++c) {
      std::uint8_t sc, m;
      scale_min_k4(2 * c, scales, sc, m);
      const float d1 = d * sc, m1 = dmin * m;
      scale_min_k4(2 * c + 1, scales, sc, m);
      const float d2 = d * sc, m2 = dmin * m;
      for (int l = 0; l < 32; ++l) y[64 * c + l] = d1 * static_cast<float>(qs[32 * c + l] & 0xF) - m1;
      for (int l = 0; l < 32; ++l) y[64 * c + 32 + l] = d2 * static_cast<float>(qs[32 * c + l] >> 4) - m2;
    }
  }
}

// The f32 [N, K] dequantization, after the reference's checks.
std::vector<float> dequantize(std::string_view op, const Tensor& w, const Params& p) {
  const std::int64_t type = p.integer("quant_type"), k = p.integer("k"), n = p.integer("n");
  const Blocks bl = blocks_of(op, type);
  if (k % bl.epb != 0)
    throw KernelError(std::string(op), "k", Rule::k_block_multiple,
                      fmt::format("dequantize_blocks: k_cols must be multiple of {}, got {}", bl.epb, k));
  const std::int64_t per_row = k / bl.epb, want = n * per_row * bl.bpb, have = w.numel() * 4;
  if (w.rank() != 1 || have != want)
    throw KernelError(std::string(op), "w", Rule::bytes_mismatch,
                      fmt::format("dequantize_blocks: byte count mismatch: w holds {} bytes ({} u32 words, shape {}), "
                                  "N {} x K/{} {} blocks x {} bytes need {}",
                                  have, w.numel(), dims_to_string(w.dims()), n, bl.epb, per_row, bl.bpb, want));
  // The words' little-endian bytes (the host's memory order on x86 and aarch64).
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(have));
  if (have > 0) std::memcpy(bytes.data(), w.bytes(), bytes.size());
  std::vector<float> out(static_cast<std::size_t>(n * k));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t b = 0; b < per_row; ++b)
      dequant_block(type, bytes.data() + (r * per_row + b) * bl.bpb, out.data() + r * k + b * bl.epb);
  return out;
}

Tensor dequantize_blocks(const Tensor& w, const Params& p) {
  const std::vector<float> v = dequantize("dequantize_blocks", w, p);
  Tensor y(DType::f32, {p.integer("n"), p.integer("k")});
  if (!v.empty()) std::memcpy(y.mutable_bytes(), v.data(), v.size() * sizeof(float));
  return y;
}

Tensor qmatmul(const Tensor& a, const Tensor& w, const Params& p) {
  if (a.dtype() != DType::f32)
    throw KernelError("qmatmul", "a", Rule::dtype_unsupported,
                      fmt::format("qmatmul: activations must be F32, got {}", dtype_name(a.dtype())));
  if (w.dtype() != DType::u32)
    throw KernelError("qmatmul", "w", Rule::dtype_unsupported,
                      fmt::format("qmatmul: weight bytes must be U32, got {}", dtype_name(w.dtype())));
  if (a.rank() != 2)
    throw KernelError("qmatmul", "a", Rule::rank_exact,
                      fmt::format("matmul: operands must have the same rank, got {} and 2 (activations must be [M, K])",
                                  a.rank()));
  const std::vector<float> wd = dequantize("qmatmul", w, p);
  const std::int64_t m = a.dims()[0], k = a.dims()[1], n = p.integer("n");
  if (k != p.integer("k"))
    throw KernelError("qmatmul", "a", Rule::shape_inner,
                      fmt::format("matmul: inner dimensions differ: a is {}, the weight's k is {}", dims_to_string(a.dims()),
                                  p.integer("k")));
  Tensor y(DType::f32, {m, n});
  const auto as = a.as<float>();
  auto ys = y.as_mutable<float>();
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (std::int64_t kk = 0; kk < k; ++kk)
        acc = acc_add(acc, in_order(as[static_cast<std::size_t>(i * k + kk)], wd[static_cast<std::size_t>(j * k + kk)],
                                    [](float x, float v) { return x * v; }));
      ys[static_cast<std::size_t>(i * n + j)] = acc;
    }
  return y;
}

}  // namespace

void register_quant(Arms& table) {
  const std::vector<ParamDecl> params{{"quant_type", ParamKind::integer},
                                      {"k", ParamKind::integer, 0, INT32_MAX},
                                      {"n", ParamKind::integer, 0, INT32_MAX}};
  // The helper: u32 words in, f32 [n, k] out.
  table.push_back(Arm{.op = "dequantize_blocks", .dtypes = {DType::u32}, .arity = 1, .params = params,
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{dequantize_blocks(in[0], p)};
                      },
                      .operands = {"w"}});
  // Exec: f32 activations (`qmatmul: activations must be F32`), u32 weight
  // words (`weight bytes must be U32`), each checked by its operand.
  table.push_back(Arm{.op = "qmatmul", .dtypes = {DType::f32, DType::u32}, .arity = 2, .params = params,
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{qmatmul(in[0], in[1], p)};
                      },
                      .operands = {"a", "w"},
                      .same_dtype = false});
}

}  // namespace kc::kern
