// oracles/det_math.h against MPFR: the x87 polynomials within the relative
// bounds their derivations give, the MPFR functions correctly rounded,
// gamma_up the least value at or above (1 + u)^m - 1; and the softcap
// stage's tanh bound (oracles/row_support.cpp) rigorous and tight over
// arguments whose error is far below, near and above their last bits.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include <mpfr.h>

#include "oracles/det_math.h"
#include "oracles/row_support.h"

namespace kc {
namespace {

namespace det = oracle::det;

// MPFR numbers at 256 bits for the reference values.
struct Ref {
  mpfr_t x, y, z;
  Ref() { mpfr_inits2(256, x, y, z, static_cast<mpfr_ptr>(nullptr)); }
  ~Ref() { mpfr_clears(x, y, z, static_cast<mpfr_ptr>(nullptr)); }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  // |got - f(a)| / |f(a)| (NaN where f(a) is 0).
  double relative(int (*f)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t), long double a, long double got) {
    mpfr_set_ld(x, a, MPFR_RNDN);
    f(y, x, MPFR_RNDN);
    if (mpfr_zero_p(y)) return NAN;
    mpfr_set_ld(z, got, MPFR_RNDN);
    mpfr_sub(z, z, y, MPFR_RNDN);
    mpfr_div(z, z, y, MPFR_RNDN);
    return std::fabs(mpfr_get_d(z, MPFR_RNDN));
  }
};

// Arguments over every scale that matters: the polynomials' interval,
// their reduction's whole range, and tiny ones down to 2^-300.
long double argument(std::mt19937_64& g, int kind) {
  std::uniform_real_distribution<double> u(-1, 1);
  switch (kind % 4) {
    case 0: return static_cast<long double>(u(g)) * 0.35L;
    case 1: return static_cast<long double>(u(g)) * 11500.0L;
    case 2: return std::ldexp(static_cast<long double>(u(g)), -static_cast<int>(g() % 300));
    default: return static_cast<long double>(u(g)) * 40.0L;
  }
}

TEST(DetMath, X87PolynomialsWithinTheirBounds) {
  std::mt19937_64 g(11);
  Ref ref;
  double worst_exp = 0, worst_expm1 = 0, worst_tanh = 0;
  long checked = 0;
  for (int i = 0; i < 120000; ++i) {
    const long double a = argument(g, i);
    const long double e = det::exp(a);
    // (normal results only: ldexp rounds a subnormal once more, as IEEE says)
    if (std::fabs(e) >= std::numeric_limits<long double>::min() && std::isfinite(e)) {
      worst_exp = std::max(worst_exp, ref.relative(mpfr_exp, a, e));
      ++checked;
    }
    const long double m = det::expm1(a);
    if (std::isfinite(m)) worst_expm1 = std::max(worst_expm1, ref.relative(mpfr_expm1, a, m));
    const double t = ref.relative(mpfr_tanh, a, det::tanh(a));
    if (!std::isnan(t)) worst_tanh = std::max(worst_tanh, t);
  }
  EXPECT_GT(checked, 90000);
  EXPECT_LE(worst_exp, 0x1p-56) << std::log2(worst_exp);
  EXPECT_LE(worst_expm1, 0x1p-54) << std::log2(worst_expm1);
  EXPECT_LE(worst_tanh, 0x1.1p-54) << std::log2(worst_tanh);
  // (far inside in practice: the derivations' roundings never all go one way)
  std::printf("worst relative errors: exp 2^%.1f, expm1 2^%.1f, tanh 2^%.1f\n", std::log2(worst_exp),
              std::log2(worst_expm1), std::log2(worst_tanh));
}

TEST(DetMath, X87PolynomialsAtTheirEdges) {
  const long double inf = std::numeric_limits<long double>::infinity();
  EXPECT_EQ(det::exp(inf), inf);
  EXPECT_EQ(det::exp(-inf), 0);
  EXPECT_EQ(det::exp(11357.5L), inf);
  EXPECT_EQ(det::exp(-12000.0L), 0);
  EXPECT_EQ(det::exp(0.0L), 1);
  EXPECT_TRUE(std::isnan(det::exp(std::numeric_limits<long double>::quiet_NaN())));
  EXPECT_EQ(det::expm1(-inf), -1);
  EXPECT_EQ(det::expm1(0.0L), 0);
  EXPECT_EQ(det::tanh(100.0L), 1);
  EXPECT_EQ(det::tanh(-100.0L), -1);
  EXPECT_TRUE(std::signbit(det::tanh(-0.0L)));
  EXPECT_EQ(det::tanh(0x1p-8000L), 0x1p-8000L);  // (tanh x = x there, to the last bit)
}

TEST(DetMath, MpfrFunctionsAreCorrectlyRounded) {
  std::mt19937_64 g(12);
  std::uniform_real_distribution<double> u(-30, 30);
  mpfr_t x, y;
  mpfr_inits2(53, x, y, static_cast<mpfr_ptr>(nullptr));
  for (int i = 0; i < 2000; ++i) {
    const double a = u(g);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_exp(y, x, MPFR_RNDN);
    EXPECT_EQ(det::exp(a), mpfr_get_d(y, MPFR_RNDN));
    mpfr_sin(y, x, MPFR_RNDN);
    EXPECT_EQ(det::sin(a), mpfr_get_d(y, MPFR_RNDN));
    mpfr_set_d(x, std::fabs(a), MPFR_RNDN);
    mpfr_log(y, x, MPFR_RNDN);
    EXPECT_EQ(det::log(std::fabs(a)), mpfr_get_d(y, MPFR_RNDN));
  }
  mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr));
}

