// The exact-sum tests' comparison with the plain MPFR path
// (exact_sum_test_support.h).
#include "tests/exact_sum_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "core/dtype.h"

namespace kc::exact_sum_testing {

namespace {

int sign(int v) { return (v > 0) - (v < 0); }

// The sums expect_same_on_path holds against MPFR's: one term at a time,
// and the bulk calls' (with and without the magnitudes' sums, alone and
// mixed with single terms), and the terms' magnitudes.
struct Sums {
  ExactSum acc, bulk, bulk_abs, all, all_abs, bulk_alone, all_alone, mixed;
  std::vector<Term> magnitudes;
  bool exact_in_double = true;  // every product exact in double (add_all applies)
};

// The terms into each of s's sums (see expect_same_on_path).
void add_terms(const std::vector<Term>& terms, Sums& s) {
  ExactSum &acc = s.acc, &bulk = s.bulk, &bulk_abs = s.bulk_abs, &all = s.all, &all_abs = s.all_abs;
  ExactSum &bulk_alone = s.bulk_alone, &all_alone = s.all_alone, &mixed = s.mixed;
  mpfr_t scratch;
  mpfr_init2(scratch, 24);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    acc.add_product(terms[i].a, terms[i].b);
    if (i % 7 == 6) acc.round_into(scratch, MPFR_RNDN);
  }
  mpfr_clear(scratch);
  std::vector<double> pairs, products;
  std::vector<Term>& magnitudes = s.magnitudes;
  bool& exact_in_double = s.exact_in_double;
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
}

// Each bulk sum of s (and its magnitudes' sum) as the plain path's, at
// precision prec.
void expect_bulk_sums_same(const std::vector<Term>& terms, Sums& s, mpfr_prec_t prec, const std::string& what) {
  ExactSum &bulk = s.bulk, &bulk_abs = s.bulk_abs, &all = s.all, &all_abs = s.all_abs;
  ExactSum &bulk_alone = s.bulk_alone, &all_alone = s.all_alone, &mixed = s.mixed;
  std::vector<std::pair<ExactSum*, bool>> others{{&bulk, false}, {&bulk_abs, true}, {&bulk_alone, false}, {&mixed, false}};
  if (s.exact_in_double) others.insert(others.end(), {{&all, false}, {&all_abs, true}, {&all_alone, false}});
  for (auto [other, is_abs] : others) {
    mpfr_t w2, g2;
    mpfr_init2(w2, prec);
    mpfr_init2(g2, prec);
    const int t2 = is_abs ? mpfr_dot(s.magnitudes, w2) : mpfr_dot(terms, w2);
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
}

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
  Sums s;
  add_terms(terms, s);
  ExactSum& acc = s.acc;
  for (const mpfr_prec_t prec : {11, 24, 53, 157, 4400, 53}) {
    mpfr_t want, got;
    mpfr_init2(want, prec);
    mpfr_init2(got, prec);
    const int tw = mpfr_dot(terms, want);
    expect_bulk_sums_same(terms, s, prec, what);
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

}  // namespace

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

double random_finite(std::mt19937_64& rng, bool f32) {
  for (;;) {
    const double v = f32 ? bits_to_double(DType::f32, rng() & 0xffffffff) : bits_to_double(DType::f64, rng());
    if (std::isfinite(v)) return v;
  }
}

}  // namespace kc::exact_sum_testing
