// Conversions between the six dtypes. One generic rounding routine serves
// every narrowing to a 16-bit format: scale the exact value so that the
// target's last mantissa bit has weight 1, round to an integer with the
// current (round-to-nearest-even) mode, scale back. Scaling by a power of two
// is exact in double for every value these formats can hold, so the only
// rounding is the nearbyint, which is the single correct rounding we want.
// The usual case (a normal double, normal in the target) takes the same
// rounding on the bits instead, and decoding builds the double's bits: the
// grading and the replays round and decode every half they touch.
#include "core/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>
#include <fmt/format.h>

namespace kc {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::u32: return "u32";
    case DType::u8: return "u8";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}


std::vector<DType> DTypeSet::list() const {
  std::vector<DType> out;
  for (DType t : kAllDTypes)
    if (contains(t)) out.push_back(t);
  return out;
}

std::string DTypeSet::to_string() const {
  std::string s;
  for (DType t : list()) {
    if (!s.empty()) s += ", ";
    s += dtype_name(t);
  }
  return s;
}


namespace {

double max_finite(const FloatFormat& f) {
  return (2.0 - pow2(1 - f.precision)) * pow2(f.emax);  // (exact: no libm call per rounding)
}

}  // namespace

double min_subnormal(DType t) {
  const FloatFormat f = float_format(t);
  return std::ldexp(1.0, f.emin - f.precision + 1);
}
double min_normal(DType t) { return std::ldexp(1.0, float_format(t).emin); }
double max_finite(DType t) { return max_finite(float_format(t)); }

namespace {

// Encode a double that is exactly representable in the 16-bit format `f`.
std::uint16_t encode16(const FloatFormat& f, double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const int mant_bits = f.precision - 1;
  const std::uint16_t exp_mask =
      static_cast<std::uint16_t>(((1u << f.exponent_bits) - 1) << mant_bits);
  if (std::isnan(v)) {
    // Keep the top payload bits of the double's mantissa, set the quiet bit.
    std::uint64_t b = std::bit_cast<std::uint64_t>(v);
    auto payload = static_cast<std::uint16_t>((b >> (52 - mant_bits)) & ((1u << mant_bits) - 1));
    payload |= static_cast<std::uint16_t>(1u << (mant_bits - 1));
    return static_cast<std::uint16_t>(sign | exp_mask | payload);
  }
  double a = std::fabs(v);
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | exp_mask);
  if (a == 0) return sign;
  int e = std::ilogb(a);
  if (e < f.emin) {  // subnormal: integer multiple of the smallest subnormal
    auto m = static_cast<std::uint16_t>(std::ldexp(a, f.precision - 1 - f.emin));
    return static_cast<std::uint16_t>(sign | m);
  }
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  auto frac = static_cast<std::uint16_t>(std::ldexp(a, f.precision - 1 - e) -
                                         std::ldexp(1.0, mant_bits));
  return static_cast<std::uint16_t>(sign | ((e + bias) << mant_bits) | frac);
}

double decode16(const FloatFormat& f, std::uint16_t bits) {
  const int mant_bits = f.precision - 1;
  const bool neg = (bits & 0x8000) != 0;
  const unsigned exp = (bits >> mant_bits) & ((1u << f.exponent_bits) - 1);
  const unsigned frac = bits & ((1u << mant_bits) - 1);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  double v;
  if (exp == (1u << f.exponent_bits) - 1) {
    if (frac == 0) {
      v = INFINITY;
    } else {
      // Widen the payload into a quiet double NaN (quiet bit set, as F16C
      // and half::to_f32 do).
      std::uint64_t b = 0x7FF8000000000000ull |
                        (static_cast<std::uint64_t>(frac) << (52 - mant_bits));
      v = std::bit_cast<double>(b);
    }
  } else if (exp == 0) {
    v = static_cast<double>(frac) * pow2(f.emin - mant_bits);  // (exact)
  } else {
    // The double of that exponent and fraction, built directly (ldexp was
    // most of a half's decoding; every half element is decoded).
    v = std::bit_cast<double>((static_cast<std::uint64_t>(static_cast<int>(exp) - bias + 1023) << 52) |
                              (static_cast<std::uint64_t>(frac) << (52 - mant_bits)));
  }
  return neg ? -v : v;
}

