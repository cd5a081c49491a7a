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

namespace {

using kc::oracle::ExactSum;

struct Term {
  double a, b;
};

// The plain MPFR path: exact products, one correctly rounded sum.
int mpfr_dot(const std::vector<Term>& terms, mpfr_ptr out) {
  std::vector<mpfr_t> products(terms.size());
  std::vector<mpfr_ptr> ptrs;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    mpfr_init2(products[i], 106);
    mpfr_set_d(products[i], terms[i].a, MPFR_RNDN);
    mpfr_t b;
    mpfr_init2(b, 53);
    mpfr_set_d(b, terms[i].b, MPFR_RNDN);
    EXPECT_EQ(mpfr_mul(products[i], products[i], b, MPFR_RNDN), 0) << "a product of doubles is exact in 106 bits";
    mpfr_clear(b);
    ptrs.push_back(products[i]);
  }
  const int t = mpfr_sum(out, ptrs.data(), ptrs.size(), MPFR_RNDN);
  for (auto& p : products) mpfr_clear(p);
  return t;
}

int sign(int v) { return (v > 0) - (v < 0); }

// Both paths at several precisions, 4400 bits (exact) among them.
// The accumulator is also rounded every 7 terms on the way (rounding
// normalizes it: the sum must not change).
// The bulk entry points too (add_products, and add_all where every product
// is exact in double, each with the magnitudes' sum and without it: the
// extraction's signed levels), in two calls, against the same MPFR sums
// (of |a b| for the magnitudes); and bulk calls mixed with single terms
// and roundings (a window of level sums moved into the chunks, and rounded
// on the way).
void expect_same_on_path(const std::vector<Term>& terms, const std::string& what) {
  ExactSum acc, bulk, bulk_abs, all, all_abs, bulk_alone, all_alone, mixed;
  mpfr_t scratch;
  mpfr_init2(scratch, 24);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    acc.add_product(terms[i].a, terms[i].b);
    if (i % 7 == 6) acc.round_into(scratch, MPFR_RNDN);
  }
  mpfr_clear(scratch);
  std::vector<double> pairs, products;
  std::vector<Term> magnitudes;
  bool exact_in_double = true;
  for (const Term& t : terms) {
    pairs.insert(pairs.end(), {t.a, t.b});
    products.push_back(t.a * t.b);
    magnitudes.push_back({std::fabs(t.a), std::fabs(t.b)});
    // (a b exact in double: MPFR's exact product equals it; specials aside)
    if (std::isfinite(t.a) && std::isfinite(t.b)) {
      mpfr_t p;
      mpfr_init2(p, 106);
      mpfr_set_d(p, t.a, MPFR_RNDN);
      mpfr_mul_d(p, p, t.b, MPFR_RNDN);
      exact_in_double &= mpfr_cmp_d(p, t.a * t.b) == 0;
      mpfr_clear(p);
    }
  }
  const std::size_t half = terms.size() / 2;
  bulk.add_products(pairs.data(), half, &bulk_abs);
  bulk.add_products(pairs.data() + 2 * half, terms.size() - half, &bulk_abs);
  bulk_alone.add_products(pairs.data(), half);
  bulk_alone.add_products(pairs.data() + 2 * half, terms.size() - half);
  if (exact_in_double) {
    all.add_all(products.data(), half, &all_abs);
    all.add_all(products.data() + half, terms.size() - half, &all_abs);
    all_alone.add_all(products.data(), half);
    all_alone.add_all(products.data() + half, terms.size() - half);
  }
  {
    mpfr_t r;
    mpfr_init2(r, 53);
    mixed.add_products(pairs.data(), half);
    mixed.round_into(r, MPFR_RNDN);
    if (half < terms.size()) mixed.add_product(terms[half].a, terms[half].b);
    if (half + 1 < terms.size()) mixed.add_products(pairs.data() + 2 * (half + 1), terms.size() - half - 1);
    mpfr_clear(r);
  }
  for (const mpfr_prec_t prec : {11, 24, 53, 157, 4400, 53}) {
    mpfr_t want, got;
    mpfr_init2(want, prec);
    mpfr_init2(got, prec);
    const int tw = mpfr_dot(terms, want);
    // Each bulk sum (and its magnitudes' sum) as the plain path's.
    std::vector<std::pair<ExactSum*, bool>> others{{&bulk, false}, {&bulk_abs, true}, {&bulk_alone, false}, {&mixed, false}};
    if (exact_in_double) others.insert(others.end(), {{&all, false}, {&all_abs, true}, {&all_alone, false}});
    for (auto [other, is_abs] : others) {
      mpfr_t w2, g2;
      mpfr_init2(w2, prec);
      mpfr_init2(g2, prec);
      const int t2 = is_abs ? mpfr_dot(magnitudes, w2) : mpfr_dot(terms, w2);
      const int u2 = other->round_into(g2, MPFR_RNDN);
      const bool same2 = (mpfr_nan_p(w2) && mpfr_nan_p(g2)) || (mpfr_equal_p(w2, g2) && mpfr_signbit(w2) == mpfr_signbit(g2));
      EXPECT_TRUE(same2) << what << ", precision " << prec << ": the bulk " << (other == &all || other == &all_abs || other == &all_alone ? "add_all " : "add_products ")
                         << (other == &bulk_alone || other == &all_alone ? "(alone) " : other == &mixed ? "(mixed) " : "")
                         << (is_abs ? "magnitudes' " : "") << "sum " << mpfr_get_d(g2, MPFR_RNDN) << " (2^" << mpfr_get_exp(g2)
                         << "), MPFR " << mpfr_get_d(w2, MPFR_RNDN) << " (2^" << mpfr_get_exp(w2) << ")";
      EXPECT_EQ(sign(t2), sign(u2)) << what << ", precision " << prec << ": the bulk sum's ternary value";
      mpfr_clear(w2);
      mpfr_clear(g2);
    }
    const int tg = acc.round_into(got, MPFR_RNDN);
    const bool same = (mpfr_nan_p(want) && mpfr_nan_p(got)) ||
                      (mpfr_equal_p(want, got) && mpfr_signbit(want) == mpfr_signbit(got));
    EXPECT_TRUE(same) << what << ", " << terms.size() << " terms, precision " << prec << ": MPFR "
                      << mpfr_get_d(want, MPFR_RNDN) << ", exact sum " << mpfr_get_d(got, MPFR_RNDN);
    EXPECT_EQ(sign(tw), sign(tg)) << what << ", precision " << prec << ": ternary values";
    if (prec == 4400 && !mpfr_nan_p(want) && !mpfr_inf_p(want)) {
      EXPECT_EQ(tg, 0) << what << ": exact at 4400 bits";
    }
    mpfr_clear(want);
    mpfr_clear(got);
  }
}

// The bulk calls' paths this CPU has: extraction 8 and 4 terms at a time,
// and the scalar paths; each one's name.
using Path = ExactSum::Path;
std::vector<Path> paths_here() {
  std::vector<Path> out;
  for (const Path p : {Path::extract8, Path::extract4, Path::scalar})
    if (ExactSum::has_path(p)) out.push_back(p);
  return out;
}
std::string name(Path p) {
  return p == Path::extract8 ? " (extraction, 8 lanes)" : p == Path::extract4 ? " (extraction, 4 lanes)" : " (scalar paths)";
}

// Every path of the bulk calls.
void expect_same(const std::vector<Term>& terms, const std::string& what) {
  for (const Path p : paths_here()) {
    ExactSum::use_path(p);
    expect_same_on_path(terms, what + name(p));
  }
  ExactSum::use_default_path();
}

// A finite value of every binade of the dtype (subnormals included), by
// random bit patterns with the non-finite ones redrawn.
double random_finite(std::mt19937_64& rng, bool f32) {
  for (;;) {
    const double v = f32 ? kc::bits_to_double(kc::DType::f32, rng() & 0xffffffff) : kc::bits_to_double(kc::DType::f64, rng());
    if (std::isfinite(v)) return v;
  }
}

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
