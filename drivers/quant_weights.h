// The quantized weights the quant drivers generate (drivers/quant.cpp):
// ggml blocks of random bytes with drawn scale halves (moderate, any
// pattern, or special), as u32 words, in a random weight shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck.h>

#include "core/params.h"
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

// The params of a weight (quant_type, n, k), and back.
Params weight_params(const Drawn& d);
Drawn drawn_of(const Params& p);

// Shaped cases (drivers/shaped.h). A tail's weight: along k, n values
// rounded up to whole blocks, the type cycling with n (n mod 3: Q4_0,
// Q8_0, Q4_K, so that each reaches k >= 4096), `rows` rows (even: Q4_0's
// and Q8_0's blocks fill whole words in pairs).
Drawn tail_weight(std::int64_t n, std::int64_t rows);
// The u32 words a weight of this shape takes.
std::int64_t weight_words(const Drawn& d);
// "" when a problem line's params name a weight that `words` holds, else
// what does not fit (the type, k's block multiple, the word count),
// after the kernel's name.
std::string weight_error(std::string_view kernel, const Params& p, std::int64_t words);
// The weight's bytes as words, linear in its size: random quant bytes,
// every scale half moderate (2^-8 .. 2^4 of either sign, a layer's).
Tensor shaped_weight(const Drawn& d, std::uint64_t seed);

}  // namespace kc::drivers
