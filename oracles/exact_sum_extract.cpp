// ExactSum's bulk calls by error-free extraction, eight terms at a time
// (AVX-512) or four (AVX2 and FMA), chosen at run time; the scalar paths
// of exact_sum.cpp elsewhere and for the terms this method does not take.
// The vector code is written once (oracles/exact_sum_lanes.inc) and
// compiled here for each width.
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
#include <climits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/cpu.h"

// (GCC: the widths' code is compiled under #pragma GCC target, which clang
// does not take; a clang build has the scalar paths, and the [[maybe_unused]]
// below are what only the vector code uses)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define KC_EXTRACT_AVX2 1
#include <immintrin.h>
#endif

namespace kc::oracle {

namespace {

[[maybe_unused]] constexpr std::size_t kBlock = 256;   // terms per block: M <= 8, 45 bits a level
constexpr int kMaxLevels = 48;        // (2046 + 53 + 8) bits at 45 a level, and room
[[maybe_unused]] constexpr std::uint64_t kSign = std::uint64_t{1} << 63;

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
  int ulp[kMaxLevels];  // s - 53: the level's sum is a multiple of 2^ulp, at most 2^(ulp + 53) (the method)
};
[[maybe_unused, gnu::always_inline]] inline bool plan_levels(std::size_t n, int hi, int lo, Levels& out) {
  const int m = std::max(1, static_cast<int>(std::bit_width(n - 1)));
  const int quantum = lo - 52;
  // (a subnormal hi, taken as -1022: every term is below 2^-1022 <=
  // 2^(s - m), and s = -1022 anyway)
  int s = std::max(hi + 1 + m, -1022);
  if (s > 1023) return false;
  out.count = 0;
  for (;;) {
    out.ulp[out.count] = s - 53;
    out.sigma[out.count++] = power_of_two(s);
    if (s - 53 <= quantum) return true;  // (always at s = -1022: quantum >= -1074)
    s = std::max(s - (53 - m), -1022);
  }
}

[[maybe_unused]] double with_sign(double x, std::uint64_t sign) { return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) ^ sign); }

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

void scan_one(Scan& out, double x) {
  const std::uint64_t v = std::bit_cast<std::uint64_t>(x) & ~kSign;
  out.hi = std::max(out.hi, static_cast<std::uint32_t>(v >> 32));
  out.lo = std::min(out.lo, static_cast<std::uint32_t>((v - 1) >> 32));  // (v = 0: 0xffffffff)
}

// A width's entry points: the block scan, the products, the levels of a
// block of doubles and of a block of low parts (abs: with the magnitudes'
// sums), and the products' two streams in one pass.
struct Extraction {
  Scan (*scan)(const double* x, std::size_t n);
  bool (*two_products)(const double* pairs, std::size_t n, double* p, double* e, Scan& sp, bool& some_e);
  void (*levels_of_doubles)(const double* x, const double* y, std::size_t n, const Levels& lv, double* sums, double* rt,
                            double* rs, bool abs);
  void (*levels_of_low_parts)(const double* x, const double* y, std::size_t n, const Levels& lv, double* sums,
                              double* rt, double* rs, bool abs);
  void (*levels_of_pairs)(const double* x, const double* y, std::size_t n, int g, const double* sigma, double* sums);
};

// Each width's code in a namespace of its own, compiled for its
// instructions (the pragma applies to every function the file defines,
// templates too) and taken only where the CPU has them (has_path).
namespace lanes4 {
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define KC_LANES 4
#include "oracles/exact_sum_lanes.inc"
#undef KC_LANES
#pragma GCC pop_options
}  // namespace lanes4

namespace lanes8 {
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx2,fma")
#define KC_LANES 8
#include "oracles/exact_sum_lanes.inc"
#undef KC_LANES
#pragma GCC pop_options
}  // namespace lanes8

#endif  // KC_EXTRACT_AVX2

}  // namespace

bool ExactSum::has_path(Path p) {
#ifdef KC_EXTRACT_AVX2
  switch (p) {
    case Path::extract8: return cpu_has_avx512();
    case Path::extract4: return cpu_has_avx2_fma();
    case Path::scalar: return true;
  }
#endif
  return p == Path::scalar;
}

