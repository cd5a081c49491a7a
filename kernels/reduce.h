// Reductions, reduce-to-shape and broadcast_to of the reference
// (ops.rs:341-505, 854-1130; reference-semantics.md §5-§7). Preconditions are
// checked by the exec arms (backends/reference/exec_reduce.cpp).
#pragma once

#include "core/tensor.h"

namespace kc::kern {

enum class Fold : std::uint8_t { sum, max, min, mean };

Tensor reduce_all(Fold f, const Tensor& x);                    // rank-0 output
Tensor reduce_dim(Fold f, const Tensor& x, std::size_t dim);   // dim removed
Tensor arg_dim(bool is_max, const Tensor& x, std::size_t dim); // u32 output; reduced axis non-empty when output is
Tensor reduce_to(Fold f, const Tensor& x, const Dims& target); // sum or max
Tensor reduce_max_to_backward(const Tensor& x, const Tensor& up);  // target = up's dims
Tensor broadcast_to(const Tensor& x, const Dims& target);     // zero-copy on pure padding

}  // namespace kc::kern
