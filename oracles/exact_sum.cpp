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

namespace {

// v 2^o units (|v| < 2^53, o >= 0) into chunk o / 32 of `chunks`, widening
// [lo, hi], the chunks touched.
[[gnu::always_inline]] inline void add_into(__int128* chunks, unsigned& lo, unsigned& hi, std::int64_t v, int o) {
  const auto j = static_cast<unsigned>(o) >> 5;
  chunks[j] += static_cast<__int128>(v) << (o & 31);
  lo = j < lo ? j : lo;
  hi = j > hi ? j : hi;
}

}  // namespace

template <bool kProducts, bool kAbs>
void ExactSum::add_bulk(const double* v, std::size_t n, ExactSum* abs) {
  // A call's terms, at most 2^40 of them, fit the chunks' headroom whatever
  // came before: normalize first if the count could pass a multiple of
  // 2^40 within it (never, in practice), then count them at once.
  for (ExactSum* s : {this, abs})
    if (s && s->terms_ % kNormalizeEvery + static_cast<std::int64_t>(n) >= kNormalizeEvery) s->normalize();
  // The bookkeeping in locals for the loop (written back at the end):
  // stores to the chunks cannot then be taken to alias it.
  __int128* const c = chunks_.data();
  __int128* const ca = kAbs ? abs->chunks_.data() : nullptr;
  unsigned lo = lo_, hi = hi_, alo = kAbs ? abs->lo_ : 0, ahi = kAbs ? abs->hi_ : 0;
  bool neg_zero = all_negative_zero_;
  std::int64_t specials = 0;
  for (std::size_t k = 0; k < n; ++k) {
    Parts pa, pb;
    if constexpr (kProducts) {
      const double a = v[2 * k], b = v[2 * k + 1];
      if (!decompose(a, pa) || !decompose(b, pb)) {
        special_product(a, b);
        if constexpr (kAbs) abs->special_product(std::fabs(a), std::fabs(b));
        ++specials;
        continue;
      }
      const unsigned __int128 m = static_cast<unsigned __int128>(pa.m) * pb.m;
      const bool neg = pa.neg != pb.neg;
      neg_zero &= m == 0 && neg;
      const auto mlo = static_cast<std::int64_t>(m & kLow53), mhi = static_cast<std::int64_t>(m >> 53);
      const int o = pa.e + pb.e - kUnitExponent;
      add_into(c, lo, hi, neg ? -mlo : mlo, o);
      add_into(c, lo, hi, neg ? -mhi : mhi, o + 53);
      if constexpr (kAbs) {
        add_into(ca, alo, ahi, mlo, o);
        add_into(ca, alo, ahi, mhi, o + 53);
      }
    } else {
      if (!decompose(v[k], pa)) {
        special(v[k]);
        if constexpr (kAbs) abs->special(std::fabs(v[k]));
        ++specials;
        continue;
      }
      const auto m = static_cast<std::int64_t>(pa.m);
      neg_zero &= m == 0 && pa.neg;
      const int o = pa.e - kUnitExponent;
      add_into(c, lo, hi, pa.neg ? -m : m, o);
      if constexpr (kAbs) add_into(ca, alo, ahi, m, o);
    }
  }
  // (special() and special_product() counted their terms and cleared the zero's sign)
  lo_ = lo, hi_ = hi;
  all_negative_zero_ = neg_zero && specials == 0 && all_negative_zero_;
  terms_ += static_cast<std::int64_t>(n) - specials;
  if constexpr (kAbs) {
    abs->lo_ = alo, abs->hi_ = ahi;
    abs->all_negative_zero_ = abs->all_negative_zero_ && n == 0;  // (a magnitude is never -0)
    abs->terms_ += static_cast<std::int64_t>(n) - specials;
  }
}

void ExactSum::add_all(const double* terms, std::size_t n, ExactSum* abs) {
  abs ? add_bulk<false, true>(terms, n, abs) : add_bulk<false, false>(terms, n, nullptr);
}
void ExactSum::add_products(const double* pairs, std::size_t n_pairs, ExactSum* abs) {
  abs ? add_bulk<true, true>(pairs, n_pairs, abs) : add_bulk<true, false>(pairs, n_pairs, nullptr);
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
