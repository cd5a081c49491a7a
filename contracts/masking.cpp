// Contracts of the masking kernels (inventory "Masking / triangular";
// reference-semantics.md §13): triu, tril, masked_fill.
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "oracles/oracle.h"

namespace kc::contract {

namespace {

KernelSpec masker(KernelSpec k) { return mover(std::move(k), "masking", "masking"); }

}  // namespace

void register_masking(std::vector<KernelSpec>& out) {
  const Param diagonal{.name = "diagonal", .kind = ParamKind::integer, .domain = "any i64"};
  for (const bool upper : {true, false}) {
    out.push_back(masker(
        {.name = upper ? "triu" : "tril",
         .summary = upper ? "keep x[..., i, j] where j >= i + diagonal, else +0" : "keep x[..., i, j] where j <= i + diagonal, else +0",
         .source = upper ? "ops.rs:2847" : "ops.rs:2871",
         .inputs = {{.name = "x", .dtypes = kFloatAndU32, .min_rank = 2}},
         .params = {diagonal},
         .preconditions = tensor_rules("exactly one input tensor", "x", "x is f32, f64, bf16, f16 or u32",
                                       with(param_rules("diagonal", "an integer"),
                                            {{Rule::rank_min, "x", upper ? "rank(x) >= 2 (`triu: input rank must be >= 2`)"
                                                                     : "rank(x) >= 2 (`tril: input rank must be >= 2`)"},
                                             {Rule::batch_empty, "x",
                                              "no zero-sized batch dim unless the matrices are empty: the reference "
                                              "indexes out of bounds; the result is defined (empty), which any "
                                              "correct implementation may return",
                                              true}})),
         .oracle_text = "x's element where kept, +0 (T::default()) elsewhere, bit for bit",
         .notes = "The comparison is j - i against the diagonal: the reference's i + diagonal in i64 gives the same "
                  "wherever it does not overflow (a diagonal near the i64 ends)."}));
  }
  out.push_back(masker(
      {.name = "masked_fill", .summary = "T(value) where the u8 mask is non-zero, else x", .source = "ops.rs:2953",
       .inputs = {{.name = "x", .dtypes = kFloatAndU32}, {.name = "mask", .dtypes = {DType::u8}}},
       .params = {{.name = "value", .kind = ParamKind::real, .domain = "any real; u32 data: an integer in [0, 2^32)"}},
       .preconditions = tensor_rules(
           "exactly two input tensors x, mask", "x", "x is f32, f64, bf16, f16 or u32",
           with(param_rules("value", "a real (f64)"),
                {{Rule::dtype_unsupported, "mask", "the mask is u8"},
                 {Rule::shape_mismatch, "mask", "mask has x's dims exactly (`masked_fill: shape mismatch`)"},
                 {Rule::param_domain, "value", "for u32 data, value is an integer in [0, 2^32)"}})),
       .oracle_text = "T(value) (NumCast: halves through f32) where mask != 0, else x's element, bit for bit",
       .notes = "Not exec-wired (the executor has no U8 tensors); graded as the kernel. value is an f64 parameter "
                "converted with NumCast (the reference takes a T)."}));

}

}  // namespace kc::contract
