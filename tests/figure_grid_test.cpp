// engine/figure_grid.h: the grid's rounding, the fast path's test that an
// uncertain figure has one grid point (every figure it lets through, MPFR's
// rounding of the exact one included, lands there; and it lets through
// all but a sliver near the grid's turning points), and GridSum's sums
// exact in any order, large figures and squares included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <mpfr.h>

#include "engine/figure_grid.h"

namespace kc {
namespace {

using engine::GridSum;
using engine::kGrid;
using engine::kGridBits;
using engine::on_grid;
using engine::one_grid_point;

TEST(FigureGrid, RoundsToTheNearestMultipleTiesToEven) {
  EXPECT_EQ(on_grid(0.25), 0.25);
  EXPECT_EQ(on_grid(0.5 - kGrid / 4), 0.5);
  EXPECT_EQ(on_grid(0.5 - 3 * kGrid / 4), 0.5 - kGrid);
  EXPECT_EQ(on_grid(kGrid / 2), 0.0);          // a tie: to the even multiple, 0
  EXPECT_EQ(on_grid(3 * kGrid / 2), 2 * kGrid);  // a tie: to 2
  EXPECT_EQ(on_grid(-0.3), -on_grid(0.3));
  EXPECT_TRUE(std::signbit(on_grid(-kGrid / 4)));
  EXPECT_EQ(on_grid(0x1p40 + 0.5), 0x1p40 + 0.5);  // (past 2^36 every double is a multiple)
  EXPECT_TRUE(std::isnan(on_grid(NAN)));
  EXPECT_EQ(on_grid(INFINITY), INFINITY);
}

// Every figure within unc of f, and the double MPFR would give for it (the
// exact one rounded twice, 2^-52 relative), has f's grid point wherever
// one_grid_point says so; and it says so for all but about 2 unc / 2^-16
// of the figures.
TEST(FigureGrid, OneGridPointHoldsForEveryFigureWithinTheUncertainty) {
  std::mt19937_64 g(21);
  std::uniform_real_distribution<double> u(0, 1);
  long accepted = 0, n = 0;
  for (int i = 0; i < 2000000; ++i, ++n) {
    const double f = i % 3 == 0 ? std::floor(u(g) * 4096) * kGrid / 2 : u(g) * (i % 5 == 0 ? 64 : 1);
    const double unc = std::ldexp(u(g), -20 - static_cast<int>(g() % 20));
    if (!one_grid_point(f, unc)) continue;
    ++accepted;
    const double q = on_grid(f);
    for (const double t : {-1.0, -0.5, 0.0, 0.5, 1.0, u(g) * 2 - 1}) {
      const double exact = std::max(0.0, f + t * unc);
      for (const double mpfr_figure : {exact, exact * (1 + 0x1p-52), exact * (1 - 0x1p-52)})
        ASSERT_EQ(on_grid(mpfr_figure), q) << "f = " << f << ", unc = " << unc << ", figure " << mpfr_figure;
    }
  }
  // (uncertainties up to 2^-20: at most 2^-3 of the figures near a turning point)
  EXPECT_GT(accepted, n * 3 / 4);
  EXPECT_TRUE(one_grid_point(0.25, 0));
  EXPECT_FALSE(one_grid_point(kGrid / 2, 0x1p-40));  // straddles the turning point between 0 and 2^-16
  EXPECT_TRUE(one_grid_point(0.25, 0x1p-30));
}

double exact_sum(const std::vector<double>& v, bool squares) {
  mpfr_t s, t;
  mpfr_inits2(8000, s, t, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_zero(s, 1);
  for (const double x : v) {
    mpfr_set_d(t, x, MPFR_RNDN);
    if (squares) mpfr_sqr(t, t, MPFR_RNDN);
    mpfr_add(s, s, t, MPFR_RNDN);  // (exact at 8000 bits)
  }
  const double r = mpfr_get_d(s, MPFR_RNDN);
  mpfr_clears(s, t, static_cast<mpfr_ptr>(nullptr));
  return r;
}

TEST(FigureGrid, SumsAreExactInAnyOrder) {
  std::mt19937_64 g(22);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int round = 0; round < 20; ++round) {
    std::vector<double> v;
    for (int i = 0; i < 5000; ++i) {
      const double x = round % 2 ? u(g) * 0.6 : u(g) * std::ldexp(1.0, static_cast<int>(g() % 60));  // (round 0, 2, ...: past 2^24 too)
      v.push_back(on_grid(x));
    }
    GridSum a, a2, b, b2;
    for (const double x : v) a.add(x), a2.add_square(x);
    std::shuffle(v.begin(), v.end(), g);
    for (const double x : v) b.add(x), b2.add_square(x);
    EXPECT_EQ(a.value(kGridBits), exact_sum(v, false));
    EXPECT_EQ(b.value(kGridBits), a.value(kGridBits));
    EXPECT_EQ(a2.value(2 * kGridBits), exact_sum(v, true));
    EXPECT_EQ(b2.value(2 * kGridBits), a2.value(2 * kGridBits));
    const GridSum copy = a;  // (a copy keeps the large figures' sum)
    EXPECT_EQ(copy.value(kGridBits), a.value(kGridBits));
  }
  EXPECT_EQ(GridSum().value(kGridBits), 0.0);
  EXPECT_FALSE(std::signbit(GridSum().value(kGridBits)));
}

}  // namespace
}  // namespace kc
