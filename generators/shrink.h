// Cutting a case down, for shrinking (drivers' shrink_candidates): slices
// of a tensor along an axis, a tensor flattened to one dim, an axis of size
// one removed. Family-free: which cuts a case admits is its driver's call.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace kc::gen {

// x[..., start:start+len, ...] along `axis`, as a fresh contiguous tensor.
Tensor sliced(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len);
// `x` without x[..., start:start+len, ...] along `axis`.
Tensor without_range(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len);
// The same elements in the same order, with dims [numel].
Tensor flattened(const Tensor& x);
// `x` without axis `axis`, which must have size 1.
Tensor without_axis(const Tensor& x, std::size_t axis);

}  // namespace kc::gen
