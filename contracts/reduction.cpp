// Contracts of the reductions (inventory "Reductions to scalar", "along one
// dim", "Reduce-to-shape", "Broadcast forward"; reference-semantics.md §5-§7).
#include <functional>

#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/cast.cpp, oracles/reduction.cpp).
KC_MATH_OF(Terms, argmax)
KC_MATH_OF(Terms, argmin)
KC_MATH_OF(Scalar, identity)
KC_MATH_OF(CellElement, max_backward)
KC_MATH_OF(Terms, max_fold)
KC_MATH_OF(Terms, mean)
KC_MATH_OF(Terms, min_fold)
KC_MATH_OF(Terms, sum)

namespace kc::contract {

namespace {

namespace pts = thresholds;
using models::per_float_dtype;
std::vector<DTypeAccuracy> exact() { return models::exact_everywhere(); }

std::vector<Precondition> x_rules(std::vector<Precondition> extra) {
  return tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16 or f16 (U32 is rejected)",
                      std::move(extra));
}
std::vector<Precondition> dim_rules(bool arg) {
  std::vector<Precondition> v = param_rules("dim", "an integer");
  v.push_back({Rule::param_domain, "dim", "dim >= 0"});
  v.push_back({Rule::dim_out_of_range, "dim", "dim < rank(x) (the reference panics: `dim D out of bounds`)"});
  if (arg) v.push_back({Rule::dim_empty, "x", "the reduced axis is non-empty when the output is (the reference panics)"});
  return x_rules(v);
}
// An empty max or min has no identity: the reference answers -inf (+inf),
// PyTorch and NumPy reject the call; either is correct (dim.empty, x).
const AllowedRejection kEmptyWhole{Rule::dim_empty, "x", "an empty max or min has no identity: PyTorch rejects it",
                                   [](std::span<const Tensor> in, const Params&) { return in[0].numel() == 0; }};
// (PyTorch checks the reduced axis alone: an empty output is rejected too.)
const AllowedRejection kEmptyAxis{
    Rule::dim_empty, "x", "a max or min over an empty axis has no identity: PyTorch rejects it",
    [](std::span<const Tensor> in, const Params& p) {
      const Dims& d = in[0].dims();
      const auto dim = static_cast<std::size_t>(p.integer("dim"));
      return dim < d.size() && d[dim] == 0;
    }};

std::vector<Precondition> target_rules(bool source_is_bigger) {
  std::vector<Precondition> v = param_rules("target", "a shape");
  v.push_back({Rule::target_rank, "target", source_is_bigger ? "rank(target) <= rank(x)" : "rank(x) <= rank(target)"});
  v.push_back({Rule::target_incompatible, "target",
               source_is_bigger ? "right-aligned, each target dim equals x's or is 1"
                                : "right-aligned, each x dim equals the target's or is 1"});
  return x_rules(v);
}
Param dim_param() {
  return {.name = "dim", .kind = ParamKind::integer, .domain = "0 <= dim < rank(x)", .min = 0, .max = INT32_MAX};
}
Param target_param(std::string_view domain) { return {.name = "target", .kind = ParamKind::shape, .domain = domain}; }

const ValueProfile kSumValues{.lo = -1e3, .hi = 1e3, .points = pts::scalar};
const ValueProfile kSelectValues{.lo = -10, .hi = 10, .points = pts::zero};
// max and min ignore NaN and start from -inf / +inf: an all-NaN or empty
// input gives the start, so a NaN result cannot occur.
const ValueProfile kMaxMinValues{.lo = -10, .hi = 10, .points = pts::zero,
                                 .reaches = ResultSet::all().without({ResultClass::nan})};

// Reductions to a scalar run on the "reduce_all" driver, along one dim on
// "reduce_dim"; the reduce-to-shape kernels name their own driver.
KernelSpec reduction(KernelSpec k) {
  if (k.family.empty()) k.family = "reduction";
  if (k.driver.empty()) k.driver = k.params.empty() ? "reduce_all" : "reduce_dim";
  k.inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = k.params.empty() ? 0 : 1, .max_rank = 6}};
  return k;
}

}  // namespace

