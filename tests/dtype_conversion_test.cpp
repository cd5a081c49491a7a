// The core conversions, checked exhaustively over every 16-bit pattern
// against MPFR's own correct rounding (mpfr_subnormalize with the format's
// exponent range), independent of oracles/rounding.cpp.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <random>

#include "core/dtype.h"

namespace kc {
namespace {

// RN into the IEEE format (p, emin, emax) of an exact double, by MPFR.
double rn_by_mpfr(double x, const FloatFormat& f) {
  if (std::isnan(x)) return x;
  const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
  // MPFR writes x = m 2^e with m in [1/2, 1): the smallest subnormal
  // 2^(emin-p+1) has MPFR exponent emin - p + 2; the largest binade emax + 1.
  mpfr_set_emin(f.emin - f.precision + 2);
  mpfr_set_emax(f.emax + 1);
  mpfr_t r;
  mpfr_init2(r, f.precision);
  int inex = mpfr_set_d(r, x, MPFR_RNDN);
  inex = mpfr_subnormalize(r, inex, MPFR_RNDN);
  double out = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  mpfr_set_emin(old_min);
  mpfr_set_emax(old_max);
  return out;
}

// The exact value of a 16-bit pattern, from its fields, by MPFR.
double mpfr_decode(DType t, std::uint16_t bits) {
  const FloatFormat f = float_format(t);
  const int mant = f.precision - 1;
  const unsigned e = (bits >> mant) & ((1u << f.exponent_bits) - 1);
  const unsigned m = bits & ((1u << mant) - 1);
  const bool neg = bits >> 15;
  if (e == (1u << f.exponent_bits) - 1) return m ? NAN : (neg ? -INFINITY : INFINITY);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  mpfr_t v;
  mpfr_init2(v, 64);
  if (e == 0) mpfr_set_ui_2exp(v, m, f.emin - mant, MPFR_RNDN);
  else mpfr_set_ui_2exp(v, m | (1u << mant), static_cast<int>(e) - bias - mant, MPFR_RNDN);
  if (neg) mpfr_neg(v, v, MPFR_RNDN);
  double d = mpfr_get_d(v, MPFR_RNDN);
  mpfr_clear(v);
  return d;
}

bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

class Exhaustive16 : public ::testing::TestWithParam<DType> {};

TEST_P(Exhaustive16, DecodeMatchesMpfrForAll65536) {
  const DType t = GetParam();
  int checked = 0;
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const double v = bits_to_double(t, b);
    ASSERT_TRUE(same(v, mpfr_decode(t, static_cast<std::uint16_t>(b)))) << hex_bits(t, b);
    if (!std::isnan(v)) ASSERT_EQ(double_to_bits(t, v), b) << hex_bits(t, b);  // round trip
    ++checked;
  }
  EXPECT_EQ(checked, 65536);
}

// Every rounding boundary of the format: the midpoint between each pair of
// neighbours (a tie, decided to even), and the doubles just either side.
TEST_P(Exhaustive16, NarrowingRoundsLikeMpfrAtEveryMidpoint) {
  const DType t = GetParam();
  const FloatFormat f = float_format(t);
  int checked = 0;
  for (std::uint32_t b = 0; b < 0x7fff; ++b) {
    const double a = bits_to_double(t, b), next = bits_to_double(t, b + 1);
    if (!std::isfinite(a) || std::isnan(next)) continue;
    const double mid = std::isinf(next) ? a + (a - bits_to_double(t, b - 1)) / 2 : (a + next) / 2;  // exact in double
    for (double x : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, INFINITY), a, -mid, -std::nextafter(mid, 0.0)}) {
      const double want = rn_by_mpfr(x, f);
      ASSERT_TRUE(same(round_to_format(x, t), want)) << "x = " << x << " near " << hex_bits(t, b);
      const std::uint64_t got = t == DType::bf16 ? f64_to_bf16(x).bits : f64_to_f16(x).bits;
      ASSERT_TRUE(same(bits_to_double(t, got), want)) << "x = " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 6 * 30000);
}

