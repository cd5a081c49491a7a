// The reference's 16 dtype casts (ops.rs:1135-1241; reference-semantics.md
// §17), each a concrete src -> dst function, and their exec arms (exec's
// eval_cast accepts exactly these pairs).
#include <bit>
#include <cmath>
#include <string_view>

#include "kernels/arms.h"

namespace kc::kern {

namespace {

struct CastArm {
  std::string_view op;
  DType src, dst;
};
constexpr CastArm kCasts[] = {
    {"cast_f32_to_f64", DType::f32, DType::f64},   {"cast_f32_to_bf16", DType::f32, DType::bf16},
    {"cast_f32_to_f16", DType::f32, DType::f16},   {"cast_f64_to_f32", DType::f64, DType::f32},
    {"cast_f64_to_bf16", DType::f64, DType::bf16}, {"cast_f64_to_f16", DType::f64, DType::f16},
    {"cast_bf16_to_f32", DType::bf16, DType::f32}, {"cast_bf16_to_f64", DType::bf16, DType::f64},
    {"cast_bf16_to_f16", DType::bf16, DType::f16}, {"cast_f16_to_f32", DType::f16, DType::f32},
    {"cast_f16_to_f64", DType::f16, DType::f64},   {"cast_f16_to_bf16", DType::f16, DType::bf16},
    {"cast_u32_to_f32", DType::u32, DType::f32},   {"cast_u32_to_f64", DType::u32, DType::f64},
    {"cast_f32_to_u32", DType::f32, DType::u32},   {"cast_f64_to_u32", DType::f64, DType::u32},
};

// half's bf16::from_f64 (half/src/bfloat/convert.rs): drops the low 32 bits
// of the f64 significand, then rounds to nearest even. Not correctly rounded.
std::uint16_t f64_to_bf16_truncating(double value) {
  const std::uint64_t val = std::bit_cast<std::uint64_t>(value);
  const auto x = static_cast<std::uint32_t>(val >> 32);  // the low 32 significand bits are dropped here
  const std::uint32_t sign = x & 0x80000000u, exp = x & 0x7FF00000u, man = x & 0x000FFFFFu;
  if (exp == 0x7FF00000u) {  // inf or NaN (NaN: quiet bit, keep the top payload)
    const std::uint32_t nan_bit = (man == 0 && static_cast<std::uint32_t>(val) == 0) ? 0 : 0x0040u;
    return static_cast<std::uint16_t>((sign >> 16) | 0x7F80u | nan_bit | (man >> 13));
  }
  const std::uint32_t half_sign = sign >> 16;
  const std::int64_t half_exp = static_cast<std::int64_t>(exp >> 20) - 1023 + 127;
  if (half_exp >= 0xFF) return static_cast<std::uint16_t>(half_sign | 0x7F80u);
  if (half_exp <= 0) {  // subnormal or zero in bf16
    if (7 - half_exp > 21) return static_cast<std::uint16_t>(half_sign);
    const std::uint32_t m = man | 0x00100000u;  // hidden bit
    std::uint32_t half_man = m >> (14 - half_exp);
    const std::uint32_t round_bit = 1u << (13 - half_exp);
    if ((m & round_bit) != 0 && (m & (3 * round_bit - 1)) != 0) ++half_man;
    return static_cast<std::uint16_t>(half_sign | half_man);
  }
  const std::uint32_t bits = half_sign | (static_cast<std::uint32_t>(half_exp) << 7) | (man >> 13);
  const std::uint32_t round_bit = 0x00001000u;
  if ((man & round_bit) != 0 && (man & (3 * round_bit - 1)) != 0) return static_cast<std::uint16_t>(bits + 1);
  return static_cast<std::uint16_t>(bits);
}

// Rust `as` from float to u32: truncate toward zero, saturate, NaN -> 0.
std::uint32_t saturating_u32(double v) {
  if (std::isnan(v) || v < 0) return 0;  // -0.5 truncates to 0 too
  if (v >= 4294967296.0) return 4294967295u;
  return static_cast<std::uint32_t>(std::trunc(v));
}

std::uint64_t convert(DType src, DType dst, std::uint64_t bits) {
  const double v = bits_to_double(src, bits);  // exact for every source
  switch (dst) {
    case DType::f64: return double_to_bits(DType::f64, v);
    case DType::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));  // RNE from the exact value
    case DType::bf16:
      if (src == DType::f64) return f64_to_bf16_truncating(v);  // half's from_f64
      return f32_to_bf16(static_cast<float>(v)).bits;           // f32 (or f16 widened exactly): one RNE
    case DType::f16:
      // x86 F16C: f64 -> f32 (RNE) -> f16 (RNE), a double rounding.
      return f32_to_f16(static_cast<float>(v)).bits;
    case DType::u32: return saturating_u32(v);
    default: return 0;
  }
}

Tensor cast(const Tensor& x, DType dst) {
  Tensor y(dst, x.dims());
  for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, convert(x.dtype(), dst, x.bits_at(i)));
  return y;
}

}  // namespace

// Each arm accepts exactly its source dtype; any other pair panics in the
// reference (`cast: unsupported dtype combination`, §17).
void register_cast(Arms& arms) {
  for (const CastArm& c : kCasts)
    arms.push_back(Arm{.op = c.op, .dtypes = {c.src}, .arity = 1, .params = {},
                       .eval = [dst = c.dst](std::span<const Tensor> in, const Params&) {
                         return std::vector<Tensor>{cast(in[0], dst)};
                       }});
}

}  // namespace kc::kern
