#include "oracles/exact_sum.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include <gmp.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace kc::oracle {

void ExactSum::clear() {
  if (window_adds_ != 0) {
    window_adds_ = 0;
#ifdef __SSE2__
    // (six stores, written out: fill(), memset() and a loop of stores all
    // became a rep stos, three quarters of a short sum's clear)
    static_assert(kWindowCells == 6);
    auto* const w = reinterpret_cast<__m128i*>(window_.data());
    const __m128i zero = _mm_setzero_si128();
    _mm_storeu_si128(w, zero), _mm_storeu_si128(w + 1, zero), _mm_storeu_si128(w + 2, zero);
    _mm_storeu_si128(w + 3, zero), _mm_storeu_si128(w + 4, zero), _mm_storeu_si128(w + 5, zero);
#else
    window_.fill(0);
#endif
  }
  for (unsigned j = lo_; j <= hi_ && j < kChunks; ++j) chunks_[j] = 0;
  lo_ = kChunks;
  hi_ = 0;
  terms_ = extracted_ = load_ = 0;
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
  load_ = 0;
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

// m 2^(o mod 32) (m < 2^53, o >= 0 an offset in units), unsigned, into
// split chunk o / 32, widening [lo, hi]: the shift as a 64 x 64 -> 128-bit
// product (one multiply where a 128-bit shift by a variable is several
// instructions).
[[gnu::always_inline]] inline void add_split_at(unsigned __int128* split, unsigned& lo, unsigned& hi, std::uint64_t m, unsigned o) {
  const unsigned j = o >> 5;
  split[j] += static_cast<unsigned __int128>(m) * (std::uint64_t{1} << (o & 31));
  lo = j < lo ? j : lo;
  hi = j > hi ? j : hi;
}

// A finite double's biased exponent, significand and offset in units: m
// 2^(o - 2148) (a subnormal's exponent is the smallest normal one's).
struct Unpacked {
  std::uint64_t m;
  unsigned o;
};
[[gnu::always_inline]] inline Unpacked unpack(std::uint64_t bits, unsigned biased) {
  const std::uint64_t normal = biased != 0;
  return {(bits & ((std::uint64_t{1} << 52) - 1)) | (normal << 52), biased + static_cast<unsigned>(1 - normal) + 1073};
}

}  // namespace

void ExactSum::make_room(std::int64_t load, ExactSum* abs) {
  // A call's load (its terms, or what it adds at once; below 2^40) fits the
  // chunks' headroom whatever came before: normalize first where it would
  // pass 2^40 (never, in practice).
  // (the caller adds to the chunks: the window goes there first)
  for (ExactSum* s : {this, abs})
    if (s) {
      s->flush_window();
      if (s->load_ + load >= kNormalizeEvery) s->normalize();
      s->load_ += load;
    }
}