namespace {
// The path use_path chose; -1: the process's default (default_path()).
std::atomic<int> chosen_path{-1};

// KC_EXACT_SUM_PATH, read once (the first path() or path_setting_error()):
// the path it names, or the reason it names none this CPU has.
struct Setting {
  std::optional<ExactSum::Path> path;
  std::string error;
};
const Setting& setting() {
  static const Setting s = [] {
    Setting r;
    const char* v = std::getenv("KC_EXACT_SUM_PATH");
    if (v == nullptr || *v == '\0') return r;
    const std::string name(v);
    using P = ExactSum::Path;
    const std::optional<P> p = name == "extract8" ? std::optional(P::extract8)
                               : name == "extract4" ? std::optional(P::extract4)
                               : name == "scalar"   ? std::optional(P::scalar)
                                                    : std::nullopt;
    if (!p) {
      r.error = "KC_EXACT_SUM_PATH=" + name + " is not a path of the exact sums (extract8, extract4 or scalar)";
    } else if (!ExactSum::has_path(*p)) {
      r.error = "KC_EXACT_SUM_PATH=" + name + ": this CPU (or build) has no such path (extract8 needs AVX-512 F and DQ, "
                "extract4 AVX2 and FMA, both a GCC build for x86-64)";
    } else {
      r.path = p;
    }
    return r;
  }();
  return s;
}
ExactSum::Path default_path() {
  static const ExactSum::Path p = [] {
    using P = ExactSum::Path;
    if (!setting().error.empty()) throw std::runtime_error(setting().error);
    if (setting().path) return *setting().path;
    return ExactSum::has_path(P::extract8) ? P::extract8 : ExactSum::has_path(P::extract4) ? P::extract4 : P::scalar;
  }();
  return p;
}
}  // namespace

const std::string& ExactSum::path_setting_error() { return setting().error; }

void ExactSum::use_path(Path p) {
  if (has_path(p)) chosen_path.store(static_cast<int>(p), std::memory_order_relaxed);
}
void ExactSum::use_default_path() { chosen_path.store(-1, std::memory_order_relaxed); }

ExactSum::Path ExactSum::path() {
  const int p = chosen_path.load(std::memory_order_relaxed);
  return p < 0 ? default_path() : static_cast<Path>(p);
}

#ifdef KC_EXTRACT_AVX2
namespace {
// The path's vector code; none on the scalar path.
const Extraction* extraction(ExactSum::Path p) {
  return p == ExactSum::Path::extract8 ? &lanes8::kExtraction : p == ExactSum::Path::extract4 ? &lanes4::kExtraction : nullptr;
}
}  // namespace
#endif

void ExactSum::add_level_sums(const double* sums, const int* ulps, int levels, std::size_t n, ExactSum* abs) {
  // Each sum as the integer m = sum 2^-ulp, |m| <= 2^53: a product by a
  // power of two, exact (a double), then its conversion, exact (an
  // integer); where 2^-ulp is past the doubles (ulp < -1023), from the
  // sum's own bits, m < 2^53 (a finite double is that, at its exponent).
  // (A decomposition of each sum cost a tenth of a 64-term f64 sum.)
  std::int64_t m[2 * kMaxLevels];
  int e[2 * kMaxLevels];
  for (ExactSum* s : {this, abs}) {
    if (!s) continue;
    const double* v = sums + (s == abs);
    int lo = INT_MAX, top = INT_MIN;  // (the span, for add_integers)
    for (int k = 0; k < levels; ++k) {
      if (ulps[k] >= -1023) {
        m[k] = static_cast<std::int64_t>(v[2 * k] * power_of_two(-ulps[k]));
        e[k] = ulps[k];
      } else {
        Parts p{};
        decompose(v[2 * k], p);
        m[k] = p.neg ? -static_cast<std::int64_t>(p.m) : static_cast<std::int64_t>(p.m);
        e[k] = p.e;
      }
      lo = std::min(lo, e[k]), top = std::max(top, e[k] + 53);
    }
    s->add_integers(m, e, levels, lo, top);
    // (a block taken here has a nonzero term: its sum is not -0)
    s->terms_ += static_cast<std::int64_t>(n), s->extracted_ += static_cast<std::int64_t>(n), s->all_negative_zero_ = false;
  }
}

