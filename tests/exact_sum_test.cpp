// The exact-accumulation oracle (oracles/exact_sum.h) against the plain
// MPFR path it replaces: each product computed exactly by mpfr_mul (106
// bits hold any product of two doubles), the products summed by mpfr_sum
// and rounded once. Both must give the same number, sign of zero and
// ternary value at every precision, over f32 and f64 terms with
// cancellation, subnormals and both ends of the exponent range.
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

TEST(ExactSum, RandomTermsOfEveryBinade) {
  std::mt19937_64 rng(20261202);
  for (const bool f32 : {true, false})
    for (int trial = 0; trial < 1500; ++trial) {
      // (one in 50 long enough that add_all's halves take its bins: oracles/exact_sum.cpp)
      std::vector<Term> terms(trial % 50 == 0 ? 600 + rng() % 600 : 1 + rng() % 200);
      for (auto& t : terms) t = {random_finite(rng, f32), random_finite(rng, f32)};
      expect_same(terms, f32 ? "f32 terms" : "f64 terms");
    }
}

// Terms within a few binades of each other (most dot products: the bins
// they share), spans of up to 61, subnormals at the bottom.
TEST(ExactSum, NarrowSpans) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 300; ++trial) {
    const int span = trial % 3 == 0 ? 61 : trial % 3 == 1 ? 60 : static_cast<int>(rng() % 60);
    const int bottom = trial % 5 == 0 ? -1074 : static_cast<int>(rng() % 2000) - 1000;
    std::vector<Term> terms(1 + rng() % 150);
    for (auto& t : terms) {
      const int e = bottom + static_cast<int>(rng() % static_cast<std::uint64_t>(span + 1));
      const double m = static_cast<double>(rng() >> 11);  // 53 random bits
      t = {std::ldexp(m, std::max(e - 52, -1074)) * (rng() & 1 ? -1 : 1), 1.0};
    }
    terms.front() = {std::ldexp(1.0, std::max(bottom, -1074)), 1.0};  // the span's ends present
    terms.back() = {std::ldexp(1.0, std::max(bottom, -1074) + span), -1.0};
    if (trial % 7 == 0) terms.push_back({-0.0, 1.0});
    expect_same(terms, "a narrow span");
  }
}