template <bool kAbs>
void ExactSum::add_binned(const double* v, std::size_t n, ExactSum* abs) {
  make_room(static_cast<std::int64_t>(n), abs);
  // Neal's large superaccumulator: a term's bits >> 52 (its sign and
  // biased exponent) index a bin that sums the terms' 52-bit fraction
  // fields and counts them; per term one add and one count, no shift and
  // no branch. A bin's terms are then count 2^52 + fractions (the hidden
  // bits; none for the subnormal bin) units of its binade, folded into the
  // chunks once per bin touched (the bins a count leaves 0 -> 1 are
  // listed), into the split chunks of add_split (below), which end the
  // call as there. A pass of kBinBlock = 2048 terms keeps every bin's
  // units below 2^64 (each term < 2^53 of them), and a bin adds to a split
  // chunk what its terms added one by one would: add_split's headroom
  // holds. Infinities and NaN have a bin of their own (biased exponent 0x7ff).
  unsigned __int128* const pos = split_.data();
  std::uint64_t not_negative_zero = 0;
  unsigned lo = kChunks, hi = 0;
  for (std::size_t start = 0; start < n; start += kBinBlock) {
    const std::size_t end = std::min(n, start + kBinBlock);
    std::size_t listed = 0;
    for (std::size_t k = start; k < end; ++k) {
      const auto bits = std::bit_cast<std::uint64_t>(v[k]);
      const auto bin = static_cast<unsigned>(bits >> 52);
      const std::uint16_t count = bin_count_[bin];
      bin_count_[bin] = static_cast<std::uint16_t>(count + 1);
      bin_listed_[listed] = static_cast<std::uint16_t>(bin);
      listed += count == 0;
      bin_fractions_[bin] += bits & ((std::uint64_t{1} << 52) - 1);
    }
    for (std::size_t l = 0; l < listed; ++l) {
      const unsigned bin = bin_listed_[l], biased = bin & 0x7ff;
      const std::uint64_t count = bin_count_[bin], fractions = bin_fractions_[bin];
      bin_count_[bin] = 0;
      bin_fractions_[bin] = 0;
      const bool negative = bin >> 11;
      if (biased == 0x7ff) {  // infinities (all fractions 0) or a NaN among them
        (fractions != 0 ? nan_ : negative ? neg_inf_ : pos_inf_) = true;
        if constexpr (kAbs) (fractions != 0 ? abs->nan_ : abs->pos_inf_) = true;
        not_negative_zero = 1;
        continue;
      }
      // (-0 terms alone: the negative subnormal bin with no fraction)
      not_negative_zero |= static_cast<std::uint64_t>(bin != 0x800) | fractions;
      const std::uint64_t units = fractions + (biased != 0 ? count << 52 : 0);
      if (units == 0) continue;
      const unsigned o = (biased != 0 ? biased : 1) + 1073;  // the binade's unit: 2^(o - 2148)
      const unsigned j = o >> 5;
      // (units 2^(o mod 32) < 2^96 as one 64 x 64 -> 128-bit product)
      pos[(negative ? kChunks : 0) + j] += static_cast<unsigned __int128>(units) * (std::uint64_t{1} << (o & 31));
      lo = std::min(lo, j), hi = std::max(hi, j);
    }
  }
  finish_split<kAbs>(lo, hi, not_negative_zero, static_cast<std::int64_t>(n), abs);
}

template <bool kProducts, bool kAbs>
void ExactSum::add_split(const double* v, std::size_t n, ExactSum* abs) {
  make_room(static_cast<std::int64_t>(n), abs);
  // Each term's magnitude goes, unsigned and unrounded, into the split
  // chunks of its sign (split_: the positive ones, then the negative; a
  // product's two halves both into its sign's): per term one 128-bit add
  // and no sign handling. At the end of the call the sum is their
  // difference and the magnitudes' sum their sum, folded into the signed
  // chunks over the range touched, and the split chunks are zero again.
  // Headroom: a term adds < 2^84 to a split chunk (m < 2^53 shifted by at
  // most 31), so 2^40 terms stay below 2^124; folded, a chunk gains at most
  // what the same terms added one by one would (2^84 per term): the
  // normalization count above covers both.
  unsigned __int128* const pos = split_.data();
  unsigned lo = kChunks, hi = 0;
  std::uint64_t not_negative_zero = 0;  // any bit set: some term was not -0
  std::int64_t specials = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if constexpr (kProducts) {
      const double a = v[2 * k], b = v[2 * k + 1];
      const auto ba = std::bit_cast<std::uint64_t>(a), bb = std::bit_cast<std::uint64_t>(b);
      const auto ea = static_cast<unsigned>(ba >> 52) & 0x7ff, eb = static_cast<unsigned>(bb >> 52) & 0x7ff;
      if (ea == 0x7ff || eb == 0x7ff) [[unlikely]] {
        special_product(a, b);
        if constexpr (kAbs) abs->special_product(std::fabs(a), std::fabs(b));
        ++specials;
        not_negative_zero = 1;
        continue;
      }
      const Unpacked pa = unpack(ba, ea), pb = unpack(bb, eb);
      const unsigned __int128 m = static_cast<unsigned __int128>(pa.m) * pb.m;
      const std::uint64_t sign = (ba ^ bb) >> 63;
      // -0 exactly where the product is a zero of negative sign
      not_negative_zero |= static_cast<std::uint64_t>(m != 0) | (sign ^ 1);
      // (offset of m 2^(e_a + e_b): o_a + o_b - 2148)
      unsigned __int128* const half = pos + sign * kChunks;
      const unsigned o = pa.o + pb.o - 2148;
      add_split_at(half, lo, hi, static_cast<std::uint64_t>(m) & kLow53, o);
      add_split_at(half, lo, hi, static_cast<std::uint64_t>(m >> 53), o + 53);
    } else {
      const auto bits = std::bit_cast<std::uint64_t>(v[k]);
      const auto biased = static_cast<unsigned>(bits >> 52) & 0x7ff;
      if (biased == 0x7ff) [[unlikely]] {
        special(v[k]);
        if constexpr (kAbs) abs->special(std::fabs(v[k]));
        ++specials;
        not_negative_zero = 1;
        continue;
      }
      not_negative_zero |= bits ^ (std::uint64_t{1} << 63);
      const Unpacked p = unpack(bits, biased);
      add_split_at(pos + (bits >> 63) * kChunks, lo, hi, p.m, p.o);
    }
  }
  // (special() and special_product() counted their terms)
  finish_split<kAbs>(lo, hi, not_negative_zero, static_cast<std::int64_t>(n) - specials, abs);
}

