// Binary elementwise kernels of the reference (ops.rs:277-336, 1771-1843)
// and their NumPy-broadcasting forms (ops.rs:2094-2196).
#pragma once

#include <optional>
#include <string_view>

#include "core/tensor.h"

namespace kc::kern {

enum class BinaryOp : std::uint8_t { add, sub, mul, div, maximum, minimum, rem, pow };
std::optional<BinaryOp> parse_binary_op(std::string_view name);  // "add", ..., "broadcast_add" -> add

// Same dtype (f32/f64/bf16/f16). Same-shape form: a and b of equal dims.
Tensor binary_same_shape(BinaryOp op, const Tensor& a, const Tensor& b);
// Broadcast form: output dims = broadcast_shape(a, b), which must exist.
Tensor binary_broadcast(BinaryOp op, const Tensor& a, const Tensor& b);

}  // namespace kc::kern