void register_reduction(std::vector<KernelSpec>& out) {
  const auto sum = per_float_dtype(models::recursive_sum), mean = per_float_dtype(models::mean);
  const auto sum_stats = per_float_dtype([](DType t) {
    Accuracy a = models::recursive_sum(t);
    a.check_case_statistics = true;  // many output cells per case
    return a;
  });
  const char* kSumNotes = "Fold from +0 in flat index order in T: no pairwise, Kahan or f32 accumulation for halves. "
                          "A partial sum that overflows makes the result that of the fold (inf or NaN) although the "
                          "exact sum may be finite; there the reference profile grades it against the replayed fold, "
                          "and the conformance profile accepts any non-finite result some order of the additions "
                          "reaches (overflow latitude, docs/accuracy-bounds.md).";
  out.push_back(reduction({.name = "sum_all", .summary = "fold-add of every element from +0", .source = "ops.rs:341",
                           .preconditions = x_rules({}), .accuracy = sum,
                           .values = kSumValues, .math = {oracle::sum, oracle::replay::sum}, 
                           .oracle_text = "sum a_i (exact), S = gamma_{n-1}/u sum |a_i|; empty: 0", .notes = kSumNotes}));
  out.push_back(reduction({.name = "max_all", .summary = "start -inf, replace on strict >", .source = "ops.rs:352",
                           .preconditions = x_rules({}), .accuracy = exact(),
                           .zero_sign_checked = true, .values = kMaxMinValues, .math = {oracle::max_fold, oracle::replay::max_fold}, 
                           .oracle_text = "max ignoring NaN, first of equals; empty or all NaN: -inf",
                           .allowed_rejections = {kEmptyWhole}}));
  out.push_back(reduction({.name = "min_all", .summary = "start +inf, replace on strict <", .source = "ops.rs:364",
                           .preconditions = x_rules({}), .accuracy = exact(),
                           .values = kMaxMinValues, .math = {oracle::min_fold, oracle::replay::min_fold}, 
                           .oracle_text = "min ignoring NaN, first of equals; empty or all NaN: +inf",
                           .allowed_rejections = {kEmptyWhole}}));
  out.push_back(reduction({.name = "mean_all", .summary = "sum_all / T(n); empty: NaN", .source = "ops.rs:376",
                           .preconditions = x_rules({}), .accuracy = mean,
                           .values = kSumValues, .math = {oracle::mean, oracle::replay::mean}, 
                           .oracle_text = "sum a_i / T(n), the count rounded into T (bf16: 257 -> 256)",
                           .notes = kSumNotes}));
  const std::tuple<const char*, const char*, const char*, oracle::Math, bool> dims[] = {
      {"sum_dim", "fold-add along dim from +0", "ops.rs:467", {oracle::sum, oracle::replay::sum}, true},
      {"max_dim", "max along dim (start -inf, strict >)", "ops.rs:473", {oracle::max_fold, oracle::replay::max_fold}, false},
      {"min_dim", "min along dim (start +inf, strict <)", "ops.rs:479", {oracle::min_fold, oracle::replay::min_fold}, false},
      {"mean_dim", "sum_dim / T(dims[dim]); empty axis: NaN", "ops.rs:485", {oracle::mean, oracle::replay::mean}, true}};
  for (const auto& [name, summary, source, math, summing] : dims) {
    const bool is_mean = std::string_view(name) == "mean_dim";
    out.push_back(reduction({.name = name, .summary = summary, .source = source, .params = {dim_param()},
                             .preconditions = dim_rules(false),
                             .accuracy = summing ? (is_mean ? mean : sum_stats) : exact(),
                             .values = summing ? kSumValues : kMaxMinValues, .math = math, 
                             .oracle_text = summing ? "per output cell, as sum_all / mean_all over the reduced axis"
                                                    : "per output cell, as max_all / min_all over the reduced axis",
                             .notes = summing ? kSumNotes : "NaN ignored; an empty axis gives the identity.",
                             .allowed_rejections = summing ? std::vector<AllowedRejection>{}
                                                           : std::vector<AllowedRejection>{kEmptyAxis}}));
  }
  for (const bool is_max : {true, false}) {
    out.push_back(reduction(
        {.name = is_max ? "argmax_dim" : "argmin_dim",
         .summary = is_max ? "index of the first maximum along dim (u32)" : "index of the first minimum along dim (u32)",
         .source = is_max ? "ops.rs:495" : "ops.rs:501", .params = {dim_param()},
         .outputs = {{.dtype = DType::u32}}, .preconditions = dim_rules(true),
         .accuracy = exact(),
         .properties = {{is_max ? "x at the index equals max_dim" : "x at the index equals min_dim", "argmax_value",
                         nullptr, {}, is_max ? "max_dim" : "min_dim"}},
         .values = kSelectValues, .math = {is_max ? oracle::argmax : oracle::argmin, is_max ? oracle::replay::argmax : oracle::replay::argmin},
         .oracle_text = "the best starts as element 0 and is replaced on strict > (<): ties give the smallest index",
         .notes = "A NaN at index 0 wins (nothing compares greater); a NaN elsewhere is ignored: "
                  "argmax([NaN, 5]) = 0, argmax([1, NaN, 5]) = 2 (PyTorch returns the NaN's index)."}));
  }
  out.push_back(reduction({.name = "reduce_sum_to", .family = "reduce_to", .driver = "reduce_to",
                           .summary = "sum-reduce x to a broadcast-compatible target (broadcast_to's adjoint)",
                           .source = "ops.rs:854", .params = {target_param("broadcast-compatible into x")},
                           .preconditions = target_rules(true), .accuracy = sum_stats,
                           .properties = {{"adjoint of broadcast_to: <x, broadcast(g)> = <reduce_sum_to(x), g>",
                                           "adjoint", nullptr, {}, "broadcast_to"}},
                           .values = kSumValues, .math = {oracle::sum, oracle::replay::sum}, 
                           .oracle_text = "per target cell, the sum of its source elements in flat order",
                           .notes = kSumNotes}));
  out.push_back(reduction({.name = "reduce_max_to", .family = "reduce_to", .driver = "reduce_to",
                           .summary = "max-reduce x to a broadcast-compatible target", .source = "ops.rs:911",
                           .params = {target_param("broadcast-compatible into x")},
                           .preconditions = target_rules(true), .accuracy = exact(), .values = kMaxMinValues,
                           .math = {oracle::max_fold, oracle::replay::max_fold}, .oracle_text = "per target cell, max ignoring NaN"}));
  out.push_back(reduction(
      {.name = "reduce_max_to_backward", .family = "reduce_to", .driver = "reduce_backward",
       .summary = "route up to the maxima of each cell, split fairly on ties", .source = "ops.rs:979",
       .preconditions = tensor_rules("exactly two input tensors x, up", "x", "x is f32, f64, bf16 or f16",
                                     {{Rule::dtype_mismatch, "up", "up has x's dtype"},
                                      {Rule::target_rank, "up", "rank(up) <= rank(x) (the target is up's shape)"},
                                      {Rule::target_incompatible, "up", "right-aligned, each dim of up equals x's or is 1"}}),
       .accuracy = exact(), .values = kSelectValues, .math = {oracle::max_backward, oracle::replay::max_backward}, 
       .oracle_text = "s * mask with s = RN(up / max(count_T, 1)), mask = (x == cell max), replayed exactly",
       .notes = "The count is accumulated in T (bf16 counts stop at 256). Non-selected positions are s * 0, "
                "which is NaN when s is inf or NaN. The target is up's shape (exec.rs:1700). Conformance also accepts "
                "+0 or -0 off the maxima and a share with the ties counted exactly (PyTorch)."}));
  out.back().inputs = {{.name = "x", .dtypes = kFloatSet}, {.name = "up", .dtypes = kFloatSet}};
  out.push_back(reduction({.name = "broadcast_to", .family = "reduce_to", .driver = "broadcast_to",
                           .summary = "NumPy broadcast to target; zero-copy when only leading 1s are added",
                           .source = "ops.rs:1045", .params = {target_param("x broadcast-compatible into it")},
                           .layout = Layout::zero_copy_when_pure_padding,
                           .preconditions = target_rules(false), .accuracy = exact(), .values = kSelectValues,
                           .math = {oracle::identity, oracle::replay::identity}, .oracle_text = "the source element (bit for bit)",
                           .notes = "The exec arm rejects U32."}));
}

}  // namespace kc::contract
