// The dot oracle's S (oracles/linalg.cpp) against the bound it stands for,
// computed exactly: S_exact = (gamma_n sum |a_k b_k| + n eta (1 + u)^(n - 1))
// / u with every product, the sum and gamma_n = (1 + u)^n - 1 in MPFR. The
// oracle computes S in double from the double sum of |fl(a_k b_k)|, with
// a margin derived to make it an upper bound within a relative (4n + 8)
// 2^-53 + 2^-39: both sides are checked, over every dtype of the Dot kernels,
// exponents across each dtype's range (f64 products that underflow among
// them), cancelling pairs and zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include <mpfr.h>

#include "core/dtype.h"
#include "core/params.h"
#include "oracles/exact.h"
#include "oracles/mp.h"
#include "oracles/oracle.h"
#include "oracles/rounding.h"

KC_MATH_OF(Dot, dot)

namespace kc {
namespace {

// S_exact into out (4400 bits: every term and the sum exact, gamma_n to
// far below the tolerance).
void exact_magnitude(DType t, const std::vector<double>& pairs, mpfr_t out) {
  const std::size_t n = pairs.size() / 2;
  const FloatFormat f = float_format(t);
  const long p = f.precision;
  mpfr_t sum, prod, g, under;
  mpfr_inits2(4400, sum, prod, g, under, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(sum, 1);
  for (std::size_t k = 0; k < n; ++k) {
    mpfr_set_d(prod, pairs[2 * k], MPFR_RNDN);
    mpfr_mul_d(prod, prod, pairs[2 * k + 1], MPFR_RNDN);
    mpfr_abs(prod, prod, MPFR_RNDN);
    mpfr_add(sum, sum, prod, MPFR_RNDN);
  }
  // gamma_n = (1 + u)^n - 1, u = 2^-p; under = n 2^(emin - p) (1 + u)^(n - 1)
  mpfr_set_ui_2exp(g, 1, -p, MPFR_RNDN);
  mpfr_add_ui(g, g, 1, MPFR_RNDN);
  mpfr_pow_ui(under, g, n > 0 ? n - 1 : 0, MPFR_RNDN);
  mpfr_mul_ui(under, under, n, MPFR_RNDN);
  mpfr_mul_2si(under, under, f.emin - p, MPFR_RNDN);
  mpfr_pow_ui(g, g, n, MPFR_RNDN);
  mpfr_sub_ui(g, g, 1, MPFR_RNDN);
  mpfr_mul(out, sum, g, MPFR_RNDN);
  mpfr_add(out, out, under, MPFR_RNDN);
  mpfr_mul_2si(out, out, p, MPFR_RNDN);  // over u
  mpfr_clears(sum, prod, g, under, static_cast<mpfr_ptr>(nullptr));
}

TEST(DotOracle, MagnitudeIsTheBoundFromAboveWithinItsMargin) {
  std::mt19937_64 rng(5);
  int checked = 0;
  for (const DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    const FloatFormat f = float_format(t);
    for (int trial = 0; trial < 300; ++trial) {
      // Exponents anywhere in the dtype's range (f64: products down to
      // 2^-2148, far below the subnormals) or within a few binades.
      const int lo = f.emin - f.precision + 1, hi = f.emax;
      const bool wide = trial % 2 == 0;
      const int centre = lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo));
      const std::size_t n = 1 + rng() % (trial % 10 == 0 ? 600 : 70);
      std::vector<double> pairs;
      for (std::size_t k = 0; k < n; ++k)
        for (int side = 0; side < 2; ++side) {
          const int e = wide ? lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo)) : centre + static_cast<int>(rng() % 5);
          double v = std::ldexp(1.0 + static_cast<double>(rng() >> 11) * 0x1p-53, std::min(e, hi)) * (rng() & 1 ? -1 : 1);
          if (rng() % 17 == 0) v = 0.0;
          pairs.push_back(round_to_format(v, t));
        }
      if (n >= 2 && trial % 3 == 0) pairs[2] = -pairs[0], pairs[3] = pairs[1];  // a cancelling pair
      // (sums past double's range go to the exact path: skipped here, where the
      // double bound is under test)
      double abs_d = 0;
      for (std::size_t k = 0; k < n; ++k) abs_d += std::fabs(pairs[2 * k] * pairs[2 * k + 1]);
      if (!(abs_d * static_cast<double>(n) < 0x1p1000)) continue;
      oracle::PrecisionScope scope(oracle::working_bits(t));
      const Params params;
      oracle::Exact ex;
      ex.variance_wanted = false;
      oracle::dot(oracle::Dot{{.dtype = t, .out_dtype = t, .params = &params}, {pairs.begin(), pairs.end()}}, ex);
      ASSERT_TRUE(ex.magnitude.has_value());
      mpfr_t want, got, limit;
      mpfr_inits2(4400, want, got, limit, static_cast<mpfr_ptr>(nullptr));
      exact_magnitude(t, pairs, want);
      mpfr_set(got, oracle::raw(*ex.magnitude), MPFR_RNDN);
      // limit = want (1 + (4n + 8) 2^-53 + 2^-39)
      mpfr_set_d(limit, static_cast<double>(4 * n + 8) * 0x1p-53 + 0x1p-39, MPFR_RNDN);
      mpfr_add_ui(limit, limit, 1, MPFR_RNDN);
      mpfr_mul(limit, limit, want, MPFR_RNDN);
      EXPECT_GE(mpfr_cmp(got, want), 0) << dtype_name(t) << ", " << n << " pairs: S " << mpfr_get_d(got, MPFR_RNDN)
                                        << " below the bound over u " << mpfr_get_d(want, MPFR_RNDN);
      EXPECT_LE(mpfr_cmp(got, limit), 0) << dtype_name(t) << ", " << n << " pairs: S " << mpfr_get_d(got, MPFR_RNDN)
                                         << " past its margin over " << mpfr_get_d(want, MPFR_RNDN);
      mpfr_clears(want, got, limit, static_cast<mpfr_ptr>(nullptr));
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);  // (a loop that checked nothing fails)
}

}  // namespace
}  // namespace kc
