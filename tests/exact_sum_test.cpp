// The exact-accumulation oracle (oracles/exact_sum.h) against the plain
// MPFR path it replaces: each product computed exactly by mpfr_mul (106
// bits hold any product of two doubles), the products summed by mpfr_sum
// and rounded once. Both must give the same number, sign of zero and
// ternary value at every precision, over f32 and f64 terms with
// cancellation, subnormals and both ends of the exponent range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <random>
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
// is exact in double, each with the magnitudes' sum), in two calls, against
// the same MPFR sums (of |a b| for the magnitudes).
void expect_same(const std::vector<Term>& terms, const char* what) {
  ExactSum acc, bulk, bulk_abs, all, all_abs;
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
  if (exact_in_double) {
    all.add_all(products.data(), half, &all_abs);
    all.add_all(products.data() + half, terms.size() - half, &all_abs);
  }
  for (const mpfr_prec_t prec : {11, 24, 53, 157, 4400, 53}) {
    mpfr_t want, got;
    mpfr_init2(want, prec);
    mpfr_init2(got, prec);
    const int tw = mpfr_dot(terms, want);
    // Each bulk sum (and its magnitudes' sum) as the plain path's.
    std::vector<std::pair<ExactSum*, bool>> others{{&bulk, false}, {&bulk_abs, true}};
    if (exact_in_double) others.insert(others.end(), {{&all, false}, {&all_abs, true}});
    for (auto [other, is_abs] : others) {
      mpfr_t w2, g2;
      mpfr_init2(w2, prec);
      mpfr_init2(g2, prec);
      const int t2 = is_abs ? mpfr_dot(magnitudes, w2) : mpfr_dot(terms, w2);
      const int u2 = other->round_into(g2, MPFR_RNDN);
      const bool same2 = (mpfr_nan_p(w2) && mpfr_nan_p(g2)) || (mpfr_equal_p(w2, g2) && mpfr_signbit(w2) == mpfr_signbit(g2));
      EXPECT_TRUE(same2) << what << ", precision " << prec << ": the bulk " << (other == &all || other == &all_abs ? "add_all " : "add_products ")
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