std::size_t ExactSum::add_all_extracted(const double* v, std::size_t n, ExactSum* abs) {
#ifdef KC_EXTRACT_AVX2
  const Extraction* const path_code = extraction(path());
  if (!path_code) return 0;
  const Extraction& x = *path_code;
  double rt[kBlock], rs[kBlock];
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    const Scan sc = x.scan(v + start, len);
    Levels lv;
    if (!sc.finite() || sc.all_zero() || !plan_levels(len, sc.hi_binade(), sc.lo_binade(), lv)) return start;
    double sums[2 * kMaxLevels];  // (levels writes each)
    x.levels_of_doubles(v + start, nullptr, len, lv, sums, rt, rs, abs != nullptr);
    add_level_sums(sums, lv.ulp, lv.count, len, abs);
  }
  return n;
#else
  (void)v, (void)n, (void)abs;
  return 0;
#endif
}

std::size_t ExactSum::add_products_extracted(const double* pairs, std::size_t n, ExactSum* abs) {
#ifdef KC_EXTRACT_AVX2
  const Extraction* const path_code = extraction(path());
  if (!path_code) return 0;
  const Extraction& x = *path_code;
  double p[kBlock], e[kBlock], rt[kBlock], rs[kBlock];
  for (std::size_t start = 0; start < n; start += kBlock) {
    const std::size_t len = std::min(kBlock, n - start);
    Scan sp;
    bool some_e = false;
    if (!x.two_products(pairs + 2 * start, len, p, e, sp, some_e)) return start;
    // The low parts' plan from p's scan (exact_sum.h, kLowPartTop and
    // kLowPartQuantum): every e at most 2^(hi_p - kLowPartTop), a binade
    // bound, and a multiple of 2^(lo_p - kLowPartQuantum), the quantum of
    // binade lo_p - kLowPartQuantum + 52 (a zero factor's e is 0). (A scan
    // of e cost a sixth of a 64-term f64 sum.)
    Levels lp, le;
    if (sp.all_zero() || !plan_levels(len, sp.hi_binade(), sp.lo_binade(), lp)) return start;
    double sums[4 * kMaxLevels];  // (levels writes each)
    static_assert(kLowPartTop == kLowPartQuantum - 52, "the low parts' plan is the high parts' moved");
    if (!abs && some_e && lp.count <= 4 && lp.ulp[lp.count - 1] >= -1022 + kLowPartTop - 53) {
      // Both streams in one pass (levels_of_pairs). The low parts' plan is
      // the high parts' 2^-kLowPartTop lower: both span hi - lo + M + 53
      // bits, from 2^(hi + 1 + M) and 2^(hi - kLowPartTop + 1 + M) down to
      // their quanta, 2^(lo - 52) and 2^(lo - kLowPartQuantum), as long as
      // no s of the lower stops at -1022 (the high parts' last s,
      // ulp + 53, at least -1022 + kLowPartTop).
      // (the low parts' levels after the high parts' in lp's arrays)
      const int g = lp.count;
      for (int k = 0; k < g; ++k) lp.sigma[g + k] = lp.sigma[k] * power_of_two(-kLowPartTop), lp.ulp[g + k] = lp.ulp[k] - kLowPartTop;
      x.levels_of_pairs(p, e, len, g, lp.sigma, sums);
      add_level_sums(sums, lp.ulp, 2 * g, len, abs);
      continue;
    }
    if (some_e && !plan_levels(len, sp.hi_binade() - kLowPartTop, sp.lo_binade() - kLowPartQuantum + 52, le)) return start;
    // (the high parts' levels, then the low parts', added at once: one
    // window holds both where it can)
    const int levels = lp.count + (some_e ? le.count : 0);
    int ulps[2 * kMaxLevels];
    std::copy(lp.ulp, lp.ulp + lp.count, ulps);
    std::copy(le.ulp, le.ulp + (some_e ? le.count : 0), ulps + lp.count);
    x.levels_of_doubles(p, nullptr, len, lp, sums, rt, rs, abs != nullptr);
    if (some_e) x.levels_of_low_parts(e, p, len, le, sums + 2 * lp.count, rt, rs, abs != nullptr);
    add_level_sums(sums, ulps, levels, len, abs);
  }
  return n;
#else
  (void)pairs, (void)n, (void)abs;
  return 0;
#endif
}

}  // namespace kc::oracle