// Correctly rounded value of x in format f, as a double.
double round_generic(const FloatFormat& f, double x) {
  // A normal double that is normal in f (the usual case): round to
  // nearest even on the bits, keeping p - 1 fraction bits (a carry into
  // the exponent is the next binade's power of two, as it should be).
  const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((b >> 52) & 0x7FF);
  if (biased != 0 && biased != 0x7FF && biased - 1023 >= f.emin) {
    const int shift = 53 - f.precision;
    const std::uint64_t low = (std::uint64_t{1} << shift) - 1;
    const double r = std::bit_cast<double>((b + (low >> 1) + ((b >> shift) & 1)) & ~low);
    return std::fabs(r) > max_finite(f) ? std::copysign(INFINITY, x) : r;
  }
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e = std::ilogb(x);
  int q = std::max(e, f.emin) - f.precision + 1;  // weight of the last bit
  double r = std::ldexp(std::nearbyint(std::ldexp(x, -q)), q);
  if (std::fabs(r) > max_finite(f)) return std::copysign(INFINITY, x);
  return r;  // r == 0 keeps x's sign through nearbyint
}

}  // namespace

double round_to_format(double x, DType t) {
  switch (t) {
    case DType::f64: return x;
    case DType::f32: return static_cast<double>(static_cast<float>(x));
    case DType::bf16: case DType::f16: return round_generic(float_format(t), x);
    default: return x;
  }
}

// bf16 is the top half of an f32: widening is a shift (NaNs get the quiet
// bit, as in decode16). f16 widening reads a table of all 65536 values built
// once from decode16. Both are checked exhaustively against MPFR.
float bf16_to_f32(bf16 h) {
  std::uint32_t b = static_cast<std::uint32_t>(h.bits) << 16;
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0) b |= 0x00400000u;
  return std::bit_cast<float>(b);
}
float f16_to_f32(f16 h) {
  static const std::vector<float> table = [] {
    std::vector<float> t(65536);
    for (std::uint32_t b = 0; b < 65536; ++b)
      t[b] = static_cast<float>(decode16(float_format(DType::f16), static_cast<std::uint16_t>(b)));
    return t;
  }();
  return table[h.bits];
}

bf16 f64_to_bf16(double x) {
  const FloatFormat f = float_format(DType::bf16);
  return bf16{encode16(f, round_generic(f, x))};
}
f16 f64_to_f16(double x) {
  const FloatFormat f = float_format(DType::f16);
  return f16{encode16(f, round_generic(f, x))};
}
// RNE on the top 16 bits of an f32 (the usual bit trick; equal to the generic
// rounding, which the exhaustive tests compare against MPFR).
bf16 f32_to_bf16(float x) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x007FFFFFu) != 0)
    return bf16{static_cast<std::uint16_t>((b >> 16) | 0x0040u)};  // quiet NaN, top payload kept
  const std::uint32_t rounded = b + 0x7FFFu + ((b >> 16) & 1u);
  return bf16{static_cast<std::uint16_t>(rounded >> 16)};
}
// RNE to f16 on the f32 bits (after F. Giesen's float_to_half_fast3_rtne):
// normals add the rounding increment to the bits; subnormals let the FPU's
// own RNE addition to a magic constant do the rounding. Checked against MPFR.
f16 f32_to_f16(float x) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = (b >> 16) & 0x8000u;
  std::uint32_t u = b & 0x7FFFFFFFu;
  if (u >= 0x7F800000u) {  // inf, NaN (quiet, top payload kept)
    const std::uint32_t nan = u > 0x7F800000u ? (0x0200u | ((u >> 13) & 0x3FFu)) : 0;
    return f16{static_cast<std::uint16_t>(sign | 0x7C00u | nan)};
  }
  if (u >= 0x47800000u) return f16{static_cast<std::uint16_t>(sign | 0x7C00u)};  // >= 65536: overflow
  if (u < 0x38800000u) {  // below 2^-14: subnormal or zero in f16
    const std::uint32_t magic = 126u << 23;  // 0.5: its ulp is 2^-24, the f16 subnormal step
    const float sum = std::bit_cast<float>(u) + std::bit_cast<float>(magic);
    return f16{static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(sum) - magic))};
  }
  const std::uint32_t odd = (u >> 13) & 1u;
  u += (static_cast<std::uint32_t>(15 - 127) << 23) + 0xFFFu + odd;  // rebias, round to nearest even
  return f16{static_cast<std::uint16_t>(sign | (u >> 13))};  // a carry into the exponent is correct (and gives inf)
}
float f64_to_f32(double x) { return static_cast<float>(x); }
bf16 f16_to_bf16(f16 h) { return f32_to_bf16(f16_to_f32(h)); }
f16 bf16_to_f16(bf16 h) { return f32_to_f16(bf16_to_f32(h)); }

