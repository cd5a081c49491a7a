// Contracts of softmax and log_softmax over the last axis and of their
// backwards (inventory "Normalization & attention compositions";
// reference-semantics.md §10). The oracles compute each element's bound
// from the stages of the reference's evaluation (oracles/softmax.cpp,
// docs/accuracy-bounds.md "Softmax").
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/softmax.cpp).
KC_MATH_OF(Row, log_softmax)
KC_MATH_OF(Row, log_softmax_backward)
KC_MATH_OF(Row, softmax)
KC_MATH_OF(Row, softmax_backward)

namespace kc::contract {

namespace {

// Every oracle here gives its elements' rms bound: the case statistics run.
std::vector<DTypeAccuracy> staged(std::string_view derivation) {
  return models::per_float_dtype([derivation](DType t) { return models::stage_bound(t, derivation); });
}

std::vector<Precondition> forward_rules(std::string_view name) {
  return tensor_rules("exactly one input tensor x", "x", "x is f32, f64, bf16 or f16",
                      {{Rule::rank_min, "x", std::string(name) + ": input must be rank >= 1"}});
}
std::vector<Precondition> backward_rules(std::string_view name) {
  return tensor_rules("exactly two input tensors y, g", "y", "y is f32, f64, bf16 or f16",
                      {{Rule::dtype_mismatch, "g", "g has y's dtype (`unsupported operand dtypes`)"},
                       {Rule::rank_min, "y", std::string(name) + ": input must be rank >= 1"},
                       {Rule::shape_mismatch, "g", "g has y's shape exactly (`" + std::string(name) + ": shape mismatch`)"}});
}

// Row values: the entry's ordinary range, exp's thresholds (the driver
// adds the rows that stress softmax: a dominant logit, one value, shifts
// past exp's overflow threshold, huge and tiny scales).
const ValueProfile kRows{.lo = -20, .hi = 20, .points = thresholds::exp};
// softmax's results lie in [0, 1] (or are NaN): no infinity, nothing near overflow.
ValueProfile in_unit_interval(ValueProfile p) {
  using enum ResultClass;
  p.reaches = ResultSet{zero, subnormal, near_underflow, normal, nan};
  return p;
}

}  // namespace

void register_softmax(std::vector<KernelSpec>& out) {
  out.push_back(
      {.name = "softmax_last_dim",
       .family = "softmax",
       .driver = "last_dim",
       .summary = "softmax over the last axis, stable: y_i = exp(x_i - m) / sum_j exp(x_j - m), m the row's maximum",
       .source = "ops.rs:2484",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}},
       .preconditions = forward_rules("softmax_last_dim"),
       .accuracy = staged("m exact; d_j = fl(x_j - m) within u|x_j - m|; e_j = fl(exp d_j) within (1 + eps) e^(u|x_j - m|) "
                          "- 1 relative (eps = 2uE, E libm ulps) plus E ulp_min; s = fold within gamma_(n-1) sum e_j; y = "
                          "fl(e_i / s): the deviation of e_i/s over the ranges of e_i and s, plus u e_i/s and ulp_min"),
       .properties = {{.name = "rows sum to 1 within the sum of their elements' bounds", .check = "rows_sum_to_one"},
                      {.name = "softmax_last_dim_backward(y, g) is the vector-Jacobian product at x within the bounds",
                       .check = "backward_matches_forward",
                       .related = "softmax_last_dim_backward"}},
       .row_map = RowMap::softmax,
       .values = in_unit_interval(kRows),
       .math = {oracle::softmax, oracle::replay::softmax},
       .oracle_text = "exp(x_i - m) / sum_j exp(x_j - m) in MPFR; S = (per-element bound of the reference's stages) / u",
       .notes = "A row holding a NaN or +inf, or only -inf, is all NaN (the max ignores NaN, the sum propagates it; inf - "
                "inf). The divisor is the fold of the stored exponentials; y is a division (not a multiply by 1/s, "
                "which attention uses). PyTorch agrees on every special row."});
  out.push_back(
      {.name = "log_softmax_last_dim",
       .family = "softmax",
       .driver = "last_dim",
       .summary = "log-softmax over the last axis, stable: y_i = (x_i - m) - ln sum_j exp(x_j - m)",
       .source = "ops.rs:2895",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}},
       .preconditions = forward_rules("log_softmax_last_dim"),
       .accuracy = staged("d_i within u|x_i - m|; s within Ds of Z (softmax's stages); L = fl(ln s) within ln's range over "
                          "[Z - Ds, Z + Ds] plus eps |ln s|; y = fl(d_i - L): (Dd + DL)(1 + u) + u|z|, absolute"),
       .properties = {{.name = "equals ln of softmax_last_dim within both bounds", .check = "log_of_softmax",
                       .related = "softmax_last_dim"},
                      {.name = "log_softmax_last_dim_backward(y, g) is the vector-Jacobian product at x within the bounds",
                       .check = "backward_matches_forward",
                       .related = "log_softmax_last_dim_backward"}},
       .row_map = RowMap::log_softmax,
       .values = kRows,
       .math = {oracle::log_softmax, oracle::replay::log_softmax},
       .oracle_text = "(x_i - m) - log1p(Z - 1) in MPFR, Z = sum exp(x_j - m); S = (the stages' bound) / u",
       .notes = "x_i - m is subtracted first, then ln s. Special rows as softmax's; an element -inf gives -inf."});
  out.push_back(
      {.name = "softmax_last_dim_backward",
       .family = "softmax",
       .driver = "last_dim_softmax_grad",
       .summary = "softmax's vector-Jacobian product from its output: dx_i = y_i (g_i - sum_j y_j g_j)",
       .source = "ops.rs:2529",
       .inputs = {{.name = "y", .dtypes = kFloatSet, .min_rank = 1}, {.name = "g", .dtypes = kFloatSet, .min_rank = 1}},
       .preconditions = backward_rules("softmax_last_dim_backward"),
       .accuracy = staged("d = fold of fl(y_j g_j): the dot products' bound D; t = fl(g_i - d) within D(1 + u) + u|g_i - d|; "
                          "dx = fl(y_i t): |y_i| (Dt (1 + u) + u |g_i - d|) + ulp_min"),
       .values = {.lo = -10, .hi = 10, .points = thresholds::exp},
       .math = {oracle::softmax_backward, oracle::replay::softmax_backward},
       .oracle_text = "y_i (g_i - sum y_j g_j), g_i - sum exact (a fixed-point sum), one product in MPFR",
       .notes = "The exact VJP of softmax at the point whose output is y (any y: the formula is the definition). Where the "
                "reference's fold or a product overflows although the exact value is finite, its replay is the grade, "
                "and another order's non-finite value or a result within the bound of the exact one is accepted."});
  out.push_back(
      {.name = "log_softmax_last_dim_backward",
       .family = "softmax",
       .driver = "last_dim_log_softmax_grad",
       .summary = "log_softmax's vector-Jacobian product from its output: dx_i = g_i - exp(y_i) sum_j g_j",
       .source = "ops.rs:2926",
       .inputs = {{.name = "y", .dtypes = kFloatSet, .min_rank = 1}, {.name = "g", .dtypes = kFloatSet, .min_rank = 1}},
       .preconditions = backward_rules("log_softmax_last_dim_backward"),
       .accuracy = staged("G = fold of g within gamma_(n-1) sum|g|; exp(y_i) within eps relative plus E ulp_min; their "
                          "product one rounding; dx = fl(g_i - p): Dp (1 + u) + u|z|"),
       .values = {.lo = -10, .hi = 10, .points = thresholds::exp},
       .math = {oracle::log_softmax_backward, oracle::replay::log_softmax_backward},
       .oracle_text = "g_i - exp(y_i) sum g_j in MPFR, the sum exact",
       .notes = "The exact VJP of log_softmax at the point whose output is y. Overflow as softmax_last_dim_backward's."});
}

}  // namespace kc::contract
