#include "oracles/quant_model.h"

#include <cstring>

namespace kc::oracle::quant {

std::optional<Format> format_of(std::int64_t type) {
  if (type == 2) return Format{32, 18, "Q4_0"};
  if (type == 8) return Format{32, 34, "Q8_0"};
  if (type == 12) return Format{256, 144, "Q4_K"};
  return std::nullopt;
}

std::vector<std::uint8_t> bytes_of(const Tensor& w) {
  std::vector<std::uint8_t> out;
  out.reserve(static_cast<std::size_t>(w.numel()) * 4);
  for (std::int64_t i = 0; i < w.numel(); ++i) {
    const std::uint64_t word = w.bits_at(i);
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<std::uint8_t>(word >> (8 * b)));
  }
  return out;
}

namespace {
std::uint16_t half_bits(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
float half(std::uint16_t bits) { return f16_to_f32(f16{bits}); }
}  // namespace

Parts parts_of(std::int64_t type, const std::uint8_t* block, int j) {
  Parts p;
  p.d = half_bits(block);
  if (type == 2) {
    const std::uint8_t byte = block[2 + j % 16];
    p.code = j < 16 ? byte & 0xF : byte >> 4;
  } else if (type == 8) {
    p.code = block[2 + j];
  } else {
    // Chunk c = j / 64 reads qs[32c .. 32c + 31]: its first 32 outputs the
    // low nibbles (sub-block 2c), the next 32 the high ones (2c + 1).
    p.dmin = half_bits(block + 2);
    const std::uint8_t* scales = block + 4;
    const int c = j / 64, in_chunk = j % 64, sub = 2 * c + (in_chunk >= 32 ? 1 : 0);
    const std::uint8_t byte = block[16 + 32 * c + in_chunk % 32];
    p.code = in_chunk < 32 ? byte & 0xF : byte >> 4;
    // The 6-bit (scale, min) packing of ggml's get_scale_min_k4.
    if (sub < 4) {
      p.scale = scales[sub] & 63;
      p.min = scales[sub + 4] & 63;
    } else {
      p.scale = (scales[sub + 4] & 0x0F) | ((scales[sub - 4] >> 6) << 4);
      p.min = (scales[sub + 4] >> 4) | ((scales[sub] >> 6) << 4);
    }
  }
  return p;
}

float value_of(std::int64_t type, const std::uint8_t* block, int j) {
  const Parts p = parts_of(type, block, j);
  if (type == 2) return static_cast<float>(p.code - 8) * half(p.d);
  if (type == 8) return static_cast<float>(static_cast<std::int8_t>(p.code)) * half(p.d);
  // Each step one f32 rounding (built with -ffp-contract=off: the product
  // is not fused into the difference).
  const float d1 = half(p.d) * static_cast<float>(p.scale), m1 = half(p.dmin) * static_cast<float>(p.min);
  return d1 * static_cast<float>(p.code) - m1;
}

}  // namespace kc::oracle::quant
