// ExactSum's bulk calls by error-free extraction, four terms at a time
// (AVX2 and FMA, chosen at run time; the scalar paths of exact_sum.cpp
// elsewhere and for the terms this method does not take).
//
// The method (Rump, Ogita and Oishi's ExtractVector, applied level after
// level until nothing is left). A block of n <= 2^M terms t_i (M >= 1),
// sigma = 2^s with every |t_i| <= 2^(s - M), s <= 1023:
//   q_i = fl(fl(sigma + t_i) - sigma),  r_i = fl(t_i - q_i).
// (1) q_i is exact and a multiple of 2^(s - 53): sigma + t_i lies in
//     [sigma/2, 3 sigma/2], so fl(sigma + t_i) is a multiple of the
//     spacing there (2^(s - 53) at least) within a factor 2 of sigma, and
//     the subtraction is exact (Sterbenz).
// (2) r_i = t_i - q_i exactly, |r_i| <= 2^(s - 53): where q_i != 0, |t_i|
//     >= 2^(s - 54), so ulp(t_i) >= 2^(s - 106) divides q_i (ulp(t_i) <=
//     2^(s - 53)) and r_i, a multiple of it below 2^53 of it, is a double;
//     where q_i = 0, r_i = t_i.
// (3) Every sum of some of the q_i is exact, in any order: they are
//     multiples of 2^(s - 53) and |q_i| <= 2^(s - M) (rounding is
//     monotone and sigma +- 2^(s - M) are doubles), so any such sum is at
//     most n 2^(s - M) <= 2^s, a double. So are sums of q_i with their
//     signs flipped.
// The residuals are the next level's terms with s' = s - (53 - M): by (2)
// they are at most 2^(s' - M). Each level takes 53 - M bits. Every t_i is
// a multiple of the terms' quantum Q (ulp(min |t_i|) at least), and so is
// every residual while 2^(s - 53) >= Q. The last level is the first with
// 2^(s - 53) <= Q: it extracts nothing, its terms (multiples of Q, at most
// 2^(s - M)) are summed as they are, every partial sum a multiple of
// 2^(s - 53) at most n 2^(s - M) <= 2^s, a double, as in (3). s is kept
// >= -1022 (sigma normal; there 2^(s - 53) < 2^-1074 <= Q: a last level);
// with s = ilogb(max |t_i|) + 1 + M > 1023 the block goes to the scalar
// path.
//
// Per level the sum of the q_i is an exact double, added to the window of
// level sums or the chunks (exact_sum.h). Where the magnitudes' sum is
// asked too, a term's magnitude and its sign are kept apart (t_i = |x_i|,
// signed by x_i's sign bit), so one pass gives the sum (of q_i with its
// term's sign) and the magnitudes' (of q_i); else the terms are extracted
// with their signs, as (1)-(3) allow. A product of two doubles a b = p + e exactly
// (p = fl(a b), e = fma(a, b, -p)) where p is finite and a or b is 0 or
// |p| >= 2^-968 (then e is a multiple of a's and b's quanta's product >= 2^-1074,
// and at most ulp(p)/2: a double); |a b| = |p| + e sign(p), so its terms
// are |p| and e sign(p), both signed by p's sign.
#include "oracles/exact_sum.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <utility>

#include "core/cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_EXTRACT_AVX2 1
#include <immintrin.h>
#endif

namespace kc::oracle {

namespace {

std::atomic<bool> scalar_only{false};

constexpr std::size_t kBlock = 256;   // terms per block: M <= 8, 45 bits a level
constexpr int kMaxLevels = 48;        // (2046 + 53 + 8) bits at 45 a level, and room
constexpr std::uint64_t kSign = std::uint64_t{1} << 63;

// 2^s as a double, -1022 <= s <= 1023 (ldexp is a call).
double power_of_two(int s) { return std::bit_cast<double>(static_cast<std::uint64_t>(s + 1023) << 52); }

// The levels' sigmas of a block of n terms whose largest magnitude is in
// binade `hi` and smallest nonzero one in binade `lo` (floor(log2 |t|),
// taken as -1022 below the normal range: a subnormal's ulp is the
// smallest normal number's); false where s would pass 1023 (see the top of
// the file).
struct Levels {
  int count = 0;
  double sigma[kMaxLevels];
};
bool plan_levels(std::size_t n, int hi, int lo, Levels& out) {
  const int m = std::max(1, static_cast<int>(std::bit_width(n - 1)));
  const int quantum = lo - 52;
  // (a subnormal hi, taken as -1022: every term is below 2^-1022 <=
  // 2^(s - m), and s = -1022 anyway)
  int s = std::max(hi + 1 + m, -1022);
  if (s > 1023) return false;
  out.count = 0;
  for (;;) {
    out.sigma[out.count++] = power_of_two(s);
    if (s - 53 <= quantum) return true;  // (always at s = -1022: quantum >= -1074)
    s = std::max(s - (53 - m), -1022);
  }
}

double with_sign(double x, std::uint64_t sign) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ sign); }

