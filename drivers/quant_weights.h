// The quantized weights the quant drivers generate (drivers/quant.cpp):
// ggml blocks of random bytes with drawn scale halves (moderate, any
// pattern, or special), as u32 words, in a random weight shape.
#pragma once

#include <cstdint>
#include <vector>

#include <rapidcheck.h>

#include "core/tensor.h"

namespace kc::drivers {

// u32 words holding `bytes` (a multiple of 4), little-endian.
Tensor words_of(const std::vector<std::uint8_t>& bytes);

// The bytes of n x k of a format: random bytes, each block's half fields
// replaced by drawn scales.
rc::Gen<std::vector<std::uint8_t>> weight_bytes(std::int64_t type, std::int64_t n, std::int64_t k);

// A random weight shape: Q4_0 and Q8_0 rows of 1-4 blocks (N K / 32 even:
// their 18- and 34-byte blocks fill whole u32 words only in pairs), Q4_K
// rows of 1-2 super-blocks; N 1-4.
struct Drawn {
  std::int64_t type, n, k;
};
Drawn draw_shape(const std::vector<std::uint32_t>& r);

}  // namespace kc::drivers
