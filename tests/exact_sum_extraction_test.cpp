// The exact sums' extraction path (oracles/exact_sum_extract.cpp): the
// low parts of products within their bounds, extractable f64 products and
// level sums at their bound equal to MPFR's sums, the blocks the bulk
// calls take by extraction and those they leave to the scalar paths; and
// add as add_product by one.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <mpfr.h>

#include "core/dtype.h"
#include "oracles/exact_sum.h"
#include "tests/exact_sum_test_support.h"

namespace {

using namespace kc::exact_sum_testing;  // (the shared comparison code: exact_sum_test_support.h)

// The low part e = a b - fl(a b) of a product with a normal p = fl(a b)
// (exact_sum.h): |e| <= 2^(binade(p) - kLowPartTop), e a multiple of
// 2^(binade(p) - kLowPartQuantum), each attained (a tie: (1 + 2^-52) 1.5;
// products in the top half of their binades' range: 1.5 + 2^-52 squared),
// over random normal pairs, subnormal factors among them.
TEST(ExactSum, LowPartsWithinTheirBounds) {
  std::mt19937_64 rng(11);
  bool top_attained = false, quantum_attained = false;
  int checked = 0;
  const auto check = [&](double a, double b) {
    const double p = a * b, e = std::fma(a, b, -p);
    if (!(std::fabs(p) >= 0x1p-968) || !std::isfinite(p) || e == 0) return;
    const int bp = std::ilogb(p);
    const auto bits = std::bit_cast<std::uint64_t>(std::fabs(e));
    const int biased = static_cast<int>(bits >> 52);
    const std::uint64_t m = (bits & ((std::uint64_t{1} << 52) - 1)) | (biased ? std::uint64_t{1} << 52 : 0);
    const int lowest = (biased ? biased - 1075 : -1074) + std::countr_zero(m);  // e's lowest set bit
    EXPECT_LE(std::ilogb(e), bp - ExactSum::kLowPartTop) << a << " x " << b;
    EXPECT_GE(lowest, bp - ExactSum::kLowPartQuantum) << a << " x " << b;
    top_attained |= std::ilogb(e) == bp - ExactSum::kLowPartTop;
    quantum_attained |= lowest == bp - ExactSum::kLowPartQuantum;
    ++checked;
  };
  check(1 + 0x1p-52, 1.5);
  check(1.5 + 0x1p-52, 1.5 + 0x1p-52);
  for (int trial = 0; trial < 20000; ++trial) {
    // (one in ten: a subnormal a and a b large enough for p >= 2^-968)
    const bool subnormal = trial % 10 == 0;
    const auto draw = [&](int lo, int count) {
      const double m = 1 + static_cast<double>(rng() >> 12) * 0x1p-52;  // [1, 2): 53 bits
      return std::ldexp(m, lo + static_cast<int>(rng() % static_cast<unsigned>(count))) * (rng() & 1 ? -1 : 1);
    };
    check(subnormal ? draw(-1074, 52) : draw(-500, 1000), subnormal ? draw(900, 120) : draw(-500, 1000));
  }
  EXPECT_TRUE(top_attained);
  EXPECT_TRUE(quantum_attained);
  EXPECT_GT(checked, 15000);
}

// f64 terms whose products the extraction path takes (finite, above
// 2^-968): windows of exponents anywhere from the bottom (low parts e
// among the subnormals) to the top (sigma up to 2^1023), spans from 0 to
// 900 binades, cancelling pairs, lengths across the blocks of 256; every
// sum as MPFR's, and most trials extracted (the path under test).
TEST(ExactSum, ExtractableF64Products) {
  std::mt19937_64 rng(2026);
  int extracted = 0;
  constexpr int kTrials = 400;
  for (int trial = 0; trial < kTrials; ++trial) {
    const int span = trial % 4 == 0 ? 0 : static_cast<int>(rng() % 450);
    // a, b below 2^(bottom + span + 1), products up to 2^1016 (sigma 2^1023 for 64 terms)
    const int bottom = -484 + static_cast<int>(rng() % static_cast<std::uint64_t>(991 - span));
    const std::size_t n = trial % 10 == 0 ? 250 + rng() % 300 : 1 + rng() % 100;
    std::vector<Term> terms;
    auto draw = [&] {
      const double m = static_cast<double>(rng() >> 11) * 0x1p-52;  // [0, 2): 53 random bits
      return std::ldexp(m, bottom + static_cast<int>(rng() % static_cast<std::uint64_t>(span + 1))) * (rng() & 1 ? -1 : 1);
    };
    while (terms.size() < n) {
      const Term t{draw(), draw()};
      terms.push_back(t);
      if (rng() % 4 == 0) terms.push_back({-t.a, t.b});  // cancels exactly
    }
    std::shuffle(terms.begin(), terms.end(), rng);
    expect_same(terms, "extractable f64 products, span " + std::to_string(span) + " from 2^" + std::to_string(bottom));
    std::vector<double> pairs;
    for (const Term& t : terms) pairs.insert(pairs.end(), {t.a, t.b});
    ExactSum s;
    s.add_products(pairs.data(), terms.size());
    extracted += s.terms_extracted() == static_cast<std::int64_t>(terms.size());
  }
  if (ExactSum::extraction_available()) {
    EXPECT_GT(extracted, kTrials * 8 / 10);
  }
}

// The extraction's level sums at their bound (oracles/exact_sum_extract.cpp,
// (3)): a block of n = 2^M terms, 1.0 (sigma = 2^s, s = 1 + M) and n - 1
// terms of 45 random bits or more just below half the first level's
// spacing, 2^(s - 53): level 1 leaves them whole, and level 2 (53 - M bits
// lower) sums n - 1 of them to nearly 2^s', the most its sums hold
// exactly; fewer bits a level, and that sum rounds. Or just above half
// that with a sigma half as large (M taken one too small): level 1 leaves
// residuals of nearly 2^(s - 54) each, one sign, past that level's bound.
TEST(ExactSum, LevelSumsAtTheirBound) {
  std::mt19937_64 rng(8);
  // (expect_same's bulk calls take each half of the terms in a call of its
  // own: a block as above in each half, and one block over both halves,
  // whose halves are then such blocks of M - 1 with other residuals)
  for (int m = 1; m <= 8; ++m)
    for (const int blocks : {1, 2})
    for (const bool high : {true, false})
      for (const bool mixed : {false, true}) {
        const std::size_t n = std::size_t{1} << m;
        std::vector<Term> terms;
        const int s = 1 + m;
        while (terms.size() < blocks * n) {
          if (terms.size() % n == 0) terms.push_back({1.0, 1.0});
          const double u = static_cast<double>(rng() >> 11) * 0x1p-53;  // [0, 1), 53 bits
          // [2^(s - 53) (1 - 2^-9), 2^(s - 53)), or [2^(s - 54), 2^(s - 54) (1 + 2^-8))
          const double t = high ? std::ldexp(2.0 - u * 0x1p-8, s - 54) : std::ldexp(1.0 + u * 0x1p-8, s - 54);
          terms.push_back({mixed && terms.size() % 2 == 0 ? -t : t, 1.0});
        }
        terms.resize(blocks * n);
        expect_same(terms, "level sums at their bound, M = " + std::to_string(m) + ", " + std::to_string(blocks) +
                               " block(s)" + (high ? ", high" : ", low") +
                               (mixed ? ", mixed signs" : ""));
      }
}

// The extraction path takes the blocks it can (the tests above hold its
// sums equal to MPFR's; this, that it is the path they went through) and
// leaves to the scalar paths the blocks it cannot: a non-finite term, a
// product that underflows, a term too large for its sigma.
TEST(ExactSum, TheBulkCallsTakeTheBlocksTheyCanByExtraction) {
  if (!ExactSum::extraction_available()) GTEST_SKIP() << "this CPU has no AVX2 and FMA: the scalar paths only";
  for (const Path path : paths_here()) {
    if (path == Path::scalar) continue;
    ExactSum::use_path(path);
    SCOPED_TRACE(name(path));
    std::mt19937_64 rng(5);
    std::vector<double> products, pairs, wide_pairs;
    for (int i = 0; i < 300; ++i) {
      const double a = static_cast<float>(std::ldexp(1.0 + static_cast<double>(rng() % 1000) / 1000, static_cast<int>(rng() % 61) - 30));
      const double b = static_cast<float>(-std::ldexp(1.0 + static_cast<double>(rng() % 1000) / 1000, static_cast<int>(rng() % 61) - 30));
      products.push_back(a * b);
      pairs.insert(pairs.end(), {a, b});
      // (f64 factors of 53 bits: their products have low parts)
      wide_pairs.insert(wide_pairs.end(), {a * (1 + 0x1p-52), b * (1 - 0x1p-51)});
    }
    auto extracted = [](auto add) {
      ExactSum acc, abs;
      add(acc, abs);
      EXPECT_EQ(acc.terms_extracted(), abs.terms_extracted());
      return acc.terms_extracted();
    };
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_all(products.data(), 64, &a); }), 64);
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_products(pairs.data(), 300, &a); }), 300);
    // Products with low parts, without the magnitudes' sums: both streams in
    // one pass (levels_of_pairs), a block of 64 and blocks of 256 and 44.
    for (const std::size_t n : {64, 300}) {
      ExactSum acc;
      acc.add_products(wide_pairs.data(), n);
      EXPECT_EQ(acc.terms_extracted(), static_cast<std::int64_t>(n));
    }
    // A non-finite term in the second block of 256: the first is extracted.
    products[280] = INFINITY;
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_all(products.data(), 300, &a); }), 256);
    products[280] = 0x1p1020;  // (sigma would be 2^(1020 + 1 + 6) > 2^1023)
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_all(products.data() + 256, 44, &a); }), 0);
    // A product of doubles that underflows (to 0, or below 2^-968): p + e is not it.
    for (const double tiny : {0x1p-1000, 0x1p-600}) {
      pairs[2] = tiny, pairs[3] = 0x1p-500;
      EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_products(pairs.data(), 64, &a); }), 0) << tiny;
    }
    // A zero factor is fine: p = e = 0.
    pairs[2] = 0.0;
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_products(pairs.data(), 64, &a); }), 64);
    ExactSum::use_path(Path::scalar);
    EXPECT_EQ(extracted([&](ExactSum& s, ExactSum& a) { s.add_products(pairs.data(), 64, &a); }), 0);
  }
  ExactSum::use_default_path();
}

TEST(ExactSum, AddEqualsAddProductByOne) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    ExactSum a, b;
    for (int i = 0; i < 100; ++i) {
      const double x = random_finite(rng, trial % 2 == 0);
      a.add(x);
      b.add_product(x, 1.0);
    }
    mpfr_t x, y;
    mpfr_init2(x, 4400);
    mpfr_init2(y, 4400);
    a.round_into(x, MPFR_RNDN);
    b.round_into(y, MPFR_RNDN);
    EXPECT_TRUE(mpfr_equal_p(x, y));
    mpfr_clear(x);
    mpfr_clear(y);
  }
}

}  // namespace