#ifdef KC_EXTRACT_AVX2

// Where a level's terms come from: the block's doubles (t = |x|, signed by
// x), a product's low parts (t = e sign(p), signed by p), or the
// residuals of an earlier level (t and its sign kept apart).
enum class From { doubles, low_parts, residuals };

// What plan_levels needs of a block, from the high 32 bits of its
// magnitudes' bits v (sign cleared): their largest (its exponent field is
// the largest magnitude's; 0x7ff00000 and above, an infinity or a NaN) and
// the smallest of v - 1's over the nonzero ones (v = 0 gives 0xffffffff,
// which no nonzero v - 1 reaches; a nonzero subnormal's may be 0, which
// stands for binade -1022 as it should). v - 1's high word is v's, or one
// less where v's low word is 0: then its binade may read one lower, a
// smaller quantum, which plan_levels may take (a level more at worst).
// Integer max and min (one cycle each): the doubles' max and min made a
// chain of their latencies, a tenth of a 64-term sum's cost; v - 1 spares
// the zero test.
struct Scan {
  std::uint32_t hi = 0, lo = 0xffffffff;
  bool finite() const { return hi < 0x7ff00000; }
  bool all_zero() const { return lo == 0xffffffff; }
  static int binade(std::uint32_t word) { return std::max(static_cast<int>(word >> 20), 1) - 1023; }
  int hi_binade() const { return binade(hi); }
  int lo_binade() const { return binade(lo); }
};

// A Scan four lanes at a time (their high words' max and min), and the
// terms one at a time after them.
struct ScanLanes {
  __m256i hi, lo;
  [[gnu::target("avx2,fma")]] ScanLanes() : hi(_mm256_setzero_si256()), lo(_mm256_set1_epi32(-1)) {}
  // (The low words' lanes take part too; lanes() reads the high words'.)
  [[gnu::target("avx2,fma")]] void add(__m256d x) {
    const __m256i v = _mm256_and_si256(_mm256_castpd_si256(x), _mm256_set1_epi64x(static_cast<long long>(~kSign)));
    hi = _mm256_max_epu32(hi, v);
    lo = _mm256_min_epu32(lo, _mm256_sub_epi64(v, _mm256_set1_epi64x(1)));
  }
  [[gnu::target("avx2,fma")]] Scan lanes() const {
    alignas(32) std::uint32_t h[8], l[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
    _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
    Scan out;
    for (int k = 1; k < 8; k += 2) out.hi = std::max(out.hi, h[k]), out.lo = std::min(out.lo, l[k]);
    return out;
  }
};
void scan_one(Scan& out, double x) {
  const std::uint64_t v = std::bit_cast<std::uint64_t>(x) & ~kSign;
  out.hi = std::max(out.hi, static_cast<std::uint32_t>(v >> 32));
  out.lo = std::min(out.lo, static_cast<std::uint32_t>((v - 1) >> 32));  // (v = 0: 0xffffffff)
}

[[gnu::target("avx2,fma")]] Scan scan(const double* x, std::size_t n) {
  ScanLanes lanes;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) lanes.add(_mm256_loadu_pd(x + i));
  Scan out = lanes.lanes();
  for (; i < n; ++i) scan_one(out, x[i]);
  return out;
}