// The window of level sums (oracles/exact_sum.h) across the bulk calls'
// blocks: a later block below the first (into the chunks), above it
// (taken), beyond its span (into the chunks), and enough blocks within it
// to pass its count of additions (into the chunks).
TEST(ExactSum, TheWindowTakesOnlyWhatFitsIt) {
  std::mt19937_64 rng(41);
  // n terms with 53 random bits in binades [e, e + span], mixed signs.
  const auto block = [&rng](std::size_t n, int e, int span) {
    std::vector<Term> out(n);
    for (auto& t : out)
      t = {std::ldexp(static_cast<double>(rng() >> 11), e - 52 + static_cast<int>(rng() % static_cast<unsigned>(span + 1))) *
               (rng() & 1 ? -1 : 1),
           1.0};
    return out;
  };
  const auto two = [](std::vector<Term> a, const std::vector<Term>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  // (the halves expect_same adds in two calls: the first block, then the second)
  expect_same(two(block(100, 40, 4), block(100, -20, 4)), "a block 60 binades below the first");
  expect_same(two(block(100, -20, 4), block(100, 40, 4)), "a block 60 binades above the first");
  expect_same(two(block(100, 300, 4), block(100, -300, 4)), "blocks 600 binades apart");
  expect_same(two(block(100, -300, 4), block(100, 300, 4)), "blocks 600 binades apart, the low first");
  // One term 2^-252 in a call of its own (the window's base at its ulp,
  // 2^-304), then 200 blocks of 256 over binades -200 to 0, six levels
  // each (their sums' ulps at least 2^-304, their tops near 2^9): past
  // 2^10 additions.
  for (const Path path : paths_here()) {
    ExactSum::use_path(path);
    std::vector<Term> terms = two({{0x1p-252, 1.0}}, block(200 * 256, -200, 200));
    std::vector<double> products;
    for (const Term& t : terms) products.push_back(t.a * t.b);
    ExactSum acc;
    acc.add_all(products.data(), 1);
    acc.add_all(products.data() + 1, products.size() - 1);
    mpfr_t want, got;
    mpfr_inits2(4400, want, got, static_cast<mpfr_ptr>(nullptr));
    mpfr_dot(terms, want);
    EXPECT_EQ(acc.round_into(got, MPFR_RNDN), 0);
    EXPECT_TRUE(mpfr_equal_p(want, got)) << "past the window's count of additions" << name(path);
    mpfr_clears(want, got, static_cast<mpfr_ptr>(nullptr));
  }
  ExactSum::use_default_path();
}

TEST(ExactSum, CancellationLeavesTheSmallTerms) {
  std::mt19937_64 rng(7);
  for (const bool f32 : {true, false})
    for (int trial = 0; trial < 800; ++trial) {
      // Large products and their negations around a few small ones, shuffled:
      // the exact sum is the small ones, which any float accumulator loses.
      std::vector<Term> terms;
      for (int i = 0; i < 20; ++i) {
        const Term big{random_finite(rng, f32), random_finite(rng, f32)};
        terms.push_back(big);
        terms.push_back({-big.a, big.b});
      }
      const double scale = f32 ? 0x1p-140 : 0x1p-1070;
      for (int i = 0; i < 3; ++i) terms.push_back({scale * static_cast<double>(1 + rng() % 7), 1.0 + (rng() % 3)});
      std::shuffle(terms.begin(), terms.end(), rng);
      expect_same(terms, "cancellation");
      // Cancellation to exactly zero, the small terms removed.
      terms.erase(std::remove_if(terms.begin(), terms.end(), [](const Term& t) { return std::fabs(t.b) < 4 && std::fabs(t.a) < 1e-30; }),
                  terms.end());
      expect_same(terms, "exact cancellation");
    }
}

TEST(ExactSum, ExtremesOfTheExponentRange) {
  const double tiny = std::numeric_limits<double>::denorm_min(), big = DBL_MAX;
  // The smallest and largest products, and carries through every word.
  expect_same({{tiny, tiny}}, "2^-2148");
  expect_same({{big, big}}, "DBL_MAX^2");
  expect_same({{big, big}, {tiny, tiny}}, "DBL_MAX^2 + 2^-2148");
  expect_same({{big, big}, {-big, big}, {tiny, tiny}}, "DBL_MAX^2 cancelled, 2^-2148 left");
  expect_same({{big, -big}, {tiny, tiny}}, "-DBL_MAX^2 + 2^-2148");
  std::vector<Term> carries(3000, {big, big});
  expect_same(carries, "3000 x DBL_MAX^2 (carries into the top words)");
  std::vector<Term> ones(5000, {1.0, 1.0 - 0x1p-53});
  ones.push_back({-1.0, 1.0});
  expect_same(ones, "long run of equal terms");
  std::vector<Term> subnormal(500, {tiny, 1.0});
  subnormal.push_back({-tiny, 3.0});
  expect_same(subnormal, "subnormal terms");
  // 53-bit runs of ones side by side, (2^53 - 1) 2^(53 k) units of 2^-2148
  // for k = 0..39: 2^2120 - 1 units, 33 words of ones; one more unit
  // carries through all of them (and out of the three words a term touches).
  const double ones53 = std::ldexp(0x1p53 - 1, -1074);  // (2^53 - 1) 2^-1074, a normal double
  std::vector<Term> run;
  for (int k = 0; k < 40; ++k) run.push_back({ones53, std::ldexp(1.0, -1074 + 53 * k)});
  expect_same(run, "a run of ones");
  run.push_back({tiny, tiny});
  expect_same(run, "a run of ones plus one unit (a carry through 33 words)");
  run.push_back({-tiny, 3 * tiny});
  expect_same(run, "the same with a borrow");
  expect_same({{FLT_MIN, FLT_MIN}, {0x1p-149, 0x1p-149}}, "f32 extremes");
  expect_same({{FLT_MAX, FLT_MAX}, {-FLT_MAX, FLT_MAX}, {0x1p-149, 1.0}}, "f32 extremes cancelled");
}

TEST(ExactSum, ZerosAndSpecialValues) {
  const double inf = INFINITY;
  expect_same({}, "empty sum");
  expect_same({{-0.0, 1.0}, {0.0, -1.0}}, "all -0");
  expect_same({{-0.0, 1.0}, {0.0, 1.0}}, "-0 and +0");
  expect_same({{1.0, 1.0}, {-1.0, 1.0}}, "x - x");
  expect_same({{inf, 1.0}, {1.0, 1.0}}, "+inf");
  expect_same({{inf, -1.0}, {1.0, 1.0}}, "-inf");
  expect_same({{inf, 1.0}, {-inf, 1.0}}, "inf - inf");
  expect_same({{inf, 0.0}}, "inf x 0");
  expect_same({{NAN, 1.0}, {2.0, 3.0}}, "NaN term");
  // A non-finite term in the middle of a block (where the extraction
  // reads four at a time) and at its end.
  for (const double special : {double{NAN}, -double{NAN}, inf, -inf})
    for (const std::size_t at : {0u, 1u, 5u, 17u, 19u}) {
      std::vector<Term> terms(20, {1.5, 2.0});
      terms[at] = {special, 1.0};
      expect_same(terms, "a non-finite term at " + std::to_string(at) + " of 20");
    }
  // add_all's bins: infinities share one per sign, NaN of either sign too
  // (found by a fraction field), -0 is the negative subnormal bin's.
  expect_same({{inf, 1.0}, {inf, 2.0}, {inf, 3.0}, {1.0, 1.0}}, "three +inf");
  expect_same({{-inf, 1.0}, {-inf, 2.0}, {0x1p-1074, 1.0}}, "two -inf");
  expect_same({{inf, 1.0}, {-NAN, 1.0}, {inf, 1.0}}, "a NaN with the sign bit among +inf");
  expect_same({{-0.0, 1.0}, {-0x1p-1074, 1.0}, {0x1p-1074, 1.0}}, "-0 beside subnormals that cancel");
  expect_same({{-0.0, 1.0}, {-0.0, 1.0}, {-0.0, 1.0}}, "three -0");
  // Reuse after clear() starts from nothing.
  ExactSum acc;
  acc.add_product(DBL_MAX, DBL_MAX);
  acc.add(inf);
  acc.clear();
  acc.add(0.5);
  acc.add(-0.25);
  mpfr_t out;
  mpfr_init2(out, 53);
  EXPECT_EQ(acc.round_into(out, MPFR_RNDN), 0);
  EXPECT_EQ(mpfr_get_d(out, MPFR_RNDN), 0.25);
  EXPECT_EQ(acc.terms(), 2);
  mpfr_clear(out);
}

// One product with a low part among products without (exact in double),
// at every position of a block and of its tail: the blocks' test for "some
// low part" reads every lane, and the one low part is summed.
TEST(ExactSum, ALowPartInAnyLane) {
  for (const std::size_t n : {std::size_t{64}, std::size_t{70}})
    for (std::size_t at = 0; at < n; ++at) {
      std::vector<Term> terms;
      for (std::size_t i = 0; i < n; ++i) terms.push_back({std::ldexp(1.5, static_cast<int>(i % 9)), -0.75});
      terms[at] = {1 + 0x1p-52, 1 + 0x1p-51};  // (a b = 1 + 3 2^-52 + 2^-103: e = 2^-103)
      expect_same(terms, "a low part at " + std::to_string(at) + " of " + std::to_string(n));
    }
}

// A negative sum whose magnitude, 2^300 - 2^72, has limbs of all ones
// wherever the window's cells fall: its two's complement has zero limbs
// the negation must borrow through (round_window_into). (The lowest term
// in the first half: expect_same's bulk calls take each half, and the
// second half's level sums, 2^200 - 2^200, fit the window the first set.)
TEST(ExactSum, ANegativeSumWithLimbsOfAllOnes) {
  expect_same({{0x1p36, 0x1p36}, {-0x1p150, 0x1p150}, {0x1p100, 0x1p100}, {-0x1p100, 0x1p100}}, "-2^300 + 2^72");
  expect_same({{0x1p36, -0x1p36}, {0x1p150, 0x1p150}, {-0x1p100, 0x1p100}, {0x1p90, 0x1p90}}, "2^300 - 2^200 + 2^180 - 2^72");
}

// f64 products with low parts from just above the extraction's floor,
// 2^-968, up to 2^-968 + span: the plans' last levels near s = -1022,
// where the low parts' plan may not be the high parts' moved down.
TEST(ExactSum, ProductsNearTheExtractionsFloor) {
  std::mt19937_64 rng(31);
  for (const int span : {0, 8, 30, 47, 60, 100, 140})
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<Term> terms;
      for (std::size_t i = 0; i < 64; ++i) {
        const int total = -968 + static_cast<int>(rng() % static_cast<std::uint64_t>(span + 1));
        const int ea = total / 2, eb = total - ea;
        const double ma = 1 + static_cast<double>(rng() >> 12) * 0x1p-52, mb = 1 + static_cast<double>(rng() >> 12) * 0x1p-52;
        terms.push_back({std::ldexp(ma, ea) * (rng() & 1 ? -1 : 1), std::ldexp(mb, eb)});
      }
      expect_same(terms, "products from 2^-968, span " + std::to_string(span));
    }
}

