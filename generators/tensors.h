// Building blocks of the drivers' case generators: tensors from generated
// bit patterns, value lists (plain, or patterned for reductions), and shapes
// that broadcast into a given one. Family-free: which of these a kernel
// gets is its driver's choice (drivers/).
#pragma once

#include <cstdint>
#include <vector>

#include "generators/values.h"

namespace kc::gen {

// A tensor of dtype t and dims d holding `bits` (as many as fit).
Tensor tensor_of(DType t, const Dims& d, const std::vector<std::uint64_t>& bits);

// n element values from the profile.
rc::Gen<std::vector<std::uint64_t>> values_for(DType t, const contract::ValueProfile& p, std::size_t n);

// Reduction inputs: plain draws, cancelling pairs (a large value followed by
// its exact negation), mixed magnitudes, or few distinct values (ties for
// argmax/argmin and the fair-share split).
rc::Gen<std::vector<std::uint64_t>> reduction_values(DType t, const contract::ValueProfile& p, std::size_t n);

// Drawn bit patterns mapped into the ordinary range [lo, hi) of T (their
// low 20 bits as the fraction): rows of moderate values only, where a huge
// or special term would hide other terms' errors under its share of a
// bound (the attention and quantized-matmul drivers).
void into_range(DType t, std::vector<std::uint64_t>& bits, double lo, double hi);

// Shapes whose dims, right-aligned into `big`, are each equal or 1 (and
// possibly fewer leading dims): broadcast sources / reduce targets.
rc::Gen<Dims> compatible_sub_shape(const Dims& big);

// A rank-1 tensor of every bit pattern of a 16-bit dtype, in order.
Tensor every_16bit_pattern(DType t);

}  // namespace kc::gen
