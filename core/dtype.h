// Element types of the tensor model and their bit-exact conversions.
//
// bf16 and f16 are stored as raw 16-bit patterns; every conversion between
// formats rounds to nearest, ties to even, with subnormals, signed zeros,
// infinities and NaN handled as IEEE 754 says (NaN payloads: the top payload
// bits survive and the quiet bit is set, as x86 F16C and the `half` crate do).
// The conversions are checked exhaustively against MPFR in
// tests/dtype_conversion_test.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kc {

enum class DType : std::uint8_t { f32, f64, bf16, f16, u32, u8 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f64, DType::bf16,
                                       DType::f16, DType::u32, DType::u8};
inline constexpr DType kFloatDTypes[] = {DType::f32, DType::f64, DType::bf16,
                                         DType::f16};

std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
inline std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32: case DType::u32: return 4;
    case DType::f64: return 8;
    case DType::bf16: case DType::f16: return 2;
    case DType::u8: return 1;
  }
  return 0;
}
inline bool is_float(DType t) { return t != DType::u32 && t != DType::u8; }

// A small set of dtypes, as a bit mask (contracts list their dtypes this way).
class DTypeSet {
 public:
  constexpr DTypeSet() = default;
  constexpr DTypeSet(std::initializer_list<DType> ts) {
    for (DType t : ts) mask_ |= bit(t);
  }
  constexpr bool contains(DType t) const { return (mask_ & bit(t)) != 0; }
  constexpr bool empty() const { return mask_ == 0; }
  constexpr void insert(DType t) { mask_ |= bit(t); }
  std::vector<DType> list() const;
  std::string to_string() const;  // "f32, f64, bf16"

 private:
  static constexpr std::uint32_t bit(DType t) { return 1u << static_cast<unsigned>(t); }
  std::uint32_t mask_ = 0;
};

// The four float dtypes of the numeric kernels (inventory: f32/f64/bf16/f16).
inline constexpr DTypeSet kFloatSet{DType::f32, DType::f64, DType::bf16, DType::f16};
// bf16 and f16: stored as 16-bit patterns, computed through f32 by the reference.
constexpr bool is_half(DType t) { return t == DType::bf16 || t == DType::f16; }

// Binary floating-point format parameters (accuracy.md's table).
struct FloatFormat {
  int precision;     // p, bits including the hidden bit
  int emin;          // exponent of the smallest normal
  int emax;          // exponent of the largest finite
  int exponent_bits;
  int total_bits;
};
// 2^e for -1022 <= e <= 1023, exactly, without a libm call (the grading
// scales by powers of two per element; ldexp is a function call).
// (memcpy, not std::bit_cast: an installed header, read by C++17 consumers too.)
inline double pow2(int e) {
  const std::uint64_t bits = static_cast<std::uint64_t>(e + 1023) << 52;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// t must be a float dtype. Inline: the grading asks for it per element.
inline FloatFormat float_format(DType t) {
  switch (t) {
    case DType::f64: return {53, -1022, 1023, 11, 64};
    case DType::f32: return {24, -126, 127, 8, 32};
    case DType::bf16: return {8, -126, 127, 8, 16};
    case DType::f16: return {11, -14, 15, 5, 16};
    default: return {0, 0, 0, 0, 0};
  }
}
// The extremes of a float format, as doubles (exact).
double min_subnormal(DType t);
double min_normal(DType t);
double max_finite(DType t);

// 16-bit storage types. Plain structs: arithmetic on them goes through the
// kernels' explicit f32 round trip (reference-semantics.md §0.2).
struct bf16 {
  std::uint16_t bits;
};
struct f16 {
  std::uint16_t bits;
};

// Widening is exact.
float bf16_to_f32(bf16 h);
float f16_to_f32(f16 h);

// Narrowing: one correct rounding (RNE) from the exact source value.
bf16 f32_to_bf16(float x);
f16 f32_to_f16(float x);
bf16 f64_to_bf16(double x);
f16 f64_to_f16(double x);
float f64_to_f32(double x);
bf16 f16_to_bf16(f16 h);  // exact f32 widening, then one RNE
f16 bf16_to_f16(bf16 h);

// Integer targets: round to nearest even integer, saturating; NaN gives 0.
std::uint32_t f64_to_u32_rne(double x);
std::uint8_t f64_to_u8_rne(double x);

// Generic: round an exact double to the float format `t` and return it as a
// double holding the rounded value (ties to even, gradual underflow, overflow
// to infinity). Used by the oracle's tests and the generators.
double round_to_format(double x, DType t);

// Bits <-> value for any dtype (value as double; every dtype embeds exactly
// in double except u32 above 2^53, which cannot happen).
double bits_to_double(DType t, std::uint64_t bits);
std::uint64_t double_to_bits_other(DType t, double value);
// value must be representable. Inline for f32, which a sweep converts 2^32 times.
inline std::uint64_t double_to_bits(DType t, double value) {
  if (t == DType::f32) {
    const float f = static_cast<float>(value);
    std::uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
  }
  return double_to_bits_other(t, value);
}

// The same, but a NaN keeps all its bits, the quiet bit included: a
// signalling NaN becomes a signalling double NaN (sign and payload in the
// same places as bits_to_double puts them) and back. The oracle's replays
// compute on such doubles, so that moving a value (neg, max, a copy) keeps
// it signalling and arithmetic quiets it, as the hardware does.
double bits_to_double_exact(DType t, std::uint64_t bits);
std::uint64_t double_to_bits_exact_nan(DType t, double value);
inline std::uint64_t double_to_bits_exact(DType t, double value) {
  return value == value ? double_to_bits(t, value) : double_to_bits_exact_nan(t, value);
}

// Monotone integer image of a float format's bit pattern: ordered like the
// real numbers, with +0 and -0 both mapped to 0. The integer ulp distance
// between two finite values is the difference of their images.
inline std::int64_t ordered_bits(DType t, std::uint64_t bits) {
  if (!is_float(t)) return static_cast<std::int64_t>(bits);
  const int total = float_format(t).total_bits;
  const std::uint64_t sign_mask = 1ull << (total - 1);
  const auto magnitude = static_cast<std::int64_t>(bits & (sign_mask - 1));
  return (bits & sign_mask) ? -magnitude : magnitude;
}

std::string hex_bits(DType t, std::uint64_t bits);  // "0x3f800000"

// A NaN with its quiet bit clear.
bool is_signaling_nan(DType t, std::uint64_t bits);

}  // namespace kc
