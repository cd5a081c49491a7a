// The reference's 16 dtype casts (ops.rs:1135-1241; reference-semantics.md
// §17): each a concrete src -> dst function, routed by exec's eval_cast.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace kc::kern {

struct CastPair {
  DType src, dst;
};
// "cast_f32_to_bf16" -> {f32, bf16}; nullopt for an unknown name.
std::optional<CastPair> parse_cast(std::string_view name);
const std::vector<CastPair>& all_casts();

Tensor cast(const Tensor& x, DType dst);  // x.dtype() -> dst must be one of all_casts()

// half's bf16::from_f64 (half/src/bfloat/convert.rs): drops the low 32 bits
// of the f64 significand, then rounds to nearest even. Not correctly rounded.
std::uint16_t f64_to_bf16_truncating(double x);

}  // namespace kc::kern