template <bool kAbs>
void ExactSum::finish_split(unsigned lo, unsigned hi, std::uint64_t not_negative_zero, std::int64_t counted, ExactSum* abs) {
  if (lo <= hi) {
    unsigned __int128* const pos = split_.data();
    unsigned __int128* const neg = pos + kChunks;
    for (unsigned j = lo; j <= hi; ++j) {
      chunks_[j] += static_cast<__int128>(pos[j]) - static_cast<__int128>(neg[j]);
      if constexpr (kAbs) abs->chunks_[j] += static_cast<__int128>(pos[j] + neg[j]);
      pos[j] = neg[j] = 0;
    }
    for (ExactSum* s : {this, abs})
      if (s) s->lo_ = std::min(s->lo_, lo), s->hi_ = std::max(s->hi_, hi);
  }
  all_negative_zero_ = all_negative_zero_ && not_negative_zero == 0;
  terms_ += counted;
  if constexpr (kAbs) {
    abs->all_negative_zero_ = abs->all_negative_zero_ && counted == 0;  // (a magnitude is never -0)
    abs->terms_ += counted;
  }
}

namespace {
thread_local std::int64_t bulk_calls_made = 0;
}  // namespace

std::int64_t ExactSum::bulk_calls() { return bulk_calls_made; }

