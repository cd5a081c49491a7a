// Contracts of the padding kernels (inventory "Padding";
// reference-semantics.md §14): pad_const, pad_reflect, pad_replicate and
// pad_backward (an f64 fold narrowed to T).
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/reduction.cpp).
KC_MATH_OF(Terms, sum_wide)

namespace kc::contract {

namespace {

KernelSpec padder(KernelSpec k) { return mover(std::move(k), "padding", "padding"); }

Param padding_param() {
  return {.name = "padding", .kind = ParamKind::shape,
          .domain = "[before_0, after_0, before_1, after_1, ...]: a pair per axis of x"};
}

// The padding's rules: present, a shape of non-negative entries, a pair
// per axis; reflect and replicate also read inside each axis.
std::vector<Precondition> padding_rules(std::string_view mode_rule) {
  std::vector<Precondition> v = param_rules("padding", "a shape (a list of pairs)");
  v.push_back({Rule::shape_negative_dim, "padding", "every entry is >= 0 (usize)"});
  v.push_back({Rule::padding_length, "padding",
               "2 rank(x) entries: a (before, after) pair per axis (`pad: padding.len() != input rank`)"});
  if (!mode_rule.empty()) v.push_back({Rule::padding_too_large, "padding", std::string(mode_rule)});
  return v;
}

const char* kReflectRule = "reflect: n >= 1 and before, after <= n - 1 on every axis (documented but not enforced by the "
                           "reference, which then reads another row or panics: rejected here, PyTorch's rule)";
const char* kReplicateRule = "replicate: an axis of size 0 takes no padding (the reference reads out of bounds)";

}  // namespace

void register_padding(std::vector<KernelSpec>& out) {
  const std::vector<Operand> x_float{{.name = "x", .dtypes = kFloatSet}};
  const auto x_rules = [](std::vector<Precondition> extra) {
    return tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16 or f16 (Pad rejects U32)", std::move(extra));
  };
  out.push_back(padder({.name = "pad_const", .summary = "fill T(value), then copy x at offset `before`", .source = "ops.rs:1532",
                       .inputs = x_float,
                       .params = {padding_param(), {.name = "value", .kind = ParamKind::real, .domain = "any real"}},
                       .preconditions = x_rules(with(padding_rules(""), param_rules("value", "a real (f64)"))),
                       .oracle_text = "x's element inside, T(value) (NumCast) on the border, bit for bit"}));
  out.push_back(padder({.name = "pad_reflect", .summary = "reflect pad, the edge excluded: i < 0 -> -i, i >= n -> 2(n - 1) - i",
                       .source = "ops.rs:1570", .inputs = x_float, .params = {padding_param()},
                       .preconditions = x_rules(padding_rules(kReflectRule)),
                       .oracle_text = "the reflected element of x, bit for bit",
                       .notes = "Each output coordinate maps back per axis; the paddings the reference leaves unchecked "
                                "are rejected."}));
  out.push_back(padder({.name = "pad_replicate", .summary = "replicate pad: the edge element clamped to",
                       .source = "ops.rs:1582", .inputs = x_float, .params = {padding_param()},
                       .preconditions = x_rules(padding_rules(kReplicateRule)),
                       .oracle_text = "the nearest edge element of x, bit for bit",
                       .notes = "Each output coordinate clamps per axis; an empty axis takes no padding."}));

  std::vector<Precondition> back = tensor_rules(
      "exactly one input tensor grad_out", "grad_out", "grad_out is f32, f64, bf16 or f16 (PadBackward rejects U32)",
      with(param_rules("in_shape", "a shape"),
           with({{Rule::shape_negative_dim, "in_shape", "every dim of in_shape is >= 0"}},
                with(param_rules("mode", "an integer"),
                     {{Rule::param_domain, "mode", "mode is 0 (constant), 1 (reflect) or 2 (replicate) (`unknown mode_tag`)"}}))));
  back = with(back, padding_rules("reflect and replicate as pad_reflect and pad_replicate"));
  back.push_back({Rule::shape_mismatch, "grad_out",
                  "grad_out has in_shape's padded dims (not checked by the reference, which reads out of bounds)"});
  out.push_back({.name = "pad_backward", .family = "padding", .driver = "pad_backward",
                 .summary = "each input position the sum of the grad_out elements that read it: f64 fold, then T",
                 .source = "ops.rs:1634",
                 .inputs = {{.name = "grad_out", .dtypes = kFloatSet, .min_rank = 1}},
                 .params = {{.name = "in_shape", .kind = ParamKind::shape, .domain = "the forward input's dims"},
                            padding_param(),
                            {.name = "mode", .kind = ParamKind::integer, .domain = "0 constant, 1 reflect, 2 replicate",
                             .min = 0, .max = 2}},
                 .preconditions = back,
                 .accuracy = models::per_float_dtype([](DType t) {
                   Accuracy a = models::wide_sum_narrowed(t);
                   a.check_case_statistics = true;  // 256 sums of 24 terms
                   return a;
                 }),
                 .values = {.lo = -1e3, .hi = 1e3, .points = thresholds::scalar},
                 .math = {oracle::sum_wide, oracle::replay::sum_wide},
                 .oracle_text = "per input position, the exact sum of the grad_out elements that read it; "
                                "S = gamma_{k-1}(u_f64)/u_f64 sum |g|",
                 .notes = "The reference walks grad_out in row-major order, adds f64(g) into an f64 accumulator at "
                          "the position each element was read from (constant mode: the interior only), then narrows "
                          "with NumCast (halves: f64 -> f32 -> T). An unknown mode panics only once an element is "
                          "visited there; rejected here up front."});
}

}  // namespace kc::contract
