// The grid of the tallied figures: every fractional ulp error that enters a
// mean, the p99, the bias sums or the error profile is first rounded to
// a multiple of 2^-16 ulp, and the sums over them are exact.
//
// Why. The oracle's fast path (oracles/fast.h) decides most elements from
// a double evaluation within a bound (glibc's exp, log, sin, ... whose
// last bits differ between CPUs, and between FMA and SSE2 code), and MPFR
// at 64 bits decides others: a figure tallied as computed would differ in
// its last bits from machine to machine, and from --exact-oracle's. On the
// grid, a figure is a function of the exact error alone: the fast path
// tallies an element only where its whole uncertainty interval falls on
// one grid point (one_grid_point, in grade_fast's decision), and that is
// the point MPFR's figure falls on; else MPFR grades it, as it does an
// element near a histogram edge. The sums are kept in integer units (a
// figure past 2^24 ulp in an ExactSum), so the order the elements arrive
// in (the bulk lane records some late) changes no bit either. To nearest,
// not toward zero: the figures that are exact in few bits (0, 1/4, 1/2 of
// a data mover, a half's results) sit at the middle of their grid cell,
// not on its edge, where any uncertainty at all sent them to MPFR (toward
// zero, the fast path decided a sixth of mul_scalar f16's elements); and
// the means keep no bias. The maximum is MPFR's figure as it is (no
// approximate figure ever reaches it), and the p99 is capped at it.
// docs/accuracy-bounds.md, "Figures on a grid", derives the margin and
// measures what the grid costs.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>

#include "oracles/exact_sum.h"

namespace kc::engine {

inline constexpr int kGridBits = 16;
inline constexpr double kGrid = 0x1p-16;  // 2^-kGridBits ulp

// f rounded to the nearest multiple of 2^-16 (ties to even; -0 for a
// small negative f). From 2^36 up every double is a multiple already. NaN
// and infinities pass through.
[[gnu::always_inline]] inline double on_grid(double f) {
  const double a = std::fabs(f);
  if (!(a < 0x1p36)) return f;
  // (a 2^16 < 2^52: adding 2^52 rounds it to an integer, to nearest even,
  // and the subtraction is exact; per element, so no library call)
  return std::copysign(((a * 0x1p16 + 0x1p52) - 0x1p52) * 0x1p-16, f);
}

// Whether every figure within unc of f (f >= 0) has the grid point of f,
// MPFR's figure included: MPFR's is the exact error rounded at the working
// precision and then to double (within 2^-52 of it, relative, plus 2^-100
// where it is 0), and the test below rounds once more; the margin 2^-48 (f
// + unc) + 2^-100 takes all of that. In grid units y = f 2^16 the interval
// y +- w 2^16 must hold no half-integer, where the grid's rounding turns:
// its distance from the nearest integer n (y - n exact) plus the
// half-width stays below 1/2. (Per fast-path element: a few operations,
// no call. A figure past 2^35 ulp never passes a bound: MPFR's.)
[[gnu::always_inline]] inline bool one_grid_point(double f, double unc) {
  if (unc == 0) return true;
  const double w = unc + 0x1p-48 * (f + unc) + 0x1p-100, y = f * 0x1p16;
  if (!(y < 0x1p51)) return false;
  const double n = (y + 0x1p52) - 0x1p52;
  return std::fabs(y - n) + w * 0x1p16 < 0.5;
}

// A sum of grid figures (or of their squares), exact: in integer units of
// 2^-16 (squares: 2^-32) while a figure is below 2^24, in an ExactSum
// above. value() is the sum rounded to the nearest double, the same
// whatever order the figures came in.
class GridSum {
 public:
  GridSum() = default;
  GridSum(const GridSum& o) : units_(o.units_), big_(o.big_ ? std::make_unique<oracle::ExactSum>(*o.big_) : nullptr) {}
  GridSum& operator=(const GridSum& o) {
    if (this != &o) *this = GridSum(o);
    return *this;
  }
  GridSum(GridSum&&) noexcept = default;
  GridSum& operator=(GridSum&&) noexcept = default;

  // q on the grid (on_grid), finite.
  [[gnu::always_inline]] void add(double q) {
    if (std::fabs(q) < 0x1p24) units_ += static_cast<std::int64_t>(q * 0x1p16);
    else more().add(q);
  }
  // q squared, exactly.
  [[gnu::always_inline]] void add_square(double q) {
    if (std::fabs(q) < 0x1p24) {
      const auto k = static_cast<std::int64_t>(q * 0x1p16);  // |k| < 2^40: k^2 < 2^80
      units_ += static_cast<__int128>(k) * k;
    } else {
      more().add_product(q, q);
    }
  }
  // The sum, rounded to nearest; unit_bits: 16 for figures, 32 for squares.
  double value(int unit_bits) const;

 private:
  oracle::ExactSum& more() {
    if (!big_) big_ = std::make_unique<oracle::ExactSum>();
    return *big_;
  }
  // Below 2^24 ulp: at most 2^40 units a figure, 2^80 a square, so 2^47
  // squares of 2^24 before 2^127: far more elements than any run grades.
  __int128 units_ = 0;
  std::unique_ptr<oracle::ExactSum> big_;
};

}  // namespace kc::engine
