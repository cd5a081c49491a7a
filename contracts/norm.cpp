// Contracts of layer_norm and rms_norm over the last axis (no affine) and
// of their backwards (inventory "Normalization & attention compositions";
// reference-semantics.md §10). The oracles compute each element's bound by
// replaying the reference's steps on values with rigorous error bounds
// (oracles/norm.cpp; docs/accuracy-bounds.md "Norms").
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/norm.cpp).
KC_MATH_OF(Row, layer_norm)
KC_MATH_OF(Row, layer_norm_backward)
KC_MATH_OF(Row, rms_norm)
KC_MATH_OF(Row, rms_norm_backward)

namespace kc::contract {

namespace {

constexpr std::string_view kStaged =
    "the reference's steps replayed on (exact value, error bound) pairs: a + b within ea + eb + u(|a + b| + ea + eb); a "
    "b within |a| eb + |b| ea + ea eb + u|a^ b^| + ulp_min/2; a / b within (|b| ea + |a| eb)/(|b|(|b| - eb)) + u|a^/b^| "
    "+ ulp_min/2; sqrt a within ea/(sqrt a + sqrt(a - ea)) + u sqrt a^; a fold within sum e + gamma_(n-1) sum(|t| + e)";

std::vector<DTypeAccuracy> staged() {
  return models::per_float_dtype([](DType t) { return models::stage_bound(t, kStaged); });
}

Param eps_param() {
  return {.name = "eps", .kind = ParamKind::real, .domain = "an f64, converted to T(eps) (NumCast), added inside the sqrt",
          .samples = {1e-5, 1e-6, 0.0, 1e-12, 1e-3, 0.1}, .lo = 0, .hi = 1};
}

// An empty last axis is the reference's assert, not the operation's limit:
// x [..., 0] has no rows, and its normalization is the empty tensor of x's
// shape (docs/conformance-audit.md).
Precondition last_dim_zero(std::string_view name) {
  return {.rule = Rule::last_dim_zero, .operand = "x",
          .text = std::string(name) + ": last dim must be non-zero (the reference's assert; the result is defined: "
                  "empty, which any correct implementation may return)",
          .reference_limit = true};
}

std::vector<Precondition> forward_rules(std::string_view name) {
  return with(tensor_rules("exactly one input tensor x", "x", "x is f32, f64, bf16 or f16",
                           {{Rule::rank_min, "x", std::string(name) + ": input must be rank >= 1"},
                            last_dim_zero(name)}),
              param_rules("eps", "a real (f64)"));
}
std::vector<Precondition> backward_rules(std::string_view name) {
  return with(tensor_rules("exactly two input tensors x, g", "x", "x is f32, f64, bf16 or f16",
                           {{Rule::dtype_mismatch, "g", "g has x's dtype (`unsupported operand dtypes`)"},
                            {Rule::rank_min, "x", std::string(name) + ": input must be rank >= 1"},
                            {Rule::shape_mismatch, "g", "g has x's shape exactly (`" + std::string(name) + ": shape mismatch`)"}}),
              param_rules("eps", "a real (f64)"));
}

// Row values of both signs over a few binades and where x^2 and its sums
// overflow (powers: sqrt(max), ...); the driver adds constant
// rows (variance 0), offset and huge or tiny rows.
const ValueProfile kNormValues{.lo = -8, .hi = 8, .points = thresholds::powers};

// The outputs are bounded by sqrt(n) (layer_norm, rms_norm), so nothing near overflow.
ValueProfile bounded(ValueProfile p) {
  using enum ResultClass;
  p.reaches = ResultSet{zero, subnormal, near_underflow, normal, nan};
  return p;
}

}  // namespace

void register_norm(std::vector<KernelSpec>& out) {
  out.push_back(
      {.name = "layer_norm_last_dim",
       .family = "norm",
       .driver = "last_dim",
       .summary = "LayerNorm over the last axis, no affine: y = (x - mu) / sqrt(v + eps), v the biased variance (/n)",
       .source = "ops.rs:2646",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}},
       .params = {eps_param()},
       .preconditions = forward_rules("layer_norm_last_dim"),
       .accuracy = staged(),
       .properties = {{.name = "mean 0 and biased variance v / (v + eps) within the elements' bounds",
                       .check = "normalized_moments"},
                      {.name = "layer_norm_last_dim_backward(x, g) is the vector-Jacobian product within its bound",
                       .check = "backward_matches_forward",
                       .related = "layer_norm_last_dim_backward"}},
       .row_map = RowMap::layer_norm,
       .values = bounded(kNormValues),
       .math = {oracle::layer_norm, oracle::replay::layer_norm},
       .oracle_text = "(x_i - mu) / sqrt(v + T(eps)) in MPFR, mu = sum x / T(n), v = sum (x - mu)^2 / T(n); S = the "
                      "stages' bound / u",
       .notes = "Biased variance (PyTorch's). The count enters as T(n) (bf16 divides a row of 257 by 256), eps as "
                "T(eps). A constant row with eps = 0 is 0/0: NaN exactly; where the reference returns a number there "
                "(its mean rounded away from the row's value), its replay is the grade and NaN is accepted."});
  out.push_back(
      {.name = "layer_norm_last_dim_backward",
       .family = "norm",
       .driver = "last_dim",
       .summary = "LayerNorm's VJP from x: dx = r ((g - mean g) - yh mean(g yh)), yh = (x - mu) r, r = 1/sqrt(v + eps)",
       .source = "ops.rs:2577",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}, {.name = "g", .dtypes = kFloatSet, .min_rank = 1}},
       .params = {eps_param()},
       .preconditions = backward_rules("layer_norm_last_dim_backward"),
       .accuracy = staged(),
       .values = kNormValues,
       .math = {oracle::layer_norm_backward, oracle::replay::layer_norm_backward},
       .oracle_text = "r ((g_i - sum g / T(n)) - yh_i sum g yh / T(n)) in MPFR; S = the stages' bound / u",
       .notes = "The closed form recomputes mu, v and r as the forward does; one loop folds sum g and sum g yh. No "
                "last-dim assert (an empty last axis has no rows). With T(n) = n it is the exact VJP of the forward."});
  out.push_back(
      {.name = "rms_norm_last_dim",
       .family = "norm",
       .driver = "last_dim",
       .summary = "RMSNorm over the last axis, no affine: y = x / sqrt(mean(x^2) + eps)",
       .source = "ops.rs:2699",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}},
       .params = {eps_param()},
       .preconditions = forward_rules("rms_norm_last_dim"),
       .accuracy = staged(),
       .properties = {{.name = "mean of y^2 is q / (q + eps) within the elements' bounds", .check = "normalized_moments"},
                      {.name = "rms_norm_last_dim_backward(x, g) is the vector-Jacobian product within its bound",
                       .check = "backward_matches_forward",
                       .related = "rms_norm_last_dim_backward"}},
       .row_map = RowMap::rms_norm,
       .values = bounded(kNormValues),
       .math = {oracle::rms_norm, oracle::replay::rms_norm},
       .oracle_text = "x_i / sqrt(sum x^2 / T(n) + T(eps)) in MPFR, the sum of squares exact; S = the stages' bound / u",
       .notes = "r = 1 / sqrt(q + eps) is a division, then y = x r. A zero row with eps = 0 is 0 * inf: NaN."});
  out.push_back(
      {.name = "rms_norm_last_dim_backward",
       .family = "norm",
       .driver = "last_dim",
       .summary = "RMSNorm's VJP from x: dx = r (g - x c), c = sum(g x) / (n D), D = mean(x^2) + eps, r = 1/sqrt(D)",
       .source = "ops.rs:2749",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}, {.name = "g", .dtypes = kFloatSet, .min_rank = 1}},
       .params = {eps_param()},
       .preconditions = backward_rules("rms_norm_last_dim_backward"),
       .accuracy = staged(),
       .values = kNormValues,
       .math = {oracle::rms_norm_backward, oracle::replay::rms_norm_backward},
       .oracle_text = "r (g_i - x_i sum(g x) / (T(n) D)) in MPFR, both sums exact; S = the stages' bound / u",
       .notes = "One loop folds sum x x and sum g x; c divides by the product T(n) D, computed first."});
}

}  // namespace kc::contract
