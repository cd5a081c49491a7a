// Contracts of attention_naive (exec FLASH_ATTN) and attention_flash
// (inventory "Attention"; reference-semantics.md §12). The oracles compute
// each output's exact value and the bound of the kernel's own steps
// (oracles/attention.cpp; docs/accuracy-bounds.md "Attention").
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/attention.cpp, oracles/attention_backward.cpp).
KC_MATH_OF(Row, attention_flash)
KC_MATH_OF(Row, attention_flash_backward)
KC_MATH_OF(Row, attention_naive)
KC_MATH_OF(Row, attention_paged)

namespace kc::contract {

namespace {

constexpr DTypeSet kF32F64{DType::f32, DType::f64};

constexpr std::string_view kStagedText =
    "the kernel's steps replayed on (exact value, error bound) pairs (oracles/row_support.h): the scores' dot folds, "
    "the scale, softcap's rounded reciprocal and tanh, ALiBi; e^(s - m) with m the kernel's own shift; naive: the "
    "fold of e, 1/sum, p = e inv, the fold of p v; flash: per tile alpha = e^(m - m_new), l = alpha l + r, O alpha + "
    "p v, then O (1/l)";

constexpr std::string_view kBackwardText =
    "the kernel's recompute replayed on (exact value, error bound) pairs (oracles/row_support.h): the scores as the "
    "forward's, e^(s - m), 1/sum, p = e inv; dP = the fold of dO v, rd = the fold of p dP; dS = (dP - rd) p, times "
    "1 - t t with a softcap; g = dS S; the folds of p dO (dV), g k (dQ) and g q (dK)";

std::vector<Param> attention_params() {
  return {{.name = "softmax_scale", .kind = ParamKind::real, .domain = "an f32 (T::from(f32)); 1/sqrt(D) usually"},
          {.name = "causal", .kind = ParamKind::integer, .domain = "0 or 1 (top-left aligned: kj > qi masked)", .min = 0,
           .max = 1},
          {.name = "window_left", .kind = ParamKind::integer, .domain = "-1 (none) or w >= 0: kj + w < qi masked", .min = -1,
           .max = INT32_MAX},
          {.name = "window_right", .kind = ParamKind::integer, .domain = "-1 (none) or w >= 0: kj > qi + w masked",
           .min = -1, .max = INT32_MAX},
          {.name = "softcap", .kind = ParamKind::real, .domain = "an f32; 0: none, else s = tanh(s c^-1) c before ALiBi"}};
}

// q, k, v's rules (and the backward's do_grad's, where `backward`).
std::vector<Precondition> attention_rules(bool backward = false, bool exec_arm = true) {
  std::vector<Precondition> dout;
  if (backward)
    dout = {{Rule::dtype_mismatch, "do_grad", "do_grad has q's dtype"},
            {Rule::rank_exact, "do_grad", "do_grad is rank 4 (the reference asserts only the ranks)"},
            {Rule::shape_mismatch, "do_grad",
             "do_grad has the output's shape, q's [B, Hq, Sq, D] (the reference's indexing assumes it, unchecked)"}};
  std::vector<Precondition> r = tensor_rules(
      backward ? "four or five input tensors q, k, v, do_grad (and the optional ALiBi slopes)"
               : "three or four input tensors q, k, v (and the optional ALiBi slopes)",
      "q", !exec_arm || backward ? "q is a float dtype" : "q is f32 or f64 (exec FLASH_ATTN)",
      {{Rule::dtype_mismatch, "k", "k has q's dtype"},
       {Rule::dtype_mismatch, "v", "v has q's dtype"},
       {Rule::rank_exact, "q", "q is rank 4 [B, Hq, Sq, D] (`q: expected rank 4 [B, H, S, D]`)"},
       {Rule::rank_exact, "k", "k is rank 4 [B, Hk, Sk, D]"},
       {Rule::rank_exact, "v", "v is rank 4 [B, Hk, Sk, D]"},
       {Rule::batch_mismatch, "k", "k's B is q's (`B mismatch q vs k`)"},
       {Rule::batch_mismatch, "v", "v's B is k's (`B mismatch k vs v`)"},
       {Rule::heads_mismatch, "v", "v's H is k's (`Hk mismatch k vs v`)"},
       {Rule::seq_mismatch, "v", "v's S is k's (`Sk mismatch k vs v`)"},
       {Rule::head_dim_mismatch, "k", "k's D is q's (`head_dim mismatch q vs k`)"},
       {.rule = Rule::head_dim_mismatch, .operand = "v", .text = "v's D is k's: Dv = Dq (`head_dim mismatch k vs v`)",
        .reference_limit = true, .ungraded_result = true},  // (attention is defined for Dv != Dq: PyTorch's SDPA)
       {Rule::gqa_group, "q", "Hq is a multiple of Hk >= 1 (`Hq=.. must be a multiple of Hk=.. (GQA group size)`)"},
       {Rule::alibi_shape, "alibi", "the slopes are [Hq] (`alibi_slopes must be shape [Hq=..]`)"}});
  r = with(r, dout);
  for (const char* p : {"softmax_scale", "softcap"}) r = with(r, param_rules(p, "a real (f64)"));
  for (const char* p : {"causal", "window_left", "window_right"}) r = with(r, param_rules(p, "an integer"));
  r.push_back({Rule::param_domain, "causal", "causal is 0 or 1"});
  r.push_back({Rule::param_domain, "window_left", "window_left >= -1"});
  r.push_back({Rule::param_domain, "window_right", "window_right >= -1"});
  return r;
}

// dtypes: naive's exec arm takes f32 and f64; flash is the generic
// function, every float dtype.
KernelSpec attention_entry(std::string_view name, DTypeSet dtypes) {
  KernelSpec k{.name = name,
               .family = "attention",
               .driver = "attention",
               .inputs = {{.name = "q", .dtypes = dtypes, .min_rank = 4, .max_rank = 4},
                          {.name = "k", .dtypes = dtypes, .min_rank = 4, .max_rank = 4},
                          {.name = "v", .dtypes = dtypes, .min_rank = 4, .max_rank = 4},
                          {.name = "alibi", .dtypes = dtypes, .min_rank = 1, .max_rank = 1, .optional = true}},
               .params = attention_params(),
               .preconditions = attention_rules(false, !dtypes.contains(DType::bf16)),
               .values = {.lo = -2, .hi = 2, .points = thresholds::exp}};
  for (DType t : dtypes.list()) k.accuracy.push_back({t, models::stage_bound(t, kStagedText)});
  return k;
}

}  // namespace

void register_attention(std::vector<KernelSpec>& out) {
  KernelSpec naive = attention_entry("attention_naive", kF32F64);
  naive.summary = "softmax(q k^T scale [softcap] [+ ALiBi], masked) v, materialized; p_j = e_j (1/sum)";
  naive.source = "attention.rs:99 (exec FLASH_ATTN)";
  naive.math = {oracle::attention_naive, oracle::replay::attention_naive};
  naive.oracle_text = "sum_j e^(s_j - M) v_j / sum_j e^(s_j - M) over the admissible keys, in MPFR; S = the naive steps' "
                      "bound / u";
  naive.notes = "A row with no admissible key, only NaN or -inf scores, or any +inf score is all +0; a zero weight "
                "skips its V row (an inf or NaN there does not propagate). Causal is top-left aligned (no Sq/Sk "
                "offset); windows saturate. GQA: kv head = hq / (Hq / Hk); the ALiBi slope is the query head's, the "
                "distance f32(kj) - f32(qi). Rows with a non-finite input or score are graded against the replay "
                "(flash's answer also accepted). "
                "Conformance also accepts -0 or NaN (PyTorch) for a row with no admissible key, and the scale and softcap "
                "read as given (not narrowed to f32 and T).";
  out.push_back(std::move(naive));
  KernelSpec flash = attention_entry("attention_flash", kFloatSet);
  flash.summary = "FlashAttention-2 forward: tiles of 16 keys, online softmax (m, l, O rescaled by e^(m - m_new)), "
                  "O (1/l) at the end";
  flash.source = "attention.rs:229 (not exec-wired)";
  flash.math = {oracle::attention_flash, oracle::replay::attention_flash};
  flash.oracle_text = "as attention_naive's exact value; S = the tiled steps' bound / u";
  flash.notes = "Normalises once at the end; a +inf score drops only its tile (naive zeroes the row); l = 0 gives +0. "
                "Conformance also accepts -0 or NaN (PyTorch) for a row with no admissible key, and the scale and softcap "
                "read as given (not narrowed to f32 and T).";
  flash.properties = {{.name = "equals attention_naive within both bounds", .check = "flash_matches_naive",
                       .dtypes = kF32F64,
                       .related = "attention_naive"}};
  out.push_back(std::move(flash));

  // attention_flash_backward: three outputs, every float dtype (FKC).
  out.push_back(
      {.name = "attention_flash_backward",
       .family = "attention",
       .driver = "attention_backward",
       .summary = "attention backward by recompute: (dQ, dK, dV) from q, k, v and dO; dK and dV summed over the query "
                  "heads of each KV head",
       .source = "attention.rs:567 (not exec-wired: three outputs)",
       .inputs = {{.name = "q", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4},
                  {.name = "k", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4},
                  {.name = "v", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4},
                  {.name = "do_grad", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4},
                  {.name = "alibi", .dtypes = kFloatSet, .min_rank = 1, .max_rank = 1, .optional = true}},
       .params = attention_params(),
       .outputs = {{.name = "dq"}, {.name = "dk"}, {.name = "dv"}},
       .preconditions = attention_rules(true),
       .accuracy = {{DType::f32, models::stage_bound(DType::f32, kBackwardText)},
                    {DType::f64, models::stage_bound(DType::f64, kBackwardText)},
                    {DType::bf16, models::stage_bound(DType::bf16, kBackwardText)},
                    {DType::f16, models::stage_bound(DType::f16, kBackwardText)}},
       .properties = {{.name = "<dV, dv> = <dO, attention_naive(q, k, dv)> within the bounds (V's direction)",
                       .check = "attention_backward_matches_forward",
                       .dtypes = kF32F64,
                       .related = "attention_naive"},
                      {.name = "<dQ, q> = <dK, k> within the bounds (the scores' invariant direction)",
                       .check = "attention_backward_matches_forward"},
                      {.name = "<dQ, dq> + <dK, dk> = <dO, J (dq, dk, 0)> within the bounds (a general direction, J "
                               "the forward's exact Jacobian in MPFR)",
                       .check = "attention_backward_jvp"}},
       .values = {.lo = -2, .hi = 2, .points = thresholds::exp},
       .math = {oracle::attention_flash_backward, oracle::replay::attention_flash_backward},
       .oracle_text = "the exact vector-Jacobian product of the attention function at dO, in MPFR: dV_j = sum_i P_ij "
                      "dO_i, dS_ij = P_ij (dP_ij - sum_j' P_ij' dP_ij') (1 - tanh^2(s_pre / c)), dQ_i = S sum_j dS_ij "
                      "k_j, dK_j = S sum_i dS_ij q_i (i over every query head of the KV head); S = the recompute "
                      "steps' bound / u",
       .notes = "A row whose maximum is not finite (no admissible key) is skipped; dP and rd run over all keys (a "
                "masked key's p is 0); a zero p skips its dV term and a zero dS S its dQ and dK terms. GQA heads "
                "accumulate into their KV head in increasing hq. ALiBi adds no gradient term. Cells with a non-finite "
                "input or score are graded against the replay. The reference asserts only the ranks; the port also "
                "checks Hq mod Hk, Dv = Dq and dO's shape (typed errors)."});

  // attention_paged_naive: the cache read through the block table.
  std::vector<Precondition> paged_rules = tensor_rules(
      "five or six input tensors q, k_cache, v_cache, block_table, context_lens (and the optional ALiBi slopes)", "q",
      "q is f32 or f64 (exec PAGED_ATTN)",
      {{Rule::dtype_mismatch, "k_cache", "k_cache has q's dtype"},
       {Rule::dtype_mismatch, "v_cache", "v_cache has q's dtype"},
       {Rule::dtype_unsupported, "block_table", "block_table is u32 (`paged_attn: block_table must be U32`)"},
       {Rule::dtype_unsupported, "context_lens", "context_lens is u32"},
       {Rule::rank_exact, "q", "q is rank 4 [B, Hq, Sq, D]"},
       {Rule::rank_exact, "k_cache", "k_cache is rank 4 [num_blocks, block_size, Hkv, D]"},
       {Rule::rank_exact, "v_cache", "v_cache is rank 4"},
       {Rule::rank_exact, "block_table", "block_table is rank 2 [B, max_blocks]"},
       {Rule::rank_exact, "context_lens", "context_lens is rank 1 [B]"},
       {Rule::block_size_mismatch, "k_cache", "k_cache's dim 1 is block_size (`k_cache block dim .. != block_size ..`)"},
       {Rule::block_size_mismatch, "v_cache", "v_cache's dim 1 is block_size"},
       {Rule::heads_mismatch, "v_cache", "v_cache's blocks and Hkv are k_cache's"},
       {Rule::head_dim_mismatch, "k_cache", "k_cache's D is q's"},
       {.rule = Rule::head_dim_mismatch, .operand = "v_cache", .text = "v_cache's D is q's", .reference_limit = true,
        .ungraded_result = true},
       {Rule::batch_mismatch, "block_table", "block_table has B rows"},
       {Rule::batch_mismatch, "context_lens", "context_lens has B entries"},
       {Rule::gqa_group, "q", "Hq is a multiple of Hkv >= 1"},
       {Rule::alibi_shape, "alibi", "the slopes are [Hq]"},
       {Rule::block_table_range, "block_table",
        "every block a context uses is < num_blocks (`block_table[b,i]=.. out of range (num_blocks=..)`)"},
       {Rule::context_len_capacity, "context_lens",
        "context_lens[b] <= max_blocks x block_size (the reference reads past its row, or out of bounds: a typed error "
        "here)"}});
  for (const char* p : {"softmax_scale", "softcap"}) paged_rules = with(paged_rules, param_rules(p, "a real (f64)"));
  paged_rules = with(paged_rules, param_rules("block_size", "an integer"));
  paged_rules.push_back({Rule::param_domain, "block_size", "block_size >= 1 (0 divides by zero in the reference)"});
  out.push_back(
      {.name = "attention_paged_naive",
       .family = "attention",
       .driver = "paged_attention",
       .summary = "attention over a paged KV cache: batch b's L = context_lens[b] keys through block_table[b], query "
                  "slot qp at position max(L - Sq, 0) + qp, keys past it masked",
       .source = "attention.rs:420 (exec PAGED_ATTN)",
       .inputs = {{.name = "q", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                  {.name = "k_cache", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                  {.name = "v_cache", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                  {.name = "block_table", .dtypes = {DType::u32}, .min_rank = 2, .max_rank = 2},
                  {.name = "context_lens", .dtypes = {DType::u32}, .min_rank = 1, .max_rank = 1},
                  {.name = "alibi", .dtypes = kF32F64, .min_rank = 1, .max_rank = 1, .optional = true}},
       .params = {{.name = "softmax_scale", .kind = ParamKind::real, .domain = "an f32"},
                  {.name = "block_size", .kind = ParamKind::integer, .domain = ">= 1, the caches' dim 1", .min = 1,
                   .max = INT32_MAX},
                  {.name = "softcap", .kind = ParamKind::real, .domain = "an f32; 0: none"}},
       .preconditions = paged_rules,
       .accuracy = {{DType::f32, models::stage_bound(DType::f32, kStagedText)},
                    {DType::f64, models::stage_bound(DType::f64, kStagedText)}},
       .properties = {{.name = "equals attention_naive on the same logical K/V (contiguous, the mask as a window)",
                       .check = "paged_matches_naive",
                       .related = "attention_naive"}},
       .values = {.lo = -2, .hi = 2, .points = thresholds::exp},
       .math = {oracle::attention_paged, oracle::replay::attention_paged},
       .oracle_text = "attention_naive's exact value and bound on the gathered context, qi = the absolute position a",
       .notes = "No causal flag and no window: the mask is implicit, tied to context_lens[b] - Sq + qp (saturating). "
                "ALiBi's distance is in absolute positions. L = 0 or no admissible key gives a zero row (conformance: "
                "also -0 or NaN; the scale and softcap may be read as given). The "
                "reference does not check that a context fits its table row (it reads the next sequence's entries or "
                "out of bounds); the port raises context_len.capacity."});
}

}  // namespace kc::contract
