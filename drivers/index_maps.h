// The grading side's index maths over contiguous row-major buffers: which
// source elements an output element reads. Written here on purpose rather
// than shared with kernels/shape_math: a bug in the kernels' index code must
// not grade itself (a mutant, broadcast_index_reversed, plants one). The
// style differs from the kernels' too: coordinates are unflattened one axis
// at a time from the innermost, never through precomputed stride tables.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace kc::drivers {

// NumPy broadcast of two shapes (right-aligned, leading 1s, 1 against n
// gives n, 1 against 0 gives 0); nullopt if some pair of dims is neither
// equal nor has a 1.
std::optional<Dims> broadcast_of(const Dims& a, const Dims& b);

// True when `target` is `source` with only leading size-1 dims added.
bool only_leading_ones_added(const Dims& source, const Dims& target);

// Flat index into a source of dims `src`, right-aligned into `out`, read by
// the output element at flat index `o` (a size-1 source dim reads 0).
std::int64_t source_of(const Dims& src, const Dims& out, std::int64_t o);

// The flat indices of the elements along `dim` of the output cell `o` of a
// reduction that removes `dim` from `d`, in increasing order.
std::vector<std::int64_t> along_dim(const Dims& d, std::size_t dim, std::int64_t o);

// For each cell of `target` (right-aligned into `src`; its size-1 dims
// collapse), the flat indices of the source elements it gathers, in
// increasing source order. `cell_of[i]` is the cell of source element i.
struct Cells {
  std::vector<std::vector<std::int64_t>> members;
  std::vector<std::int64_t> cell_of;
};
Cells cells_of(const Dims& src, const Dims& target);

// A permutation of axes (permute, the transposes): out.shape[i] =
// in[axes[i]], and output element o reads the input element whose
// coordinate on axis axes[i] is o's coordinate i (reference-semantics §8).
Dims permuted_dims(const Dims& in, const std::vector<std::int64_t>& axes);
std::int64_t permuted_source(const Dims& in, const std::vector<std::int64_t>& axes, std::int64_t o);
// 0, 1, ..., rank - 1 with the last two swapped (the transposes' axes).
std::vector<std::int64_t> last_two_swapped(std::size_t rank);

// `d` without axis `dim`.
Dims without_dim(const Dims& d, std::size_t dim);

}  // namespace kc::drivers
