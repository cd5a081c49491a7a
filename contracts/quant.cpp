// Contracts of the quantized weights (inventory "eval_qmatmul +
// dequantize_blocks + dequantize_q4_km_block"; reference-semantics.md §18;
// quant-formats.md): the dequantization, graded bit for bit against the
// spec side's model of the formats (oracles/quant_model.h), and qmatmul,
// the f32 matmul of the dequantized weight (the dot products' bound).
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/cast.cpp, oracles/linalg.cpp).
KC_MATH_OF(Dot, dot)
KC_MATH_OF(Scalar, identity)

namespace kc::contract {

namespace {

std::vector<Param> quant_params() {
  return {{.name = "quant_type", .kind = ParamKind::integer,
           .domain = "ggml type code: 2 (Q4_0: 32 values, 18 bytes), 8 (Q8_0: 32, 34), 12 (Q4_K, the inventory's Q4_K_M: "
                     "256, 144)"},
          {.name = "k", .kind = ParamKind::integer, .domain = "the weight's columns (HF in), a multiple of the block's values",
           .min = 0, .max = INT32_MAX},
          {.name = "n", .kind = ParamKind::integer, .domain = "the weight's rows (HF out)", .min = 0, .max = INT32_MAX}};
}

std::vector<Precondition> weight_rules() {
  return {{Rule::quant_type_unsupported, "quant_type",
           "quant_type is 2, 8 or 12 (`dequantize_blocks does not support .. yet`)"},
          {Rule::k_block_multiple, "k", "k is a multiple of 32 (Q4_0, Q8_0) or 256 (Q4_K) (`k_cols must be multiple of`)"},
          {Rule::bytes_mismatch, "w",
           "w holds exactly n (k / epb) bpb bytes as u32 words (`byte count mismatch`; Q4_0 and Q8_0 need n k / 32 even)"}};
}

}  // namespace

void register_quant(std::vector<KernelSpec>& out) {
  out.push_back(
      {.name = "dequantize_blocks",
       .family = "quant",
       .driver = "dequantize",
       .summary = "ggml blocks to f32 [n, k]: Q4_0 (nibble - 8) d; Q8_0 i8 d; Q4_K (D sc) q - (M m) with "
                  "get_scale_min_k4's 6-bit fields",
       .source = "exec.rs:1530 (dequantize_blocks), exec.rs:1583 (dequantize_q4_km_block)",
       .inputs = {{.name = "w", .dtypes = {DType::u32}, .min_rank = 1, .max_rank = 1}},
       .params = quant_params(),
       .outputs = {{.dtype = DType::f32}},
       .preconditions = with(with(tensor_rules("exactly one input tensor w", "w", "w is u32 (the weight's words)"),
                                  with(param_rules("quant_type", "an integer"),
                                       with(param_rules("k", "an integer"), param_rules("n", "an integer")))),
                             weight_rules()),
       .accuracy = models::exact_on({DType::u32}),
       // Every value is a multiple of 2^-24 (d and dmin are halves, times
       // integers; Q4_K's difference of two such) below 2^26 in magnitude,
       // or the infinity or NaN of an infinite or NaN scale: never
       // subnormal or near either end of f32's range.
       .values = {.lo = 0, .hi = 0, .reaches = {ResultClass::zero, ResultClass::normal, ResultClass::inf, ResultClass::nan}},
       .math = {oracle::identity, oracle::replay::identity, oracle::fast::identity},
       .oracle_text = "the format's value from the spec side's model of quant-formats.md (the scale half exactly to "
                      "f32; Q4_K's product and difference each one f32 rounding), bit for bit",
       .notes = "The bytes are the u32 words' little-endian bytes (reference-semantics.md §18). The sweeps are "
                "exhaustive over the scale fields: all 65536 halves as Q4_0's and Q8_0's d and as Q4_K's d and dmin "
                "(subnormals, infinities and NaN included, the quant bytes random), and all 4096 (scale, min) pairs "
                "of Q4_K's 6-bit fields. A NaN scale gives NaN values with its payload (a product's NaN)."});
  out.push_back(
      {.name = "qmatmul",
       .family = "quant",
       .driver = "qmatmul",
       .summary = "a @ dequant(w)^T: f32 a [M, K] times the dequantized weight [N, K] (HF out x in), folded in f32",
       .source = "exec.rs:1494 (eval_qmatmul)",
       .inputs = {{.name = "a", .dtypes = {DType::f32}, .min_rank = 2, .max_rank = 2},
                  {.name = "w", .dtypes = {DType::u32}, .min_rank = 1, .max_rank = 1}},
       .params = quant_params(),
       .outputs = {{.dtype = DType::f32}},
       .preconditions = with(
           with(tensor_rules("exactly two input tensors a (f32), w (u32)", "a",
                             "a is f32 (`qmatmul: activations must be F32`)",
                             {{Rule::shape_negative_dim, "w", "every dimension is >= 0"},
                              {Rule::buffer_size, "w", "the buffer holds exactly numel x dtype-size bytes"},
                              {Rule::dtype_unsupported, "w", "w is u32 (`qmatmul: weight bytes must be U32`)"},
                              // (a batched a [B, M, K] times the weight is defined: ggml's mul_mat)
                              {.rule = Rule::rank_exact, .operand = "a",
                               .text = "a is rank 2 [M, K] (`matmul: operands must have the same rank, got 3 and 2`)",
                               .reference_limit = true, .ungraded_result = true},
                              {Rule::shape_inner, "a", "a's last dim is k (matmul's inner-dim assert)"}}),
                with(param_rules("quant_type", "an integer"),
                     with(param_rules("k", "an integer"), param_rules("n", "an integer")))),
           weight_rules()),
       .accuracy = {{DType::f32, models::dot_product(DType::f32)}},
       .properties = {{.name = "dequantize_blocks, then transpose_2d and matmul, gives the same (bit for bit in the "
                               "reference profile)",
                       .check = "dequant_then_matmul"}},
       .values = {.lo = -4, .hi = 4, .points = thresholds::none},
       .math = {oracle::dot, oracle::replay::dot},
       .oracle_text = "sum_k a[m, k] w[n, k], exact (the dot-product oracle), w the model's dequantized values; S = "
                      "(gamma_K sum |a w| + K eta (1+u)^(K-1)) / u",
       .notes = "Exec-only: eval_qmatmul dequantizes to f32 [N, K], transposes to [K, N] and runs the f32 matmul "
                "(fold from +0 in k order, no FMA). Activations rank 2 only (the graph's [..., M, K] panics in "
                "matmul's same-rank rule). kconform names it qmatmul (the FKC block is eval_qmatmul)."});
}

}  // namespace kc::contract
