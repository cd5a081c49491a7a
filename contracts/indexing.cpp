// Contracts of the indexing kernels (inventory "Indexing / gather /
// scatter"; reference-semantics.md §16): index_select_tensor, index_select,
// gather, index_add, scatter_add, embedding. Index tensors are u32.
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/reduction.cpp).
KC_MATH_OF(Terms, accumulate)
KC_MATH_OF(Terms, sum)

namespace kc::contract {

namespace {

KernelSpec selection(KernelSpec k) {
  k.oracle_text = "the selected source element, bit for bit (the driver's index model)";
  const std::string_view driver = k.driver;
  return mover(std::move(k), "indexing", driver);
}

const Precondition kIndexIsU32{Rule::dtype_unsupported, "index", "the index tensor is u32"};

// index_add and scatter_add: a copy of base, then src added in flat order.
KernelSpec accumulation(KernelSpec k) {
  k.family = "indexing";
  k.driver = "accumulate";
  k.inputs = {{.name = "base", .dtypes = kFloatSet, .min_rank = 1, .max_rank = 6},
              {.name = "index", .dtypes = {DType::u32}},
              {.name = "src", .dtypes = kFloatSet, .min_rank = 1, .max_rank = 6}};
  k.params = {dim_param("0 <= dim < rank(base)")};
  k.accuracy = models::per_float_dtype([](DType t) {
    Accuracy a = models::recursive_sum(t);
    a.check_case_statistics = true;  // 128 outputs of 49 terms
    return a;
  });
  k.values = {.lo = -1e3, .hi = 1e3, .points = thresholds::scalar};
  k.math = {oracle::sum, oracle::replay::accumulate};
  k.oracle_text = "per output, base[o] plus its contributions (exact), S = gamma_{k-1}/u sum |terms| over its k terms";
  k.notes = "The output starts as a copy of base (a -0 base with no contribution stays -0), then src elements are "
            "added in src's flat row-major order, in T: duplicate indices accumulate in that order. The exec arm takes "
            "float data only.";
  return k;
}

std::vector<Precondition> accumulation_rules(std::vector<Precondition> shape_rules) {
  std::vector<Precondition> v =
      tensor_rules("exactly three input tensors base, index, src", "base",
                   "base is f32, f64, bf16 or f16 (a U32 base hits the exec's `base and src dtype mismatch` panic)",
                   {kIndexIsU32,
                    {Rule::dtype_mismatch, "src", "src has base's dtype"},
                    {Rule::rank_mismatch, "src", "rank(src) == rank(base) (`base and src must have the same rank`)"}});
  v = with(v, dim_rules("rank(base)"));
  v = with(v, shape_rules);
  v.push_back({Rule::index_out_of_range, "index", "every index < base.shape[dim] (`... out of bounds for base dim`)"});
  return v;
}

}  // namespace

void register_indexing(std::vector<KernelSpec>& out) {
  out.push_back(selection(
      {.name = "index_select_tensor", .driver = "select_along",
       .summary = "out[.., k, ..] = x[.., index[k], ..] along dim (index: a rank-1 u32 tensor)", .source = "ops.rs:1254",
       .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}, {.name = "index", .dtypes = {DType::u32}, .min_rank = 1, .max_rank = 1}},
       .params = {dim_param()},
       .preconditions = tensor_rules("exactly two input tensors x, index", "x", "x is f32, f64, bf16, f16 or u32",
                                     with({kIndexIsU32, {Rule::index_rank, "index", "the index tensor is rank 1"}},
                                          with(dim_rules(), {{Rule::index_out_of_range, "index",
                                                              "every index < x.shape[dim], all checked before any copy"}}))),
       .notes = "Duplicate indices copy. All indices are validated before anything is copied."}));
  {
    std::vector<Precondition> r = with(dim_rules(), param_rules("indices", "a shape (a list of indices)"));
    r.push_back({Rule::shape_negative_dim, "indices", "every index is >= 0 (usize)"});
    r.push_back({Rule::index_out_of_range, "indices", "every index < x.shape[dim]"});
    out.push_back(selection({.name = "index_select", .driver = "select_along",
                             .summary = "out[.., k, ..] = x[.., indices[k], ..] along dim (indices: a list)",
                             .source = "ops.rs:2004", .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 1}},
                             .params = {dim_param(), {.name = "indices", .kind = ParamKind::shape,
                                                      .domain = "indices < x.shape[dim]"}},
                             .preconditions = tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16 or f16", r),
                             .notes = "The &[usize] form (T: Float), not exec-wired; messages say `index_select:`."}));
  }
  out.push_back(selection(
      {.name = "gather", .driver = "gather", .summary = "out[p] = x[p with p[dim] = index[p]]; out has index's dims",
       .source = "ops.rs:1339",
       .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 1}, {.name = "index", .dtypes = {DType::u32}, .min_rank = 1}},
       .params = {dim_param()},
       .preconditions = tensor_rules(
           "exactly two input tensors x, index", "x", "x is f32, f64, bf16, f16 or u32",
           with({kIndexIsU32, {Rule::rank_mismatch, "index", "rank(index) == rank(x) (`data and index must have the same rank`)"}},
                with(dim_rules(),
                     {{Rule::index_shape, "index",
                       "index.shape[d] <= x.shape[d] for d != dim (PyTorch's rule; the reference does not check it and "
                       "reads aliased elements or out of bounds)"},
                      {Rule::index_out_of_range, "index", "every index < x.shape[dim], checked in flat order"}}))),
       .notes = "Index values are checked in flat order. The reference leaves index.shape[d] > x.shape[d] (d != dim) "
                "unchecked; kconform rejects it, as PyTorch does."}));
  out.push_back(accumulation(
      {.name = "index_add", .summary = "copy of base, then src[.., i, ..] added into [.., index[i], ..] along dim",
       .source = "ops.rs:1855",
       .preconditions = accumulation_rules(
           {{Rule::index_rank, "index", "the index is rank 1 (`index_add: index must be rank 1`)"},
            {Rule::shape_mismatch, "src",
             "src.shape[dim] == len(index), and src's other dims equal base's (`non-dim shapes must match`)"}})}));
  out.back().inputs[1].max_rank = 1;
  out.push_back(accumulation(
      {.name = "scatter_add", .summary = "copy of base, then src[p] added into p with p[dim] = index[p]",
       .source = "ops.rs:1934",
       .preconditions = accumulation_rules(
           {{Rule::shape_mismatch, "index", "index has src's dims (`indices and src must have the same shape`)"},
            {Rule::shape_mismatch, "src",
             "src.shape[d] <= base.shape[d] for d != dim (PyTorch's rule; the reference does not check it)"}})}));
  {
    std::vector<Precondition> r{{Rule::rank_exact, "table", "the table is rank 2 (`embedding: table must be rank 2`)"}};
    r = with(r, param_rules("ids", "a shape (a list of ids)"));
    r.push_back({Rule::shape_negative_dim, "ids", "every id is >= 0 (usize)"});
    r.push_back({Rule::index_out_of_range, "ids", "every id < the vocabulary size, checked in order"});
    out.push_back(selection({.name = "embedding", .driver = "select_along",
                             .summary = "out[i, :] = table[ids[i], :]: [len(ids), D] from table [V, D]",
                             .source = "ops.rs:2065", .inputs = {{.name = "table", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2}},
                             .params = {{.name = "ids", .kind = ParamKind::shape, .domain = "ids < V"}},
                             .preconditions = tensor_rules("exactly one input tensor", "table",
                                                           "table is f32, f64, bf16 or f16", r),
                             .notes = "Not exec-wired (no Op::Embedding arm); rows copied with copy_from_slice."}));
  }
}

}  // namespace kc::contract
