// The oracle's rounding and error metrics at known points, and the
// reference-semantics test vectors of the kernels.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "backends/reference/executor.h"
#include "kernels/unary.h"
#include "oracles/exact.h"
#include "oracles/mp.h"
#include "oracles/oracle.h"
#include "oracles/rounding.h"

KC_MATH_OF(Terms, sum)

namespace kc {
namespace {

using oracle::Mp;

TEST(Rounding, TiesGoToEvenAndNearTiesAreFlagged) {
  oracle::PrecisionScope scope(200);
  const Mp tie = Mp(1) + Mp(std::ldexp(1.0, -24));  // halfway between 1 and 1 + 2^-23
  auto r = oracle::round_checked(DType::f32, tie);
  EXPECT_EQ(r.value, 1.0);
  EXPECT_TRUE(r.near_boundary);
  EXPECT_TRUE(r.exactly_midpoint);
  const Mp above = tie + Mp(std::ldexp(1.0, -60));
  EXPECT_EQ(oracle::round_to(DType::f32, above), 1.0 + std::ldexp(1.0, -23));
  EXPECT_FALSE(oracle::round_checked(DType::f32, Mp(1.25)).near_boundary);
}

TEST(Rounding, SubnormalsOverflowAndSignedZero) {
  oracle::PrecisionScope scope(200);
  EXPECT_EQ(oracle::round_to(DType::f16, Mp(std::ldexp(1.0, -25))), 0.0);             // half the smallest: tie to 0
  EXPECT_EQ(oracle::round_to(DType::f16, Mp(std::ldexp(1.5, -25))), std::ldexp(1.0, -24));
  EXPECT_EQ(oracle::round_to(DType::f16, Mp(65520.0)), INFINITY);                      // max + half ulp: overflow
  EXPECT_EQ(oracle::round_to(DType::f16, Mp(65519.99)), 65504.0);
  EXPECT_TRUE(std::signbit(oracle::round_to(DType::bf16, -Mp(std::ldexp(1.0, -140)))));
  EXPECT_EQ(oracle::round_to(DType::bf16, Mp(std::ldexp(1.0, -133))), std::ldexp(1.0, -133));
}

TEST(Metrics, UlpOfAccuracyMd) {
  oracle::PrecisionScope scope(200);
  EXPECT_EQ(oracle::ulp_exponent(DType::f32, Mp(1.0)), -23);
  EXPECT_EQ(oracle::ulp_exponent(DType::f32, Mp(0.0)), -149);                 // smallest subnormal
  EXPECT_EQ(oracle::ulp_exponent(DType::f32, Mp(std::ldexp(1.0, -140))), -149);
  EXPECT_EQ(oracle::ulp_exponent(DType::f16, Mp(1000.0)), -1);
  // y = 1 + 2^-23, z = 1: one ulp; integer distance 1.
  EXPECT_DOUBLE_EQ(oracle::frac_ulp(DType::f32, 1.0 + std::ldexp(1.0, -23), Mp(1)), 1.0);
  EXPECT_EQ(oracle::ulp_distance(DType::f32, 1.0, 1.0 + std::ldexp(1.0, -22)), 2);
  EXPECT_EQ(oracle::ulp_distance(DType::f32, -0.0, 0.0), 0);
  EXPECT_EQ(oracle::ulp_distance(DType::f32, -std::ldexp(1.0, -149), std::ldexp(1.0, -149)), 2);
}

TEST(TestVectors, GeluConstantsAreTheReferences) {
  // reference-semantics.md §1: f32 c = 0x3F4C4229 (one ulp below the
  // correctly rounded 0x3F4C422A), f16 c = 0x3A62, bf16 c = 0x3F4C,
  // k = 0x3D372713 (f32), 0x29B9 (f16).
  EXPECT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(kern::gelu_constant_c(DType::f32))), 0x3F4C4229u);
  EXPECT_EQ(double_to_bits(DType::f16, kern::gelu_constant_c(DType::f16)), 0x3A62u);
  EXPECT_EQ(double_to_bits(DType::bf16, kern::gelu_constant_c(DType::bf16)), 0x3F4Cu);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(kern::gelu_constant_k(DType::f32))), 0x3D372713u);
  EXPECT_EQ(double_to_bits(DType::f16, kern::gelu_constant_k(DType::f16)), 0x29B9u);
  EXPECT_EQ(kern::gelu_constant_c(DType::f64), 0.7978845608028654);
}

