// Contracts of the unary family's composed activations (inventory "Unary
// elementwise": gelu_erf, sigmoid, silu, gelu; reference-semantics.md §1):
// their exact values cancel for x << 0 (1 + erf, 1 + tanh), so their
// accuracy models are condition-aware (contracts/accuracy_models.cpp).
#include "contracts/properties.h"
#include "contracts/unary_family.h"
#include "oracles/oracle.h"

// Each kernel's exact function, replay and fast path (oracles/oracle.h),
// defined in oracles/activations.cpp.
KC_MATH_OF(Scalar, gelu_erf)
KC_MATH_OF(Scalar, sigmoid)
KC_MATH_OF(Scalar, silu)
KC_MATH_OF(Scalar, gelu_tanh)

namespace kc::contract {

using namespace unary_family;  // NOLINT: the family's shared vocabulary, contracts/unary_family.h

namespace {
// x times a gate in [0, 1] (gelu's both forms, silu): NaN stays NaN, the
// zeros keep their sign, +inf passes, and -inf gives the reference's
// -inf * 0 = NaN; the function's limit there is -0 (x gate(x) -> 0 from
// below), which a kernel that evaluates the limit (or 0 for a gate that
// underflows) returns: the conformance profile accepts -0 and +0 as well
// (docs/conformance-audit.md).
const std::vector<SpecialRule> kGatedSpecials{{VC::nan, OC::nan},
                                              {VC::pos_inf, OC::pos_inf},
                                              {VC::neg_inf, OC::nan, {OC::neg_zero, OC::pos_zero}},
                                              {VC::pos_zero, OC::pos_zero},
                                              {VC::neg_zero, OC::neg_zero}};
}  // namespace

void register_activations(std::vector<KernelSpec>& out) {
  out.push_back(unary({
      .name = "gelu_erf", .summary = "(0.5 x)(1 + erf(x / sqrt 2)) in f64, then T", .source = "ops.rs:160",
      .accuracy = each_dtype(models::gelu_erf),
      .specials = kGatedSpecials,
      .properties = {{"gelu_erf(x) <= max(x, 0)", "pointwise", props::below_max_x_0},
                     {"gelu_erf(x) >= -0.25", "pointwise", props::gelu_floor}},
      .values = {.lo = -10, .hi = 10, .points = pts::gelu},
      .math = {oracle::gelu_erf, oracle::replay::gelu_erf}, .oracle_text = "(x/2)(1 + erf(x/sqrt 2)); S = |x|",
      .notes = "PyTorch approximate='none'. -inf gives NaN: (0.5 * -inf) * (1 + -1). The multiplier is the f64 "
               "constant 0x3FE6A09E667F3BCD, not a division by sqrt 2.",
  }));
  out.push_back(unary({
      .name = "sigmoid", .summary = "x >= 0 ? 1/(1+e^-x) : e^x/(1+e^x), three roundings in T", .source = "ops.rs:214",
      .accuracy = each_dtype(models::sigmoid),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::pos_one}, {VC::neg_inf, OC::pos_zero}},
      // Monotone only where T has the precision for it: in bf16 and f16 the
      // three roundings of e/(1+e) break monotonicity (measured exhaustively:
      // bf16 sigmoid(-0.9140625) = 0.287109375 > sigmoid(-0.91015625) = 0.28515625).
      .properties = {{"0 <= sigmoid(x) <= 1", "pointwise", props::in_unit_interval},
                     {"sigmoid is monotone", "monotone", nullptr, {DType::f32, DType::f64}}},
      .values = {.lo = -30, .hi = 30, .points = pts::logistic, .reaches = kBounded},
      .math = {oracle::sigmoid, oracle::replay::sigmoid, oracle::fast::sigmoid}, .oracle_text = "1 / (1 + e^-x)",
      .notes = "Not monotone in bf16 and f16 (the reference's roundings in T); the property is claimed for f32 "
               "and f64 only.",
  }));
  out.push_back(unary({
      .name = "silu", .summary = "x * sigmoid(x) (two passes)", .source = "ops.rs:234",
      .accuracy = each_dtype(models::silu),
      .specials = kGatedSpecials,
      .properties = {{"silu(x) <= max(x, 0)", "pointwise", props::below_max_x_0},
                     {"silu(x) >= -0.3", "pointwise", props::silu_floor}},
      .values = {.lo = -30, .hi = 30, .points = pts::logistic},
      .math = {oracle::silu, oracle::replay::silu}, .oracle_text = "x / (1 + e^-x); S = |x| 2^(emin+1)",
      .notes = "-inf gives NaN: sigmoid(-inf) = 0, then -inf * 0.",
  }));
  out.push_back(unary({
      .name = "gelu", .summary = "(0.5 x)(1 + tanh(c (x + k x^3))), c = sqrt_T(T(2/pi)), k = T(0.044715)",
      .source = "ops.rs:244",
      .accuracy = each_dtype([](DType t) {
        Accuracy a = models::gelu_tanh(t);
        a.check_bias = t == DType::f32;  // where the constant c is not correctly rounded
        return a;
      }),
      .specials = kGatedSpecials,
      .properties = {{"gelu(x) <= max(x, 0)", "pointwise", props::below_max_x_0},
                     {"gelu(x) >= -0.25", "pointwise", props::gelu_floor}},
      .values = {.lo = -10, .hi = 10, .points = pts::gelu},
      .math = {oracle::gelu_tanh, oracle::replay::gelu_tanh}, .oracle_text = "(x/2)(1 + tanh(c (x + k x^3))) with the reference's c, k in T; S = |x|",
      .notes = "The f32 c is 0x3F4C4229, one ulp below the correctly rounded sqrt(2/pi) (0x3F4C422A): the "
               "square root is taken after rounding 2/pi to T. The oracle uses the reference's c and k, so a "
               "kernel with the correctly rounded constant is biased, which the statistical check detects: a "
               "reference-profile check, since the correctly rounded constant is as correct.",
      .reference_constants = "c = sqrt_T(T(2/pi)) and k = T(0.044715), rounded into T as the reference does",
  }));
}

}  // namespace kc::contract
