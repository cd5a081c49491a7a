// Contract of rope (inventory "Normalization & attention compositions";
// reference-semantics.md §11): half-split rotary position embedding.
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/linalg.cpp).
KC_MATH_OF(Rotation, rope)

namespace kc::contract {

void register_rope(std::vector<KernelSpec>& out) {
  out.push_back(
      {.name = "rope",
       .family = "rope",
       .driver = "rope",
       .summary = "rotary position embedding, half-split: out[i] = x[i] cos[s, i] - x[i + h] sin[s, i], "
                  "out[i + h] = x[i + h] cos[s, i + h] + x[i] sin[s, i + h], h = D/2",
       .source = "ops.rs:2801",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 2},
                  {.name = "cos", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2},
                  {.name = "sin", .dtypes = kFloatSet, .min_rank = 2, .max_rank = 2}},
       .preconditions = tensor_rules(
           "exactly three input tensors x, cos, sin", "x", "x is f32, f64, bf16 or f16",
           {{Rule::dtype_mismatch, "cos", "cos has x's dtype (`rope: dtype mismatch x=.. cos=.. sin=..`)"},
            {Rule::dtype_mismatch, "sin", "sin has x's dtype"},
            {Rule::rank_min, "x", "rank(x) >= 2 [..., S, D] (`rope: input rank must be >= 2`)"},
            {Rule::head_dim_odd, "x", "D, x's last dim, is even (`rope: head_dim must be even`)"},
            {Rule::shape_mismatch, "cos", "cos is exactly [S, D] (`rope: cos shape mismatch`)"},
            {Rule::shape_mismatch, "sin", "sin is exactly [S, D] (`rope: sin shape mismatch`)"}}),
       // Each output is a dot product of two terms, (x_a c) + (+-x_b s):
       // fl(fl(p) -+ fl(q)) is the fold of two rounded products (the first
       // added to +0 exactly), so the dot products' model with n = 2 holds,
       // halves included (each operation one correct rounding through f32:
       // Figueroa, 24 >= 2p + 2). The statistics case: 6144 outputs of two
       // products each (x and both tables uniform on [-1, 1]).
       .accuracy = models::per_float_dtype(models::dot_product),
       .values = {.lo = -1e3, .hi = 1e3, .points = thresholds::scalar},
       .math = {oracle::rope, oracle::replay::rope},
       .oracle_text = "x_a c + (-x_b or x_b) s, exact (the dot-product oracle, two terms); S = (gamma_2 (|x_a c| + "
                      "|x_b s|) + 2 eta (1+u)) / u",
       .notes = "Half-split (rotate_half, GPT-NeoX / HF): element i pairs with i + D/2, not 2i + 1. The tables are "
                "full width [S, D]: the low half reads columns 0..h-1, the high half h..D-1 (the same only for "
                "duplicated tables). No position offset; leading dims broadcast. Reference profile: the products "
                "rounded into T, then one difference (low half) or sum (high half), no FMA. A zero result is +0 "
                "where the products are zeros of other signs; -0 where the reference's difference gives it (-0 - "
                "+0)."});
}

}  // namespace kc::contract