// G levels (sigma[0..G-1]) over n terms: sums[2 k] += sum q (with the
// terms' signs), and with kAbs sums[2 k + 1] += sum q (the magnitudes').
// A block's last group (kLast) ends with its last level, which sums the
// residuals as they are, no sigma (top of the file). Another group keeps
// the residuals in rt, and with kAbs their signs in rs (which may be x,
// y). Without kAbs the terms are extracted with their signs (the method
// holds for signed terms as it does for magnitudes): one operation a
// level fewer.
template <int G, From kFrom, bool kLast, bool kAbs>
[[gnu::target("avx2,fma")]] void levels(const double* x, const double* y, std::size_t n, const double* sigma, double* sums,
                                        double* rt, double* rs) {
  const __m256d sign = _mm256_set1_pd(-0.0), one = _mm256_set1_pd(1.0);
  __m256d sg[G], s[G], a[G];
#pragma GCC unroll 4
  for (int k = 0; k < G; ++k) sg[k] = _mm256_set1_pd(sigma[k]), s[k] = a[k] = _mm256_setzero_pd();
  std::size_t i = 0;
  if constexpr (!kAbs) {
    // Eight terms a step, their sums in two chains (s and, unused here, a):
    // one chain's additions waited on each other, 4 cycles apiece.
    for (; i + 8 <= n; i += 8) {
      __m256d t = _mm256_loadu_pd(x + i), u = _mm256_loadu_pd(x + i + 4);
#pragma GCC unroll 4
      for (int k = 0; k < G; ++k) {
        const bool plain = kLast && k == G - 1;
        const __m256d q = plain ? t : _mm256_sub_pd(_mm256_add_pd(t, sg[k]), sg[k]);
        const __m256d p = plain ? u : _mm256_sub_pd(_mm256_add_pd(u, sg[k]), sg[k]);
        t = _mm256_sub_pd(t, q);
        u = _mm256_sub_pd(u, p);
        s[k] = _mm256_fmadd_pd(q, one, s[k]);
        a[k] = _mm256_fmadd_pd(p, one, a[k]);
      }
      if constexpr (!kLast) _mm256_storeu_pd(rt + i, t), _mm256_storeu_pd(rt + i + 4, u);
    }
  }
  for (; i + 4 <= n; i += 4) {
    __m256d t, o = _mm256_setzero_pd();
    if constexpr (!kAbs) {
      t = _mm256_loadu_pd(x + i);  // (doubles, low parts and residuals alike: signed)
    } else if constexpr (kFrom == From::doubles) {
      const __m256d v = _mm256_loadu_pd(x + i);
      o = _mm256_and_pd(v, sign);
      t = _mm256_andnot_pd(sign, v);
    } else if constexpr (kFrom == From::low_parts) {
      o = _mm256_and_pd(_mm256_loadu_pd(y + i), sign);
      t = _mm256_xor_pd(_mm256_loadu_pd(x + i), o);
    } else {
      t = _mm256_loadu_pd(x + i);
      o = _mm256_loadu_pd(y + i);
    }
    // (the sums as fma(q, 1, sum), the same correctly rounded, and exact,
    // additions: where adds and FMAs have pipes of their own (AMD Zen),
    // the five operations of a level then share four pipes, not two)
#pragma GCC unroll 4
    for (int k = 0; k < G; ++k) {
      const __m256d q = kLast && k == G - 1 ? t : _mm256_sub_pd(_mm256_add_pd(t, sg[k]), sg[k]);
      t = _mm256_sub_pd(t, q);
      if constexpr (kAbs) {
        a[k] = _mm256_fmadd_pd(q, one, a[k]);
        s[k] = _mm256_fmadd_pd(_mm256_xor_pd(q, o), one, s[k]);
      } else {
        s[k] = _mm256_fmadd_pd(q, one, s[k]);
      }
    }
    if constexpr (!kLast) {
      _mm256_storeu_pd(rt + i, t);
      if constexpr (kAbs) _mm256_storeu_pd(rs + i, o);
    }
  }
  for (int k = 0; k < G; ++k) {
    alignas(32) double ls[4], la[4];
    _mm256_store_pd(ls, s[k]);
    _mm256_store_pd(la, a[k]);
    sums[2 * k] += (ls[0] + ls[1]) + (ls[2] + ls[3]);
    if constexpr (kAbs) sums[2 * k + 1] += (la[0] + la[1]) + (la[2] + la[3]);
    else sums[2 * k] += (la[0] + la[1]) + (la[2] + la[3]);  // (the second chain)
  }
  for (; i < n; ++i) {  // the last terms one at a time, the same operations
    std::uint64_t o = 0;
    double t;
    if constexpr (!kAbs) {
      t = x[i];
    } else if constexpr (kFrom == From::doubles) {
      o = std::bit_cast<std::uint64_t>(x[i]) & kSign;
      t = std::fabs(x[i]);
    } else if constexpr (kFrom == From::low_parts) {
      o = std::bit_cast<std::uint64_t>(y[i]) & kSign;
      t = with_sign(x[i], o);
    } else {
      t = x[i];
      o = std::bit_cast<std::uint64_t>(y[i]);
    }
    for (int k = 0; k < G; ++k) {
      const double q = kLast && k == G - 1 ? t : (t + sigma[k]) - sigma[k];
      t -= q;
      if constexpr (kAbs) sums[2 * k + 1] += q;
      sums[2 * k] += with_sign(q, o);
    }
    if constexpr (!kLast) {
      rt[i] = t;
      if constexpr (kAbs) rs[i] = std::bit_cast<double>(o);
    }
  }
}