double run1(const char* op, DType t, double x, const Params& p = {}) {
  Tensor in(t, {1});
  in.set_bits(0, double_to_bits(t, x));
  return ref::execute(op, std::vector<Tensor>{in}, p).at(0).value_at(0);
}
Params n_is(std::int64_t n) { return Params().set("n", n); }

TEST(TestVectors, RoundHalfToEvenKeepsSignedZero) {
  for (DType t : kFloatDTypes) {
    EXPECT_TRUE(std::signbit(run1("round", t, -0.5)) && run1("round", t, -0.5) == 0);
    EXPECT_FALSE(std::signbit(run1("round", t, 0.5)));
    EXPECT_EQ(run1("round", t, -2.5), -2.0);
    EXPECT_EQ(run1("round", t, -1.5), -2.0);
    EXPECT_EQ(run1("round", t, 2.5), 2.0);
  }
}

TEST(TestVectors, NanRulesOfReluSignStep) {
  for (DType t : kFloatDTypes) {
    for (const char* op : {"relu", "sign", "step"}) {
      const double y = run1(op, t, NAN);
      EXPECT_EQ(y, 0.0) << op;
      EXPECT_FALSE(std::signbit(y)) << op;
    }
    EXPECT_FALSE(std::signbit(run1("sign", t, -0.0)));
  }
}

TEST(TestVectors, PowiIsSquareAndMultiply) {
  EXPECT_EQ(run1("powi", DType::f32, NAN, n_is(0)), 1.0);  // powi(x, 0) = 1 even for NaN
  // x^-n = 1/(x^n): 0 once x^n overflows although x^-n is representable.
  EXPECT_EQ(run1("powi", DType::f32, 1e10, n_is(-4)), 0.0);
  const float x = 1.1f;
  float r = 1, a = x;  // n = 5 = 0b101: r = x; a = x^2; a = x^4; r = x * x^4
  r *= a; a *= a; a *= a; r *= a;
  EXPECT_EQ(run1("powi", DType::f32, x, n_is(5)), static_cast<double>(r));
}

TEST(TestVectors, HalfParametersAreDoubleRounded) {
  // T(1e-5) in f16 is the subnormal 0x00A8 (§0.3); add_scalar adds exactly that.
  const double c16 = run1("add_scalar", DType::f16, 0.0, Params().set("c", 1e-5));
  EXPECT_EQ(double_to_bits(DType::f16, c16), 0x00A8u);
}

// The sum oracle keeps a prefix's fold for the next element that extends
// it (oracles/reduction.cpp, FoldPrefix): every prefix of a row, asked in
// order, in reverse, and between unrelated sums (each a fresh start), gives
// the evaluation a fresh start gives, bit for bit: value, magnitude, error
// variance and whether the fold overflowed (in f16 the row's 1e4 terms
// overflow the fold past 65504: the replayed path too).
TEST(SumOracle, APrefixKeptGivesWhatAFreshFoldGives) {
  for (const DType t : {DType::f16, DType::f32}) {
    std::vector<double> row;
    for (int j = 0; j < 300; ++j) row.push_back(j % 7 == 0 ? 1e4 : std::ldexp(1.0, -(j % 13)) * (j % 3 == 0 ? -1 : 1));
    const oracle::Context ctx{.dtype = t, .out_dtype = t};
    const auto eval = [&](std::size_t n) {
      oracle::Exact e;
      oracle::sum(oracle::Terms{ctx, std::vector<double>(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n))}, e);
      return e;
    };
    const auto unrelated = [&] {
      oracle::Exact e;
      oracle::sum(oracle::Terms{ctx, {3.0, -1.0}}, e);
    };
    std::vector<oracle::Exact> fresh;
    for (std::size_t n = 0; n <= row.size(); ++n) {
      unrelated();
      fresh.push_back(eval(n));
    }
    const auto same = [&](const oracle::Exact& a, const oracle::Exact& b, std::size_t n) {
      EXPECT_EQ(a.value.str(40), b.value.str(40)) << dtype_name(t) << " n = " << n;
      EXPECT_EQ(a.magnitude->str(40), b.magnitude->str(40)) << n;
      EXPECT_EQ(a.error_variance, b.error_variance) << n;
      EXPECT_EQ(a.replayed, b.replayed) << n;
    };
    for (std::size_t n = 0; n <= row.size(); ++n) same(eval(n), fresh[n], n);  // (each extends the last)
    for (std::size_t n = row.size() + 1; n-- > 0;) same(eval(n), fresh[n], n);  // (each a fresh start)
  }
}

}  // namespace
}  // namespace kc
