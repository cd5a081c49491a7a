// Contracts of the sequence and shape kernels (inventory "Sequence / shape
// movement"; reference-semantics.md §15, §19): reshape and the executor's
// reshape arms (contiguize, squeeze, unsqueeze), cumsum, flip, roll,
// concat, slice.
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/reduction.cpp).
KC_MATH_OF(Terms, sum)

namespace kc::contract {

namespace {

KernelSpec sequence_mover(KernelSpec k, std::string_view driver) {
  if (k.inputs.empty()) k.inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 0, .max_rank = 6}};
  if (k.oracle_text.empty()) k.oracle_text = "the source element, bit for bit (the driver's index model)";
  return mover(std::move(k), "sequence", driver);
}

std::vector<Precondition> one_x(std::vector<Precondition> extra) {
  return tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16, f16 or u32", std::move(extra));
}

// roll back by -shift (the generator never draws i64's minimum).
Params negated_shift(const Params& p) { return Params(p).set("shift", -p.integer("shift")); }

}  // namespace

void register_sequence(std::vector<KernelSpec>& out) {
  const char* kView = "Metadata only: the output shares x's storage (the reference's `from_arc`); a copy is as "
                      "correct (the reference profile's layout check asks for the view).";
  {
    std::vector<Precondition> r = param_rules("shape", "a shape");
    r.push_back({Rule::shape_negative_dim, "shape", "every dim of `shape` is >= 0"});
    r.push_back({Rule::numel_mismatch, "shape", "`shape` has x's element count (`reshape: element count mismatch`)"});
    out.push_back(sequence_mover({.name = "reshape", .summary = "x under new dims of the same element count (a view)",
                         .source = "ops.rs:829",
                         .params = {{.name = "shape", .kind = ParamKind::shape, .domain = "dims with x's element count"}},
                         .layout = Layout::zero_copy, .preconditions = one_x(r), .notes = kView},
                        "shape_view"));
  }
  out.push_back(sequence_mover({.name = "contiguize", .summary = "exec's Contiguize: reshape to x's own dims (a view)",
                       .source = "exec.rs (Op::Contiguize -> eval_reshape)", .layout = Layout::zero_copy,
                       .preconditions = one_x({}),
                       .notes = "No kernel of its own: the executor reshapes to the node's own shape. A view, as "
                                "reshape."},
                      "shape_view"));
  {
    std::vector<Precondition> r = dim_rules();
    // PyTorch's squeeze(dim) of an axis of size > 1 returns x unchanged; the
    // reference rejects it (docs/conformance-audit.md).
    r.push_back({.rule = Rule::dim_not_one, .operand = "dim",
                 .text = "x.shape[dim] == 1 (`squeeze: dim D has size S, expected 1`)", .reference_limit = true,
                 .defined_result = [](std::span<const Tensor> in, const Params&) { return std::vector<Tensor>{in[0]}; }});
    out.push_back(sequence_mover({.name = "squeeze", .summary = "exec's Squeeze: x without the size-1 axis `dim` (a view)",
                         .source = "exec.rs:1140", .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}},
                         .params = {dim_param("0 <= dim < rank(x), x.shape[dim] == 1")}, .layout = Layout::zero_copy,
                         .preconditions = one_x(r), .notes = kView},
                        "shape_view"));
  }
  out.push_back(sequence_mover({.name = "unsqueeze", .summary = "exec's Unsqueeze: a size-1 axis inserted at `dim` (a view)",
                       .source = "exec.rs:1103", .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 0, .max_rank = 5}},
                       .params = {dim_param("0 <= dim <= rank(x)")}, .layout = Layout::zero_copy,
                       .preconditions = one_x(dim_rules("rank(x) + 1")),
                       .notes = "dim may equal rank(x) (an axis appended); the reference's message: `unsqueeze: "
                                "dim D out of bounds for rank R`."},
                      "shape_view"));

  // cumsum: each output a fold of its own prefix.
  out.push_back({.name = "cumsum", .family = "sequence", .driver = "prefix",
                 .summary = "inclusive prefix sum along dim: acc = +0, then acc + x_j, out_j = acc, in T",
                 .source = "ops.rs:1696",
                 .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1, .max_rank = 6}},
                 .params = {dim_param()},
                 .preconditions = tensor_rules("exactly one input tensor", "x",
                                               "x is f32, f64, bf16 or f16 (CumSum rejects U32, §19)", dim_rules()),
                 .accuracy = models::per_float_dtype([](DType t) {
                   Accuracy a = models::recursive_sum(t);
                   a.check_case_statistics = true;  // 128 rows of 48: the last prefix of each a sample
                   return a;
                 }),
                 .properties = {{.name = "the last prefix equals sum_dim within both bounds", .check = "prefix_total",
                                 .related = "sum_dim"}},
                 .values = {.lo = -1e3, .hi = 1e3, .points = thresholds::scalar},
                 .math = {oracle::sum, oracle::replay::sum},
                 .oracle_text = "per output, sum of x[.., 0..j, ..] (exact), S = gamma_j/u sum |x_i| over its j + 1 terms",
                 .notes = "Fold from +0 in T along the dim, no wider accumulator. A partial sum that overflows makes "
                          "the result that of the fold (graded against the replayed fold)."});

  out.push_back(sequence_mover({.name = "flip", .summary = "out[j] = x[d - 1 - j] along dim", .source = "ops.rs:1720",
                       .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}},
                       .params = {dim_param()}, .preconditions = one_x(dim_rules()),
                       .properties = {{.name = "flip twice is the identity", .check = "round_trip"}}},
                      "reorder"));
  out.push_back(sequence_mover({.name = "roll", .summary = "out[j] = x[(j - s) mod d] along dim, s = ((shift mod d) + d) mod d",
                       .source = "ops.rs:1742", .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}},
                       .params = {dim_param(), {.name = "shift", .kind = ParamKind::integer, .domain = "any i64"}},
                       .preconditions = one_x(with(dim_rules(), param_rules("shift", "an integer"))),
                       .properties = {{.name = "roll by s then by -s is the identity", .check = "round_trip",
                                       .inverse = negated_shift}},
                       .notes = "A positive shift moves elements to higher indices (torch.roll); d = 0 gives an empty "
                                "tensor."},
                      "reorder"));
  out.push_back(sequence_mover(
      {.name = "concat", .summary = "a then b along dim (exactly two inputs)", .source = "ops.rs:1398",
       .inputs = {{.name = "a", .dtypes = kFloatAndU32, .min_rank = 1}, {.name = "b", .dtypes = kFloatAndU32, .min_rank = 1}},
       .params = {dim_param()},
       .preconditions = tensor_rules("exactly two input tensors a, b", "a", "a is f32, f64, bf16, f16 or u32",
                                     with({{Rule::dtype_mismatch, "b", "b has a's dtype (`concat: dtype mismatch`, exec)"},
                                           {Rule::rank_mismatch, "b", "rank(b) == rank(a) (`concat: rank mismatch`)"}},
                                          with(dim_rules("rank(a)"),
                                               {{Rule::shape_mismatch, "b",
                                                 "a and b have equal dims off `dim` (`concat: non-dim shape mismatch`)"}}))),
       .properties = {{.name = "slicing the output at a.shape[dim] gives a and b back", .check = "split_parts",
                       .related = "slice"}}},
      "concat"));
  {
    std::vector<Precondition> r = with(dim_rules(), param_rules("start", "an integer"));
    r = with(r, param_rules("len", "an integer"));
    r.push_back({Rule::param_domain, "start", "start >= 0"});
    r.push_back({Rule::param_domain, "len", "len >= 0"});
    r.push_back({Rule::range_out_of_bounds, "len", "start + len <= x.shape[dim] (`slice: [start, len) exceeds dim size`)"});
    out.push_back(sequence_mover({.name = "slice", .summary = "x[start, start + len) along dim", .source = "ops.rs:1453",
                         .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}},
                         .params = {dim_param(),
                                    {.name = "start", .kind = ParamKind::integer, .domain = "0 <= start <= x.shape[dim]",
                                     .min = 0},
                                    {.name = "len", .kind = ParamKind::integer,
                                     .domain = "0 <= len <= x.shape[dim] - start", .min = 0}},
                         .preconditions = one_x(r),
                         .notes = "start + len is checked without overflow (the reference's usize sum can wrap)."},
                        "select_along"));
  }
}

}  // namespace kc::contract