// Every level of a block: groups of three levels, the first from the
// block's terms, the later ones from the residuals (in rt, rs), and a last
// group of up to four. (Four extracting levels need 17 vector registers of
// AVX2's 16: a sum spilled to memory, its additions a store-forwarding
// chain, three measured 10-15% faster; a last level of plain sums needs
// no sigma, so the last group holds four.)
template <From kFrom, bool kAbs, int... G>
void run_levels(const double* x, const double* y, std::size_t n, const Levels& lv, double* sums, double* rt, double* rs,
                std::integer_sequence<int, G...>) {
  using Fn = void (*)(const double*, const double*, std::size_t, const double*, double*, double*, double*);
  // [from the residuals][the last group's size - 1]
  static constexpr Fn kLastGroup[2][sizeof...(G)] = {{levels<G + 1, kFrom, true, kAbs>...},
                                                    {levels<G + 1, From::residuals, true, kAbs>...}};
  int k = 0;
  for (; lv.count - k > 4; k += 3)
    (k == 0 ? levels<3, kFrom, false, kAbs> : levels<3, From::residuals, false, kAbs>)(
        k == 0 ? x : rt, k == 0 ? y : rs, n, lv.sigma + k, sums + 2 * k, rt, rs);
  kLastGroup[k > 0][lv.count - k - 1](k == 0 ? x : rt, k == 0 ? y : rs, n, lv.sigma + k, sums + 2 * k, rt, rs);
}
template <From kFrom>
void run_levels(const double* x, const double* y, std::size_t n, const Levels& lv, double* sums, double* rt, double* rs,
                bool abs) {
  if (abs) run_levels<kFrom, true>(x, y, n, lv, sums, rt, rs, std::make_integer_sequence<int, 4>());
  else run_levels<kFrom, false>(x, y, n, lv, sums, rt, rs, std::make_integer_sequence<int, 4>());
}

// p = fl(a b), e = a b - p for n pairs (a, b, a, b, ...), p's scan and
// whether some e is nonzero; false where a p is not finite, or is below
// 2^-968 without a zero factor (e could round, or the product underflow
// to 0). The first two read from p's scan (its smallest binade may read
// one lower: a block with a p of exactly 2^-968 may go to the scalar
// path); a zero p is checked for its zero factor only where there is one.
// The low parts need no scan of their own (add_products_extracted). (The
// scan here, not in passes of its own, and no compares for the checks:
// two thirds of this function's operations.)
// (The products of four pairs come out in the order 0, 2, 1, 3: the
// sums do not depend on it.)
[[gnu::target("avx2,fma")]] bool two_products(const double* pairs, std::size_t n, double* p, double* e, Scan& sp,
                                              bool& some_e) {
  __m256d zero_p = _mm256_setzero_pd(), any_e = _mm256_setzero_pd();
  ScanLanes lp;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d v0 = _mm256_loadu_pd(pairs + 2 * i), v1 = _mm256_loadu_pd(pairs + 2 * i + 4);
    const __m256d a = _mm256_unpacklo_pd(v0, v1), b = _mm256_unpackhi_pd(v0, v1);
    const __m256d pr = _mm256_mul_pd(a, b), er = _mm256_fmsub_pd(a, b, pr);
    _mm256_storeu_pd(p + i, pr);
    _mm256_storeu_pd(e + i, er);
    lp.add(pr);
    any_e = _mm256_or_pd(any_e, er);  // (the bits of every e: 0 or -0 where all are zero)
    zero_p = _mm256_or_pd(zero_p, _mm256_cmp_pd(pr, _mm256_setzero_pd(), _CMP_EQ_OQ));
  }
  sp = lp.lanes();
  bool any_zero = _mm256_movemask_pd(zero_p) != 0;
  const __m256i e_bits = _mm256_castpd_si256(_mm256_andnot_pd(_mm256_set1_pd(-0.0), any_e));
  some_e = !_mm256_testz_si256(e_bits, e_bits);
  for (; i < n; ++i) {
    const double a = pairs[2 * i], b = pairs[2 * i + 1];
    p[i] = a * b;
    e[i] = std::fma(a, b, -p[i]);
    scan_one(sp, p[i]);
    some_e |= e[i] != 0;
    any_zero |= p[i] == 0;
  }
  if (!sp.finite() || (!sp.all_zero() && sp.lo_binade() < -968)) return false;
  // (p is in the order above: the products again, from the pairs)
  if (any_zero)
    for (std::size_t k = 0; k < n; ++k) {
      const double a = pairs[2 * k], b = pairs[2 * k + 1];
      if (a * b == 0 && a != 0 && b != 0) return false;
    }
  return true;
}