// gamma_up(u, m) is the least double at or above (1 + u)^m - 1: at or
// above it, and its predecessor below it (so no looser than it must be).
TEST(DetMath, GammaUpIsTheLeastDoubleAbove) {
  mpfr_t e;
  mpfr_init2(e, 4000);
  for (const int p : {8, 11, 24, 53})
    for (const long m : {1L, 2L, 3L, 7L, 64L, 1000L, 65535L, 1L << 20}) {
      const double u = std::ldexp(1.0, -p);
      mpfr_set_d(e, u, MPFR_RNDN);
      mpfr_add_ui(e, e, 1, MPFR_RNDN);  // (exact at 4000 bits)
      mpfr_pow_si(e, e, m, MPFR_RNDN);  // (m <= 2^20 squarings of <= 54 bits: far inside 4000)
      mpfr_sub_ui(e, e, 1, MPFR_RNDN);
      const double got = det::gamma_up(u, m);
      if (std::isinf(got)) continue;  // (bf16's (1 + 2^-8)^(2^20) overflows)
      EXPECT_GE(mpfr_cmp_d(e, got), got == 0 ? 0 : -1) << p << " " << m;
      EXPECT_LE(mpfr_cmp_d(e, got), 0) << "at or above, p = " << p << ", m = " << m;
      EXPECT_GT(mpfr_cmp_d(e, std::nextafter(got, 0.0)), 0) << "the least such double, p = " << p << ", m = " << m;
    }
  mpfr_clear(e);
}