std::uint32_t f64_to_u32_rne(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  double r = std::nearbyint(x);
  if (r >= 4294967295.0) return 4294967295u;
  return static_cast<std::uint32_t>(r);
}
std::uint8_t f64_to_u8_rne(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  double r = std::nearbyint(x);
  if (r >= 255.0) return 255;
  return static_cast<std::uint8_t>(r);
}

double bits_to_double(DType t, std::uint64_t bits) {
  switch (t) {
    case DType::f64: return std::bit_cast<double>(bits);
    case DType::f32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    case DType::bf16: case DType::f16:
      return decode16(float_format(t), static_cast<std::uint16_t>(bits));
    case DType::u32: return static_cast<double>(static_cast<std::uint32_t>(bits));
    case DType::u8: return static_cast<double>(static_cast<std::uint8_t>(bits));
  }
  return 0;
}

std::uint64_t double_to_bits_other(DType t, double v) {
  switch (t) {
    case DType::f64: return std::bit_cast<std::uint64_t>(v);
    case DType::f32: return std::bit_cast<std::uint32_t>(static_cast<float>(v));
    case DType::bf16: case DType::f16: return encode16(float_format(t), v);
    case DType::u32: return static_cast<std::uint32_t>(v);
    case DType::u8: return static_cast<std::uint8_t>(v);
  }
  return 0;
}

double bits_to_double_exact(DType t, std::uint64_t bits) {
  const double v = bits_to_double(t, bits);
  if (!std::isnan(v) || t == DType::f64) return t == DType::f64 ? std::bit_cast<double>(bits) : v;
  const FloatFormat f = float_format(t);
  const int mant_bits = f.precision - 1;
  const std::uint64_t sign = (bits >> (f.total_bits - 1)) & 1u, payload = bits & ((1ull << mant_bits) - 1);
  return std::bit_cast<double>(sign << 63 | 0x7FF0000000000000ull | payload << (52 - mant_bits));
}

std::uint64_t double_to_bits_exact_nan(DType t, double v) {
  if (!std::isnan(v) || !is_float(t)) return double_to_bits(t, v);
  const FloatFormat f = float_format(t);
  const int mant_bits = f.precision - 1;
  const std::uint64_t b = std::bit_cast<std::uint64_t>(v);
  const std::uint64_t exp_mask = ((1ull << f.exponent_bits) - 1) << mant_bits;
  return (b >> 63) << (f.total_bits - 1) | exp_mask | ((b & 0xFFFFFFFFFFFFFull) >> (52 - mant_bits));
}


bool is_signaling_nan(DType t, std::uint64_t bits) {
  if (!is_float(t) || !std::isnan(bits_to_double(t, bits))) return false;
  return ((bits >> (float_format(t).precision - 2)) & 1u) == 0;  // quiet bit clear
}

std::string hex_bits(DType t, std::uint64_t bits) {
  return fmt::format("0x{:0{}x}", bits, static_cast<int>(dtype_size(t) * 2));
}

}  // namespace kc
