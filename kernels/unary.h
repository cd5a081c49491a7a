// The unary elementwise family of the reference backend, ported from
// `fuel-reference-backend/src/ops.rs:30-273, 1495-1524, 1802` (inventory,
// "Unary elementwise" and "Scalar-by-tensor / clamp"). One function per
// operation and dtype, instantiated in unary.cpp; the executor picks one.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/tensor.h"

namespace kc::kern {

enum class UnaryOp : std::uint8_t {
  neg, relu, sqr, sqrt, exp, sign, log, sin, cos, abs, recip, tanh, floor, ceil,
  erf, gelu_erf, round, sigmoid, silu, gelu, step, rsqrt, powi,
  add_scalar, mul_scalar, clamp,
};

std::string_view unary_op_name(UnaryOp op);
std::optional<UnaryOp> parse_unary_op(std::string_view name);

// Scalar arguments; only the ones the op uses are read.
struct UnaryArgs {
  std::int32_t n = 0;     // powi
  double c = 0;           // add_scalar, mul_scalar
  double lo = 0, hi = 0;  // clamp
};

// x must be a consistent float tensor (f32/f64/bf16/f16); the executor checks.
Tensor unary(UnaryOp op, const Tensor& x, const UnaryArgs& args);

// The gelu (tanh form) constants as the reference computes them in T:
// c = sqrt_T(T(2/pi)), k = T(0.044715) (reference-semantics.md §1). Exposed
// so that the oracle grades against the same constants and a test checks
// them against the published bit patterns.
double gelu_constant_c(DType t);
double gelu_constant_k(DType t);

}  // namespace kc::kern
