#include "engine/figure_grid.h"

#include <mpfr.h>

namespace kc::engine {

double GridSum::value(int unit_bits) const {
  if (!big_) {
    // (|units| < 2^127: to double in one rounding, then the power of 2, exact)
    return std::ldexp(static_cast<double>(units_), -unit_bits);
  }
  // The units into a copy of the large figures' sum, 40 bits at a time
  // (each piece a double exactly), and the whole rounded once.
  oracle::ExactSum s(*big_);
  const bool negative = units_ < 0;
  auto m = negative ? -static_cast<unsigned __int128>(units_) : static_cast<unsigned __int128>(units_);
  for (int shift = -unit_bits; m != 0; shift += 40, m >>= 40) {
    const double piece = std::ldexp(static_cast<double>(static_cast<std::uint64_t>(m) & ((std::uint64_t{1} << 40) - 1)), shift);
    s.add(negative ? -piece : piece);
  }
  mpfr_t r;
  mpfr_init2(r, 53);
  s.round_into(r, MPFR_RNDN);
  const double v = mpfr_get_d(r, MPFR_RNDN);
  mpfr_clear(r);
  return v == 0 ? 0.0 : v;  // (+0 for an exact zero)
}

}  // namespace kc::engine
