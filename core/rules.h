// The precondition rules: every rule a contract lists and a kernel raises,
// as one vocabulary. Code names a rule as Rule::dtype_unsupported; its text
// ("dtype.unsupported") is the stable id the contracts' JSON, the messages
// and the plug-in ABI (kc_error.rule) carry, so the text is parsed or
// printed only there. A plug-in may name a rule kconform does not know:
// that is Rule::unknown, and KernelError keeps the plug-in's text.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/vocabulary.h"

namespace kc {

// (a new rule: a line here, in its family's place; the text is its id for good)
#define KC_RULES(X) \
  X(arity, "arity") \
  X(alibi_shape, "alibi.shape") \
  X(axes_duplicate, "axes.duplicate") \
  X(axes_length, "axes.length") \
  X(axes_out_of_range, "axes.out_of_range") \
  X(batch_empty, "batch.empty") \
  X(batch_mismatch, "batch.mismatch") \
  X(block_size_mismatch, "block_size.mismatch") \
  X(block_table_range, "block_table.range") \
  X(broadcast_incompatible, "broadcast.incompatible") \
  X(buffer_size, "buffer.size") \
  X(bytes_mismatch, "bytes.mismatch") \
  X(channels_mismatch, "channels.mismatch") \
  X(context_len_capacity, "context_len.capacity") \
  X(dim_empty, "dim.empty") \
  X(dim_not_one, "dim.not_one") \
  X(dim_out_of_range, "dim.out_of_range") \
  X(dtype_mismatch, "dtype.mismatch") \
  X(dtype_unsupported, "dtype.unsupported") \
  X(gqa_group, "gqa.group") \
  X(groups_divisibility, "groups.divisibility") \
  X(head_dim_mismatch, "head_dim.mismatch") \
  X(head_dim_odd, "head_dim.odd") \
  X(heads_mismatch, "heads.mismatch") \
  X(index_out_of_range, "index.out_of_range") \
  X(index_rank, "index.rank") \
  X(index_shape, "index.shape") \
  X(inner_mismatch, "inner.mismatch") \
  X(k_block_multiple, "k.block_multiple") \
  X(kernel_empty, "kernel.empty") \
  X(kernel_too_large, "kernel.too_large") \
  X(kernel_unknown, "kernel.unknown") \
  X(last_dim_zero, "last_dim.zero") \
  X(numel_mismatch, "numel.mismatch") \
  X(padding_length, "padding.length") \
  X(padding_too_large, "padding.too_large") \
  X(param_domain, "param.domain") \
  X(param_missing, "param.missing") \
  X(param_type, "param.type") \
  X(quant_type_unsupported, "quant_type.unsupported") \
  X(range_out_of_bounds, "range.out_of_bounds") \
  X(rank_exact, "rank.exact") \
  X(rank_min, "rank.min") \
  X(rank_mismatch, "rank.mismatch") \
  X(seq_mismatch, "seq.mismatch") \
  X(shape_broadcast, "shape.broadcast") \
  X(shape_inner, "shape.inner") \
  X(shape_mismatch, "shape.mismatch") \
  X(shape_negative_dim, "shape.negative_dim") \
  X(target_incompatible, "target.incompatible") \
  X(target_rank, "target.rank") \
  X(other, "other")     /* a plug-in's KC_ERR_OTHER: a failure without a rule */ \
  X(unknown, "unknown") /* text kconform does not know (a plug-in's): KernelError keeps it */
KC_VOCABULARY(Rule, std::uint8_t, kRules, KC_RULES);

constexpr std::string_view rule_name(Rule r) { return kRules.name(r); }

// The rule whose name is `text`; Rule::unknown for any other text.
constexpr Rule parse_rule(std::string_view text) {
  for (const Rule r : kRules.all())
    if (kRules.name(r) == text) return r;
  return Rule::unknown;
}

}  // namespace kc