void ExactSum::add_all(const double* terms, std::size_t n, ExactSum* abs) {
  ++bulk_calls_made;
  {  // (the extraction path takes what it can, nothing where it is not in use)
    const std::size_t done = add_all_extracted(terms, n, abs);
    terms += done, n -= done;
    if (n == 0) return;
  }
  // Bins cost a fold per bin touched, the split chunks a wider add per
  // term: below 16 terms the split chunks are the cheaper (measured in
  // bench/exact_sum_bench.cpp).
  if (n >= kBinsFrom) abs ? add_binned<true>(terms, n, abs) : add_binned<false>(terms, n, nullptr);
  else abs ? add_split<false, true>(terms, n, abs) : add_split<false, false>(terms, n, nullptr);
}
void ExactSum::add_products(const double* pairs, std::size_t n_pairs, ExactSum* abs) {
  ++bulk_calls_made;
  {
    const std::size_t done = add_products_extracted(pairs, n_pairs, abs);
    pairs += 2 * done, n_pairs -= done;
    if (n_pairs == 0) return;
  }
  abs ? add_split<true, true>(pairs, n_pairs, abs) : add_split<true, false>(pairs, n_pairs, nullptr);
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
  if (window_adds_ != 0) return round_window_into(out, rnd);  // (the chunks are zero then)
  normalize();
  // Digits lo_ .. top - 1 (32 bits each): the magnitude, as 64-bit limbs
  // for GMP. A negative sum is D - 2^(32 k), its sign chunk at top = lo_ +
  // k: the magnitude 2^(32 k) - D, the digits negated with a borrow (and
  // 2^(32 k) itself where D = 0).
  const bool negative = lo_ <= hi_ && chunks_[hi_] == -1;
  const unsigned top = lo_ > hi_ ? lo_ : negative ? hi_ : hi_ + 1;
  std::array<mp_limb_t, kChunks / 2 + 1> limbs;  // (the ones used zeroed below: not all 71, a short sum's)
  std::fill(limbs.begin(), limbs.begin() + (top - lo_) / 2 + 1, mp_limb_t{0});
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

void ExactSum::add_integers(const std::int64_t* m, const int* e, int count, int lo, int top) {
  if (count == 0) return;
  const int base = window_adds_ == 0 ? lo : window_base_;
  if (lo_ > hi_ && window_adds_ + count <= kWindowAdds && lo >= base && top - base <= kWindowBits - 16) {
    window_base_ = base;
    window_adds_ += count;
    for (int k = 0; k < count; ++k) {
      const int d = e[k] - base;
      // (m 2^(d mod 64), |.| <= 2^116: the shift taken unsigned, modulo
      // 2^128, which is the signed value's two's complement)
      const auto v = static_cast<unsigned __int128>(static_cast<__int128>(m[k]));
      window_[static_cast<unsigned>(d) >> 6] += static_cast<__int128>(v << (d & 63));
    }
    return;
  }
  make_room(count, nullptr);  // (the window, if any, into the chunks first)
  for (int k = 0; k < count; ++k) add_at(m[k], e[k] - kUnitExponent);
}

void ExactSum::flush_window() {
  if (window_adds_ == 0) return;
  window_adds_ = 0;
  make_room(4 * kWindowCells, nullptr);
  // Each cell W_j (|W_j| < 2^126) as three unsigned digits of 32 bits and a
  // signed top one (|.| < 2^30), each at its offset in units.
  for (int j = 0; j < kWindowCells; ++j) {
    const __int128 w = window_[static_cast<std::size_t>(j)];
    window_[static_cast<std::size_t>(j)] = 0;
    if (w == 0) continue;
    const auto bits = static_cast<unsigned __int128>(w);
    const int o = window_base_ + 64 * j - kUnitExponent;
    for (int i = 0; i < 3; ++i) add_at(static_cast<std::int64_t>((bits >> (32 * i)) & 0xffffffff), o + 32 * i);
    add_at(static_cast<std::int64_t>(w >> 96), o + 96);
  }
}

int ExactSum::round_window_into(mpfr_ptr out, mpfr_rnd_t rnd) {
  // Carries up the cells into 64-bit limbs, two's complement; out of the
  // top one only the sign is left (the header's headroom).
  static_assert(sizeof(mp_limb_t) == 8);
  std::array<mp_limb_t, kWindowCells> limbs;
  __int128 carry = 0;
  for (std::size_t j = 0; j < kWindowCells; ++j) {
    const __int128 t = window_[j] + carry;
    limbs[j] = static_cast<mp_limb_t>(static_cast<unsigned __int128>(t));
    carry = t >> 64;  // (arithmetic: floor division)
  }
  const bool negative = carry < 0;
  if (negative) {  // the magnitude: the limbs negated with a borrow (a call to mpn_neg cost more)
    unsigned borrow = 0;
    for (auto& l : limbs) {
      const mp_limb_t d = l;
      l = 0 - d - borrow;
      borrow = (d | borrow) != 0;
    }
  }
  mp_size_t n = kWindowCells;
  while (n > 0 && limbs[static_cast<std::size_t>(n - 1)] == 0) --n;
  if (n == 0) {  // an exact zero (see the header for its sign)
    mpfr_set_zero(out, terms_ > 0 && all_negative_zero_ ? -1 : 1);
    return 0;
  }
  mpz_t z;
  mpz_roinit_n(z, limbs.data(), negative ? -n : n);
  return mpfr_set_z_2exp(out, z, window_base_, rnd);
}

}  // namespace kc::oracle
