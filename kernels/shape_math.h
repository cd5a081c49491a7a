// Broadcast and reduction index math over contiguous row-major buffers
// (reference: broadcast_shape ops.rs:2094, broadcast_src_flat :2121,
// row_major_strides): right-align, pad with leading 1s, a size-1 dim reads
// coordinate 0.
#pragma once

#include <optional>
#include <string>

#include "core/tensor.h"

namespace kc::kern {

Dims row_major_strides(const Dims& d);
// NumPy broadcast of two shapes; nullopt (with the failing axis) if incompatible.
std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b, std::string* why = nullptr);
// Flat index into `src` (right-aligned into `out`, size-1 dims broadcast)
// of the output element at flat index `o`.
class BroadcastIndex {
 public:
  BroadcastIndex(const Dims& src, const Dims& out);
  std::int64_t operator()(std::int64_t o) const;

 private:
  Dims out_strides_, src_strides_, src_dims_aligned_, out_dims_;
};
// reduce_*_to / broadcast_to compatibility: every dim of `small`, right-aligned
// into `big`, equals it or is 1. Returns a message naming the axis if not.
std::optional<std::string> target_incompatible(const Dims& big, const Dims& small);

}  // namespace kc::kern
