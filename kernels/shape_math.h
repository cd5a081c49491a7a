// Broadcast and reduction index math over contiguous row-major buffers
// (reference: broadcast_shape ops.rs:2094, broadcast_src_flat :2121,
// row_major_strides): right-align, pad with leading 1s, a size-1 dim reads
// coordinate 0.
#pragma once

#include <cstring>
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

// y[o] = x[source(o)] bit for bit, over any element width (the data
// movers: NaN payloads and signalling NaNs travel unchanged, as the
// reference's clones and copies do).
template <class Source>
Tensor copy_from(const Tensor& x, Dims out, Source source) {
  Tensor y(x.dtype(), std::move(out));
  const std::size_t w = dtype_size(x.dtype());
  const std::byte* in = x.bytes();
  std::byte* o = y.mutable_bytes();
  for (std::int64_t i = 0; i < y.numel(); ++i)
    std::memcpy(o + static_cast<std::size_t>(i) * w, in + static_cast<std::size_t>(source(i)) * w, w);
  return y;
}

// Rank and the size of `dim` with everything before it (outer) and after
// it (inner) folded: the reference's outer x d x inner walks along a dim.
struct AlongDim {
  std::int64_t outer = 1, d = 0, inner = 1;
  AlongDim(const Dims& dims, std::size_t dim) {
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (i < dim) outer *= dims[i];
      else if (i > dim) inner *= dims[i];
    }
    d = dims[dim];
  }
  // Flat index of (o, j, i).
  std::int64_t at(std::int64_t o, std::int64_t j, std::int64_t i) const { return (o * d + j) * inner + i; }
};

}  // namespace kc::kern