#endif  // KC_EXTRACT_AVX2

}  // namespace

bool ExactSum::extraction_available() {
#ifdef KC_EXTRACT_AVX2
  return cpu_has_avx2_fma() && !scalar_only.load(std::memory_order_relaxed);
#else
  return false;
#endif
}

void ExactSum::set_scalar_only(bool on) { scalar_only.store(on, std::memory_order_relaxed); }

void ExactSum::add_level_sums(const double* sums, int levels, std::size_t n, ExactSum* abs) {
  // (each sum a finite double: at most 2^1023)
  add_exact_doubles(sums, levels);
  if (abs) abs->add_exact_doubles(sums + 1, levels);
  // (a block taken here has a nonzero term: its sum is not -0)
  for (ExactSum* s : {this, abs})
    if (s) s->terms_ += static_cast<std::int64_t>(n), s->extracted_ += static_cast<std::int64_t>(n), s->all_negative_zero_ = false;
}

std::size_t ExactSum::add_all_extracted(const double* v, std::size_t n, ExactSum* abs) {
#ifdef KC_EXTRACT_AVX2
  double rt[kBlock], rs[kBlock];
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    const Scan sc = scan(v + start, len);
    Levels lv;
    if (!sc.finite() || sc.all_zero() || !plan_levels(len, sc.hi_binade(), sc.lo_binade(), lv)) return start;
    double sums[2 * kMaxLevels];
    std::fill(sums, sums + 2 * lv.count, 0.0);
    run_levels<From::doubles>(v + start, nullptr, len, lv, sums, rt, rs, abs != nullptr);
    add_level_sums(sums, lv.count, len, abs);
  }
  return n;
#else
  (void)v, (void)n, (void)abs;
  return 0;
#endif
}

std::size_t ExactSum::add_products_extracted(const double* pairs, std::size_t n, ExactSum* abs) {
#ifdef KC_EXTRACT_AVX2
  double p[kBlock], e[kBlock], rt[kBlock], rs[kBlock];
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    Scan sp;
    bool some_e = false;
    if (!two_products(pairs + 2 * start, len, p, e, sp, some_e)) return start;
    // The low parts' plan from p's scan (exact_sum.h, kLowPartTop and
    // kLowPartQuantum): every e at most 2^(hi_p - kLowPartTop), a binade
    // bound, and a multiple of 2^(lo_p - kLowPartQuantum), the quantum of
    // binade lo_p - kLowPartQuantum + 52 (a zero factor's e is 0). (A scan
    // of e cost a sixth of a 64-term f64 sum.)
    Levels lp, le;
    if (sp.all_zero() || !plan_levels(len, sp.hi_binade(), sp.lo_binade(), lp) ||
        (some_e && !plan_levels(len, sp.hi_binade() - kLowPartTop, sp.lo_binade() - kLowPartQuantum + 52, le)))
      return start;
    // (the high parts' levels, then the low parts', added at once: one
    // window holds both where it can)
    const int levels = lp.count + (some_e ? le.count : 0);
    double sums[4 * kMaxLevels];
    std::fill(sums, sums + 2 * levels, 0.0);
    run_levels<From::doubles>(p, nullptr, len, lp, sums, rt, rs, abs != nullptr);
    if (some_e) run_levels<From::low_parts>(e, p, len, le, sums + 2 * lp.count, rt, rs, abs != nullptr);
    add_level_sums(sums, levels, len, abs);
  }
  return n;
#else
  (void)pairs, (void)n, (void)abs;
  return 0;
#endif
}

}  // namespace kc::oracle