// The f32 -> T routines (bit tricks) at every f32 value next to each
// rounding boundary of T.
TEST_P(Exhaustive16, F32NarrowingRoundsLikeMpfrAtEveryMidpoint) {
  const DType t = GetParam();
  int checked = 0;
  for (std::uint32_t b = 0; b < 0x7fff; ++b) {
    const double a = bits_to_double(t, b), next = bits_to_double(t, b + 1);
    if (!std::isfinite(a) || std::isnan(next)) continue;
    const double mid = std::isinf(next) ? a + (a - bits_to_double(t, b - 1)) / 2 : (a + next) / 2;
    const float m = static_cast<float>(mid);  // exact: every T midpoint is an f32
    for (float x : {m, std::nextafter(m, 0.0f), std::nextafter(m, INFINITY), static_cast<float>(a), -m}) {
      const std::uint64_t got = t == DType::bf16 ? f32_to_bf16(x).bits : f32_to_f16(x).bits;
      ASSERT_TRUE(same(bits_to_double(t, got), rn_by_mpfr(x, float_format(t)))) << "x = " << x;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5 * 30000);
}

TEST_P(Exhaustive16, CrossHalfConversionMatchesMpfr) {
  const DType t = GetParam();
  const DType other = t == DType::bf16 ? DType::f16 : DType::bf16;
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const double v = bits_to_double(t, b);
    const std::uint64_t got = t == DType::bf16 ? bf16_to_f16(bf16{static_cast<std::uint16_t>(b)}).bits
                                               : f16_to_bf16(f16{static_cast<std::uint16_t>(b)}).bits;
    ASSERT_TRUE(same(bits_to_double(other, got), rn_by_mpfr(v, float_format(other)))) << hex_bits(t, b);
  }
}

TEST_P(Exhaustive16, RandomF32NarrowingMatchesMpfr) {
  const DType t = GetParam();
  std::mt19937_64 rng(12345);
  for (int i = 0; i < 200000; ++i) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    const std::uint64_t got = t == DType::bf16 ? f32_to_bf16(x).bits : f32_to_f16(x).bits;
    ASSERT_TRUE(same(bits_to_double(t, got), rn_by_mpfr(x, float_format(t)))) << x;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, Exhaustive16, ::testing::Values(DType::bf16, DType::f16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(Conversion, NanKeepsTopPayloadAndIsQuiet) {
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7f800001u)).bits & 0x7fc0, 0x7fc0);  // signalling -> quiet
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0xffa00000u)).bits, 0xffe0);
  EXPECT_EQ(f32_to_f16(std::bit_cast<float>(0x7fc02000u)).bits, 0x7e01);
  EXPECT_TRUE(std::isnan(bf16_to_f32(bf16{0x7f81})));
  EXPECT_EQ(std::bit_cast<std::uint32_t>(bf16_to_f32(bf16{0x7f81})) & 0x00400000u, 0x00400000u);  // quieted
}

TEST(Conversion, F64ToF32AndIntegersMatchMpfr) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const double x = std::bit_cast<double>(rng());
    EXPECT_TRUE(same(round_to_format(x, DType::f32), rn_by_mpfr(x, float_format(DType::f32))));
  }
  for (int v = 0; v < 256; ++v) EXPECT_EQ(f64_to_u8_rne(v), v);
  EXPECT_EQ(f64_to_u8_rne(2.5), 2);
  EXPECT_EQ(f64_to_u8_rne(3.5), 4);
  EXPECT_EQ(f64_to_u8_rne(300), 255);
  EXPECT_EQ(f64_to_u8_rne(NAN), 0);
  EXPECT_EQ(f64_to_u32_rne(4294967295.0), 4294967295u);
  EXPECT_EQ(f64_to_u32_rne(1e20), 4294967295u);
  EXPECT_EQ(f64_to_u32_rne(-3), 0u);
  EXPECT_EQ(f64_to_u32_rne(16777216.5), 16777216u);
  EXPECT_EQ(round_to_format(16777217.0, DType::f32), 16777216.0);  // u32 -> f32 is RNE
}

TEST(Conversion, OrderedBitsAreMonotone) {
  for (DType t : {DType::bf16, DType::f16}) {
    for (std::uint32_t a = 0; a < 65536; a += 7) {
      const double va = bits_to_double(t, a);
      const double vb = bits_to_double(t, (a * 31 + 17) % 65536);
      if (std::isnan(va) || std::isnan(vb)) continue;
      const auto oa = ordered_bits(t, a), ob = ordered_bits(t, (a * 31 + 17) % 65536);
      EXPECT_EQ(va < vb, oa < ob);
      EXPECT_EQ(va == vb, oa == ob);
    }
  }
  EXPECT_EQ(ordered_bits(DType::f32, 0x80000000u), 0);
}

}  // namespace
}  // namespace kc
