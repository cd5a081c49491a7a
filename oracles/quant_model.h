// The ggml block formats of qmatmul's weights (../shared/docs/quant-formats.md),
// modelled on the spec side, value by value, apart from kernels/quant.cpp
// (which dequantizes block by block as the reference does): the drivers of
// dequantize_blocks and qmatmul take the exact dequantized values from here.
// The format's definition is f32 arithmetic (Q4_K's d1 q - m1 is a rounded
// product and a rounded difference), so a value is an f32.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"

namespace kc::oracle::quant {

// ggml type codes: 2 Q4_0, 8 Q8_0, 12 Q4_K (the inventory's Q4_K_M).
struct Format {
  int elements;  // per block
  int bytes;     // per block
  const char* name;
};
std::optional<Format> format_of(std::int64_t type);

// The little-endian bytes of a tensor of u32 words.
std::vector<std::uint8_t> bytes_of(const Tensor& w);

// What value j of a block is made of: the half scale fields' bits, the
// 6-bit sub-block scale and min (Q4_K), and the quant code as stored (a
// nibble, or Q8_0's byte).
struct Parts {
  std::uint16_t d = 0, dmin = 0;
  int scale = 0, min = 0;
  int code = 0;
};
Parts parts_of(std::int64_t type, const std::uint8_t* block, int j);
// Value j of a block: Q4_0 (nibble - 8) d; Q8_0 i8(byte) d; Q4_K (D sc) q - (M m).
float value_of(std::int64_t type, const std::uint8_t* block, int j);

}  // namespace kc::oracle::quant
