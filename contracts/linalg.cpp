// Contracts of matmul, the transposes and permute (inventory "Matmul /
// linear algebra"; reference-semantics.md §8, §18, §19), and the
// executor's mixed-precision matmul arm (f32 activations x bf16 weights).
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/linalg.cpp).
KC_MATH_OF(Dot, dot)

namespace kc::contract {

namespace {

namespace pts = thresholds;

// Products of the ordinary range stay far from overflow; the sweeps pair
// the special values and thresholds (drivers/matmul.cpp) for the edges.
const ValueProfile kDotValues{.lo = -1e3, .hi = 1e3, .points = pts::scalar};

const char* kDotNotes =
    "Fold over kk ascending from +0 in T: each product rounded into T, then added; no FMA, no wider accumulator "
    "(bf16/f16 accumulate in bf16/f16, each operation through f32). k = 0 gives +0. A fold whose partial sum or "
    "product overflows although the exact sum is finite is graded against the replayed fold in the reference profile; "
    "the conformance profile accepts +inf, -inf or NaN wherever some order of the additions reaches it (overflow "
    "latitude, docs/accuracy-bounds.md). A zero result is +0; "
    "-0 is accepted where every product is -0 (a fold that starts from the first product).";

std::vector<Precondition> matmul_rules(std::string_view arity) {
  return tensor_rules(arity, "a", "a is f32, f64, bf16 or f16 (U32 is rejected)",
                      {{Rule::dtype_mismatch, "b",
                        "b has a's dtype, or a is f32 and b bf16 (the mixed arm); any other mixture: `matmul: "
                        "unsupported operand dtypes`"},
                       {Rule::rank_min, "a", "rank(a) >= 2 and rank(b) >= 2"},
                       {Rule::rank_mismatch, "b", "rank(b) == rank(a): no rank-2 x rank-3 promotion"},
                       {Rule::batch_mismatch, "b", "the batch prefixes are equal: no batch broadcasting"},
                       {Rule::inner_mismatch, "b", "a.shape[-1] == b.shape[-2]"},
                       {Rule::batch_empty, "a",
                        "no zero-sized batch dim unless m or n is 0: the reference indexes out of bounds; the "
                        "product is defined (empty), which any correct implementation may return",
                        true}});
}

KernelSpec dot_kernel(KernelSpec k) {
  k.family = "linalg";
  k.driver = "matmul";
  k.accuracy = models::per_float_dtype(models::dot_product);
  k.values = kDotValues;
  k.math = {oracle::dot, oracle::replay::dot};
  k.oracle_text = "sum_kk a[.., i, kk] b[.., kk, j], exact (oracles/exact_sum.h); S = (gamma_k sum |a b| + k eta "
                  "(1+u)^(k-1)) / u";
  k.notes = kDotNotes;
  return k;
}

KernelSpec mover(KernelSpec k) {
  k.family = "linalg";
  k.driver = "axis_permutation";
  k.values = kMoveValues;
  k.math = {oracle::identity, oracle::replay::identity};
  k.oracle_text = "the source element, bit for bit (drivers/index_maps.h permuted_source)";
  return k;
}

// The inverse of permute's axes: inv[axes[i]] = i.
Params inverse_axes(const Params& p) {
  const std::vector<std::int64_t>& axes = p.shape("axes");
  std::vector<std::int64_t> inv(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) inv[static_cast<std::size_t>(axes[i])] = static_cast<std::int64_t>(i);
  return Params().set("axes", inv);
}

}  // namespace

void register_linalg(std::vector<KernelSpec>& out) {
  out.push_back(dot_kernel({.name = "matmul", .summary = "batched a @ b: fold over kk of a[.., i, kk] b[.., kk, j] in T",
                            .source = "ops.rs:578",
                            .inputs = {{.name = "a", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 6},
                                       {.name = "b", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 6}},
                            .preconditions = matmul_rules("exactly two input tensors a, b")}));
  out.push_back(dot_kernel(
      {.name = "matmul_2d", .summary = "a [m, k] @ b [k, n]: fold over kk in T", .source = "ops.rs:651",
       .inputs = {{.name = "a", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2},
                  {.name = "b", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2}},
       .preconditions = tensor_rules("exactly two input tensors a, b", "a", "a is f32, f64, bf16 or f16",
                                     {{Rule::dtype_mismatch, "b", "b has a's dtype"},
                                      {Rule::rank_exact, "a", "rank(a) == 2 (`reference matmul_2d: lhs must be rank 2`)"},
                                      {Rule::rank_exact, "b", "rank(b) == 2"},
                                      {Rule::inner_mismatch, "b", "a.shape[1] == b.shape[0]"}})}));
  out.push_back(dot_kernel(
      {.name = "matmul_f32_bf16",
       .summary = "eval_matmul's mixed arm: f32 a @ bf16 b -> f32, b widened exactly, then the f32 matmul",
       .source = "exec.rs:1283",
       .inputs = {{.name = "a", .dtypes = {DType::f32}, .min_rank = 2, .max_rank = 6},
                  {.name = "b", .dtypes = {DType::bf16}, .min_rank = 2, .max_rank = 6}},
       .preconditions = matmul_rules("exactly two input tensors a (f32), b (bf16)")}));
  out.back().accuracy = {{DType::f32, models::dot_product(DType::f32)}};
  out.back().preconditions[3].text = "a is f32 (the mixed arm's activations)";
  out.back().preconditions[4].text = "b is bf16 (the mixed arm's weights); f32, f64 or f16 b is another arm";
  out.back().notes = "Exec-only (no standalone kernel): the reference's `matmul` op with an f32 lhs and a bf16 rhs "
                     "widens the rhs to f32 exactly and runs the f32 matmul; kconform names it as its own kernel so that "
                     "its cases and figures are kept apart. Otherwise as matmul.";
  // fused_linear: the fold of matmul with the bias as a last, exact product
  // (bias x 1): fl(mm + bias) is that fold's last step, so the dot
  // products' bound holds with n = k + 1 terms and their replay gives the
  // reference's bits.
  std::vector<Precondition> linear_rules = matmul_rules("exactly three input tensors a, b, bias");
  linear_rules[3].text = "a is f32 or f64 (`fused_linear: unsupported matmul dtype combination`)";
  linear_rules[4] = {Rule::dtype_mismatch, "b", "b has a's dtype (no mixed arm)"};
  linear_rules.push_back({Rule::dtype_mismatch, "bias", "bias has a's dtype (`fused_linear: bias dtype .. must match`)"});
  linear_rules.push_back({Rule::shape_broadcast, "bias",
                          "bias broadcasts to the matmul's shape [..., m, n] (right-aligned, each dim equal or 1)"});
  out.push_back(dot_kernel(
      {.name = "fused_linear",
       .summary = "eval_fused_linear: matmul(a, b) in T, then + bias broadcast to its shape (one more rounding)",
       .source = "exec.rs:1400",
       .inputs = {{.name = "a", .dtypes = {DType::f32, DType::f64}, .min_rank = 2, .max_rank = 6},
                  {.name = "b", .dtypes = {DType::f32, DType::f64}, .min_rank = 2, .max_rank = 6},
                  {.name = "bias", .dtypes = {DType::f32, DType::f64}, .min_rank = 0, .max_rank = 6}},
       .preconditions = linear_rules,
       .properties = {{.name = "equals matmul then broadcast_add (bit for bit in the reference profile)",
                       .check = "linear_as_matmul_add", .related = "matmul"}}}));
  out.back().family = "fused";  // (issue 12's "quantized and fused" kernels; the matmul driver)
  out.back().accuracy = {{DType::f32, models::dot_product(DType::f32)}, {DType::f64, models::dot_product(DType::f64)}};
  out.back().oracle_text = "sum_kk a[.., i, kk] b[.., kk, j] + bias[..], exact (the dot-product oracle, the bias as a "
                           "last product bias x 1); S = (gamma_(k+1) (sum |a b| + |bias|) + (k+1) eta (1+u)^k) / u";
  out.back().notes = "Exec-only: ops::matmul (no mixed f32 x bf16 arm), then broadcast_to(bias, mm.shape) and "
                     "ops::add, a separate rounding, not fused; the bias may have any broadcastable shape, not only "
                     "[n]. The sum's first operand is mm: mm's NaN when both are NaN. Otherwise as matmul.";

  const Property twice{.name = "transpose twice is the identity", .check = "round_trip"};
  out.push_back(mover({.name = "transpose_2d", .summary = "[m, n] -> [n, m], physically reordered",
                       .source = "ops.rs:2457",
                       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2}},
                       .preconditions = tensor_rules("exactly one input tensor", "x",
                                                     "x is f32, f64, bf16 or f16 (Transpose on U32 panics, §19)",
                                                     {{Rule::rank_exact, "x", "rank(x) == 2"}}),
                       .accuracy = models::exact_everywhere(),
                       .properties = {twice}}));
  out.push_back(mover({.name = "transpose_last_two", .summary = "[..., m, n] -> [..., n, m], batched over leading dims",
                       .source = "ops.rs:2420",
                       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 6}},
                       .preconditions = tensor_rules(
                           "exactly one input tensor", "x", "x is f32, f64, bf16 or f16",
                           {{Rule::rank_min, "x", "rank(x) >= 2"},
                            {Rule::batch_empty, "x",
                             "no zero-sized batch dim unless m or n is 0: the reference indexes out of bounds; the "
                             "result is defined (empty), which any correct implementation may return",
                             true}}),
                       .accuracy = models::exact_everywhere(),
                       .properties = {twice}}));
  std::vector<Precondition> axes_rules = param_rules("axes", "a list of axes");
  axes_rules.push_back({Rule::axes_length, "axes", "len(axes) == rank(x)"});
  axes_rules.push_back({Rule::axes_out_of_range, "axes", "every axis < rank(x)"});
  axes_rules.push_back({Rule::axes_duplicate, "axes", "no axis twice"});
  out.push_back(mover({.name = "permute", .summary = "out.shape[i] = x.shape[axes[i]], physically reordered row-major",
                       .source = "ops.rs:2363",
                       .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 0, .max_rank = 6}},
                       .params = {{.name = "axes", .kind = ParamKind::shape, .domain = "a permutation of 0..rank(x)"}},
                       .preconditions = tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16, f16 or u32",
                                                     axes_rules),
                       .accuracy = models::exact_on(kFloatAndU32),
                       .properties = {{.name = "permute by the inverse permutation is the identity",
                                       .check = "round_trip", .inverse = inverse_axes}},
                       .notes = "Takes U32 data too (T: Clone + Default; the exec arm accepts U32, §19)."}));
}

}  // namespace kc::contract