// One sum cleared and used again, as the engine's Exact is for every
// element, gives what a fresh one does: clear() leaves nothing of the
// window's cells or the chunks (sums over spans of 0 to 300 binades, in
// the window's cells and past them into the chunks, one after another).
TEST(ExactSum, AClearedSumIsAsNew) {
  std::mt19937_64 rng(41);
  ExactSum reused;
  for (int trial = 0; trial < 300; ++trial) {
    const int span = static_cast<int>(rng() % 301);
    const std::size_t n = 1 + rng() % 200;
    std::vector<double> pairs;
    for (std::size_t i = 0; i < 2 * n; ++i)
      pairs.push_back(std::ldexp(1 + static_cast<double>(rng() >> 12) * 0x1p-52,
                                 static_cast<int>(rng() % static_cast<std::uint64_t>(span / 2 + 1)) - span / 4) *
                      (rng() & 1 ? -1 : 1));
    reused.clear();
    reused.add_products(pairs.data(), n);
    ExactSum fresh;
    fresh.add_products(pairs.data(), n);
    mpfr_t a, b;
    mpfr_inits2(4400, a, b, static_cast<mpfr_ptr>(nullptr));
    EXPECT_EQ(reused.round_into(a, MPFR_RNDN), 0);
    EXPECT_EQ(fresh.round_into(b, MPFR_RNDN), 0);
    EXPECT_TRUE(mpfr_equal_p(a, b)) << "trial " << trial << ", span " << span << ", " << n << " terms";
    mpfr_clears(a, b, static_cast<mpfr_ptr>(nullptr));
  }
}

}  // namespace
