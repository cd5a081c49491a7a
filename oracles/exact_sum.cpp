#include "oracles/exact_sum.h"

#include <cmath>

#include <gmp.h>

namespace kc::oracle {

void ExactSum::clear() {
  for (unsigned j = lo_; j <= hi_ && j < kChunks; ++j) chunks_[j] = 0;
  lo_ = kChunks;
  hi_ = 0;
  terms_ = 0;
  all_negative_zero_ = true;
  nan_ = pos_inf_ = neg_inf_ = false;
}

void ExactSum::special(double x) {
  ++terms_;
  all_negative_zero_ = false;
  if (std::isnan(x)) nan_ = true;
  else (x > 0 ? pos_inf_ : neg_inf_) = true;
}

void ExactSum::special_product(double a, double b) {
  ++terms_;
  all_negative_zero_ = false;
  // inf x 0 and NaN x anything are NaN; else an infinity of the product's sign.
  if (std::isnan(a) || std::isnan(b) || a == 0 || b == 0) nan_ = true;
  else (std::signbit(a) != std::signbit(b) ? neg_inf_ : pos_inf_) = true;
}

void ExactSum::normalize() {
  if (lo_ > hi_) return;
  // sum_j C_j 2^(32 j) = sum_j d_j 2^(32 j) + carry 2^(32 (hi + 1)), carried
  // up one chunk at a time (|C_j| + |carry| < 2^127: no overflow), then on
  // above hi (those chunks are 0) until the carry is 0 or -1.
  constexpr __int128 kDigit = 0xffffffff;
  __int128 carry = 0;
  unsigned j = lo_;
  for (; j <= hi_ || (carry != 0 && carry != -1); ++j) {
    const __int128 total = chunks_[j] + carry;
    chunks_[j] = total & kDigit;
    carry = total >> 32;  // arithmetic: floor division by 2^32
  }
  hi_ = j - 1;
  if (carry == 0) return;
  // A negative sum: the sign chunk -1 above the digits, lowered over top
  // digits 2^32 - 1 (d 2^(32 k) - 2^(32 (k + 1)) = -2^(32 k)), so that
  // normalizing again does not grow the chunks.
  unsigned top = j;
  while (top > lo_ && chunks_[top - 1] == kDigit) chunks_[--top] = 0;
  chunks_[top] = -1;
  hi_ = top;
}

int ExactSum::round_into(mpfr_ptr out, mpfr_rnd_t rnd) {
  if (nan_ || (pos_inf_ && neg_inf_)) {
    mpfr_set_nan(out);
    return 0;
  }
  if (pos_inf_ || neg_inf_) {
    mpfr_set_inf(out, pos_inf_ ? 1 : -1);
    return 0;
  }
  normalize();
  // Digits lo_ .. top - 1 (32 bits each): the magnitude, as 64-bit limbs
  // for GMP. A negative sum is D - 2^(32 k), its sign chunk at top = lo_ +
  // k: the magnitude 2^(32 k) - D, the digits negated with a borrow (and
  // 2^(32 k) itself where D = 0).
  const bool negative = lo_ <= hi_ && chunks_[hi_] == -1;
  const unsigned top = lo_ > hi_ ? lo_ : negative ? hi_ : hi_ + 1;
  std::array<mp_limb_t, kChunks / 2 + 1> limbs{};
  std::uint64_t borrow = 0;
  for (unsigned j = lo_; j < top; ++j) {
    auto d = static_cast<std::uint64_t>(chunks_[j]);
    if (negative) {
      const std::uint64_t t = (std::uint64_t{1} << 32) - d - borrow;
      borrow = (d + borrow) != 0 ? 1 : 0;
      d = t & 0xffffffff;
    }
    limbs[(j - lo_) / 2] |= d << (32 * ((j - lo_) % 2));
  }
  if (negative && borrow == 0) limbs[(top - lo_) / 2] |= std::uint64_t{1} << (32 * ((top - lo_) % 2));
  auto n = static_cast<std::size_t>((top - lo_) / 2 + 1);
  while (n > 0 && limbs[n - 1] == 0) --n;
  if (n == 0) {  // an exact zero (see the header for its sign)
    mpfr_set_zero(out, terms_ > 0 && all_negative_zero_ ? -1 : 1);
    return 0;
  }
  mpz_t z;
  mpz_roinit_n(z, limbs.data(), negative ? -static_cast<mp_size_t>(n) : static_cast<mp_size_t>(n));
  return mpfr_set_z_2exp(out, z, kUnitExponent + 32 * static_cast<long>(lo_), rnd);
}

}  // namespace kc::oracle