// Stages::tanh: its error bound, less tanh's own terms, is the argument's
// reach max(tanh(a + e) - tanh(a), tanh(a) - tanh(a - e)) widened by
// 2^-50 relative and 2^-60 absolute: at or above that reach in MPFR
// (rigorous) and within those widenings of it (tight), from an e far below
// a's last bits (where a difference of two tanh values in B lost it) to an
// e that spans the whole range, and |a| - e near 0 where a is huge.
TEST(DetMath, SoftcapStageBoundIsTheArgumentsReach) {
  using oracle::rows::B;
  oracle::rows::Stages st(DType::f64);
  const oracle::rows::Units& un = st.units();
  std::mt19937_64 g(13);
  std::uniform_real_distribution<double> u(-1, 1);
  mpfr_t a, lo, hi, reach;
  mpfr_inits2(400, a, lo, hi, reach, static_cast<mpfr_ptr>(nullptr));
  for (int i = 0; i < 30000; ++i) {
    // (scores from 1 to 2^100: the far ends saturate tanh, in B's range and past it)
    const B v = static_cast<B>(u(g)) * (i % 4 == 0 ? 1 : i % 4 == 1 ? 30 : i % 4 == 2 ? 3 : std::ldexp(1.0L, static_cast<int>(g() % 100)));
    B e = std::fabs(v) * std::ldexp(1.0L, -static_cast<int>(g() % 90)) + (i % 7 == 0 ? 1 : 0);
    if (i % 11 == 0) e = std::fabs(std::fabs(v) + static_cast<B>(u(g)) * 30);  // |a| - ea within 30 of 0, a of any size
    const oracle::rows::Stage s = st.tanh({v, e, 0});
    mpfr_set_ld(a, v, MPFR_RNDN);
    mpfr_tanh(reach, a, MPFR_RNDN);
    mpfr_set_ld(lo, e, MPFR_RNDN);  // (a -+ e exact at 400 bits)
    mpfr_sub(lo, a, lo, MPFR_RNDN);
    mpfr_tanh(lo, lo, MPFR_RNDN);
    mpfr_set_ld(hi, e, MPFR_RNDN);
    mpfr_add(hi, a, hi, MPFR_RNDN);
    mpfr_tanh(hi, hi, MPFR_RNDN);
    mpfr_sub(hi, hi, reach, MPFR_RNDN);  // tanh(a + e) - tanh(a)
    mpfr_sub(lo, reach, lo, MPFR_RNDN);  // tanh(a) - tanh(a - e)
    mpfr_max(reach, hi, lo, MPFR_RNDN);
    const long double r = mpfr_get_ld(reach, MPFR_RNDU);
    // The bound less tanh's own terms: s.e = moved + eps_tanh (|s.v| + moved) + tanh_abs.
    const long double moved = (s.e - un.tanh_abs - un.eps_tanh * std::fabs(s.v)) / (1 + un.eps_tanh);
    EXPECT_GE(moved * (1 + 0x1p-45L), r) << "v = " << static_cast<double>(v) << ", e = " << static_cast<double>(e);
    EXPECT_LE(moved, std::min(2.0L, r * (1 + 0x1p-48L) + 0x1p-59L)) << "v = " << static_cast<double>(v)
                                                                    << ", e = " << static_cast<double>(e);
  }
  mpfr_clears(a, lo, hi, reach, static_cast<mpfr_ptr>(nullptr));
}

// Stages::exp's error bound e^a ((1 + eps) e^(ea) - 1) + E ulp_min, at a =
// 0 and arguments' errors ea from 2^-80 to 2^-40: within 2^-60 relative
// of the exact value (MPFR), on either side. Evaluated as (1 + eps)(1 +
// expm1(ea)) - 1 in B, as it was, it fails below 2^-64 (1 + ea rounds to
// 1, ea's share is lost: 2^-14 of eps) and moves with the last bit of exp
// above it, as x87's did between CPUs.
TEST(DetMath, StageExpKeepsASmallArgumentError) {
  using oracle::rows::B;
  oracle::rows::Stages st(DType::f64);
  const oracle::rows::Units& un = st.units();
  mpfr_t want, t;
  mpfr_inits2(400, want, t, static_cast<mpfr_ptr>(nullptr));
  for (int k = 40; k <= 80; ++k) {
    const B ea = std::ldexp(1.0L, -k) * 1.25L;
    const oracle::rows::Stage s = st.exp({0, ea, 0});
    // e^0 ((1 + eps) e^ea - 1) + libm_abs = (1 + eps)(e^ea - 1) + eps + libm_abs, at 400 bits
    mpfr_set_ld(want, ea, MPFR_RNDN);
    mpfr_expm1(want, want, MPFR_RNDN);
    mpfr_set_ld(t, un.eps, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_mul(want, want, t, MPFR_RNDN);
    mpfr_set_ld(t, un.eps, MPFR_RNDN);
    mpfr_add(want, want, t, MPFR_RNDN);
    mpfr_set_ld(t, un.libm_abs, MPFR_RNDN);
    mpfr_add(want, want, t, MPFR_RNDN);
    // (B rounds to nearest, a relative 2^-64 a step: the bounds' factor
    // 1 + 2^-30 covers that, not a lost share of ea)
    EXPECT_LE(mpfr_cmp_ld(want, s.e * (1 + 0x1p-60L)), 0) << "below the exact bound at ea = 2^-" << k;
    mpfr_mul_2si(t, want, -60, MPFR_RNDN);
    mpfr_add(t, t, want, MPFR_RNDU);  // want (1 + 2^-60)
    EXPECT_GE(mpfr_cmp_ld(t, s.e), 0) << "looser than it need be at ea = 2^-" << k;
  }
  mpfr_clears(want, t, static_cast<mpfr_ptr>(nullptr));
}

}  // namespace
}  // namespace kc
