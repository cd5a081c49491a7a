// Exact sums of doubles and of products of two doubles, without MPFR per
// term: a fixed-point (Kulisch) accumulator wide enough for every such
// product. The oracle of the arithmetic folds (matmul, conv, cumsum,
// index_add, scatter_add, pad_backward) sums its terms here and rounds the
// sum once, into an MPFR number of any precision, at the end.
//
// Why it is exact. A finite double is m 2^e with an integer m < 2^53 and
// e >= -1074 (the subnormal quantum); a product of two is m1 m2 2^(e1+e2)
// with m1 m2 < 2^106 (one 128-bit integer product) and e1 + e2 >= -2148.
// So every term is an integer multiple of the unit 2^-2148, and the
// largest is below 2^2048. The sum is kept as sum_j C_j 2^(32 j) units,
// C_j signed 128-bit integers ("chunks", after Neal's small
// superaccumulator): a term m 2^e (m < 2^53 signed) adds m 2^(o mod 32)
// (< 2^85) to chunk o / 32, o = e + 2148 its offset in units; a product's
// 106-bit significand is added as its two 53-bit halves. No addition
// rounds, and none carries between chunks: a chunk takes 2^42 terms before
// it could overflow, and every 2^40 terms (and before rounding) the chunks
// are normalized, carries moved up, to digits 0 <= C_j < 2^32 and a top
// chunk of 0 or -1 (the sign). 140 chunks hold 4480 bits from 2^-2148,
// room above 2^2048 for the carries of 2^64 terms. The normalized sum, an
// integer times 2^-2148, is rounded once by mpfr_set_z_2exp, which rounds
// correctly: the result is the one mpfr_sum gives for the exactly computed
// products (tests/exact_sum_test.cpp holds both equal).
//
// Terms of f32, bf16 and f16 are doubles too (exactly); so are their
// products (24 + 24 bits, exponents within double's normal range), for
// which add() of the double product is the cheaper way in.
//
// Special values: an infinite term makes the sum an infinity of its sign,
// both signs or a NaN term (or inf x 0) make it NaN, as IEEE sums do and
// mpfr_sum does. An exact zero sum is +0, unless every term was -0 (then
// -0): IEEE round-to-nearest, and mpfr_sum's rule.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include <mpfr.h>

namespace kc::oracle {

class ExactSum {
 public:
  static constexpr int kUnitExponent = -2148;  // 2^-1074 squared
  static constexpr int kChunks = 140;          // of 32 bits from 2^-2148

  void clear();
  // One term x (a double: any dtype's value is one exactly).
  void add(double x) {
    Parts p;
    if (!decompose(x, p)) return special(x);
    note_term(p.m == 0, p.neg);
    if (window_adds_ != 0) flush_window();
    add_parts(p);
  }
  // One term a b, the product taken exactly: m_a m_b < 2^106 as one
  // 128-bit product, added as its halves of 53 bits.
  void add_product(double a, double b) {
    Parts pa, pb;
    const bool fa = decompose(a, pa), fb = decompose(b, pb);
    if (!fa || !fb) return special_product(a, b);
    const unsigned __int128 m = static_cast<unsigned __int128>(pa.m) * pb.m;
    const bool neg = pa.neg != pb.neg;
    note_term(m == 0, neg);
    if (window_adds_ != 0) flush_window();
    const auto lo = static_cast<std::int64_t>(m & kLow53), hi = static_cast<std::int64_t>(m >> 53);
    const int o = pa.e + pb.e - kUnitExponent;
    add_at(neg ? -lo : lo, o);
    add_at(neg ? -hi : hi, o + 53);
  }
  std::int64_t terms() const { return terms_; }
  // Of those, the ones the bulk calls took by extraction (below).
  std::int64_t terms_extracted() const { return extracted_; }

  // Many terms in one call, the same sums as add() and add_product() one at
  // a time, cheaper per term (a dot oracle's terms, 10^5 and more per
  // case; bench/exact_sum_bench.cpp): the positive and the negative terms
  // go unsigned into split chunks of their own and are folded into the
  // chunks once per call, where their difference is the sum and their sum
  // the magnitudes' (`abs`, when given, receives it); add_all's doubles
  // from 16 terms first into bins of one binade each (Neal's large
  // superaccumulator: an add and a count per term, no shift).
  // Terms: doubles (f32, bf16 and f16 products are doubles exactly).
  void add_all(const double* terms, std::size_t n, ExactSum* abs = nullptr);
  // a_k b_k for the pairs (a_0, b_0, a_1, b_1, ...), each product exact.
  void add_products(const double* pairs, std::size_t n_pairs, ExactSum* abs = nullptr);

  // The bulk calls' paths: error-free extraction eight terms at a time
  // (AVX-512), four at a time (AVX2 and FMA; oracles/exact_sum_extract.cpp),
  // or the scalar paths alone. Every path gives the same sums, bit for bit
  // (they are exact), so a results document does not depend on which the
  // CPU has (tests/exact_sum_paths_test.sh runs the default run's exact-sum
  // kernels on each and compares the documents). By default the widest
  // this CPU has, or the one the environment variable KC_EXACT_SUM_PATH
  // names (extract8, extract4 or scalar), read once: a whole run on one
  // path. use_path picks another the CPU has (the tests hold each equal to
  // MPFR, the benchmarks time each), use_default_path goes back to the default.
  enum class Path { extract8, extract4, scalar };
  static bool has_path(Path p);
  static void use_path(Path p);  // (a path the CPU does not have: no change)
  static void use_default_path();
  // (a KC_EXACT_SUM_PATH that path_setting_error() refuses: throws std::runtime_error)
  static Path path();
  // Why KC_EXACT_SUM_PATH names no path this CPU has (an unknown name, or
  // a path the CPU or the build lacks); empty where it is unset, empty or
  // fine. kconform checks it at start-up (exit 2).
  static const std::string& path_setting_error();
  // The bulk calls (add_all, add_products: the only ones a path serves)
  // this thread has made: a result whose grading made none is the same
  // on every path by construction; tests/conformance_test.cpp reruns
  // every one that made some on each path.
  static std::int64_t bulk_calls();
  static bool extraction_available() { return path() != Path::scalar; }
  // Where a product's low part lies, which plans its levels without a scan
  // of its own: for a b with p = fl(a b) normal, e = a b - p has |e| <=
  // ulp(p)/2 = 2^(binade(p) - kLowPartTop), and is a multiple of ulp(a)
  // ulp(b) = 2^(qa + qb), q = max(binade, -1022) - 52 >= binade - 52 (a
  // subnormal's too); (2^(ea + 1) - 2^(ea - 52)) (2^(eb + 1) - 2^(eb - 52))
  // lies more than half an ulp below 2^(ea + eb + 2), so binade(p) <= ea +
  // eb + 1 and qa + qb >= binade(p) - kLowPartQuantum. Both are attained
  // (tests/exact_sum_test.cpp).
  static constexpr int kLowPartTop = 53, kLowPartQuantum = 105;

  // The sum rounded into `out` (at out's precision) in mode rnd; returns
  // MPFR's ternary value (0: the sum is exactly out). Normalizes the
  // chunks first (the sum is unchanged).
  int round_into(mpfr_ptr out, mpfr_rnd_t rnd);

 private:
  static constexpr std::uint64_t kLow53 = (std::uint64_t{1} << 53) - 1;
  static constexpr std::int64_t kNormalizeEvery = std::int64_t{1} << 40;
  struct Parts {
    std::uint64_t m;  // the integer significand (0 for a zero)
    int e;            // the value is m 2^e
    bool neg;
  };
  // False for an infinity or a NaN.
  static bool decompose(double x, Parts& p) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    const auto biased = static_cast<int>((bits >> 52) & 0x7ff);
    const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
    if (biased == 0x7ff) return false;
    p.neg = bits >> 63;
    p.m = biased ? frac | (std::uint64_t{1} << 52) : frac;
    p.e = biased ? biased - 1075 : -1074;
    return true;
  }
  void note_term(bool zero, bool neg) {
    all_negative_zero_ &= zero && neg;
    ++terms_;
    if (++load_ >= kNormalizeEvery) normalize();
  }
  // v 2^o units (|v| <= 2^53, o >= 0) into its chunk.
  void add_at(std::int64_t v, int o) {
    const auto j = static_cast<unsigned>(o) >> 5;
    chunks_[j] += static_cast<__int128>(v) * (std::int64_t{1} << (o & 31));
    lo_ = j < lo_ ? j : lo_;
    hi_ = j > hi_ ? j : hi_;
  }
  // A finite double's value, uncounted.
  void add_parts(const Parts& p) {
    add_at(p.neg ? -static_cast<std::int64_t>(p.m) : static_cast<std::int64_t>(p.m), p.e - kUnitExponent);
  }
  // Carries moved up: chunks lo_..hi_ - 1 become digits in [0, 2^32), the
  // top one (hi_) 0 or -1.
  void normalize();
  void special(double x);
  void special_product(double a, double b);
  void make_room(std::int64_t load, ExactSum* abs);
  // The extraction paths (oracles/exact_sum_extract.cpp): the terms they
  // took, a prefix of the n (the rest are for the scalar paths).
  std::size_t add_all_extracted(const double* v, std::size_t n, ExactSum* abs);
  std::size_t add_products_extracted(const double* pairs, std::size_t n, ExactSum* abs);
  // A block's level sums (sums[2 k]: the sum, sums[2 k + 1]: the
  // magnitudes'), each an integer multiple of 2^ulps[k] at most 2^(ulps[k]
  // + 53) in magnitude (exact_sum_extract.cpp), into the window or the
  // chunks; n terms more.
  void add_level_sums(const double* sums, const int* ulps, int levels, std::size_t n, ExactSum* abs);
  // The values m[k] 2^e[k] (|m[k]| <= 2^53), count of them, into the
  // window where it can take them (below), else into the chunks; lo and
  // top their span: the lowest e[k] and the highest e[k] + 53.
  void add_integers(const std::int64_t* m, const int* e, int count, int lo, int top);
  // The window's value into the chunks (the window then unused).
  void flush_window();
  // The window's value rounded into out (round_into where it is in use).
  int round_window_into(mpfr_ptr out, mpfr_rnd_t rnd);
  template <bool kAbs>
  void add_binned(const double* v, std::size_t n, ExactSum* abs);
  template <bool kProducts, bool kAbs>
  void add_split(const double* v, std::size_t n, ExactSum* abs);
  // The split chunks [lo, hi] folded into the chunks (their difference)
  // and abs's (their sum), zeroed; `counted` terms more.
  template <bool kAbs>
  void finish_split(unsigned lo, unsigned hi, std::uint64_t not_negative_zero, std::int64_t counted, ExactSum* abs);

  // A short sum's window: the level sums of the extraction path, where
  // they are all the sum holds (a dot product of up to 256 terms: one
  // block's few doubles), kept as sum_j W_j 2^(window_base_ + 64 j), W_j
  // signed 128-bit, and rounded from there: a few shifts and adds where the
  // chunks cost a decomposition per sum, a normalization over every chunk
  // touched and a clear (a fifth of a 64^3 matmul oracle's time;
  // bench/exact_sum_bench.cpp). The window is in use while window_adds_ >
  // 0, and only while the chunks are zero: every path that adds to the
  // chunks moves the window there first (flush_window). Headroom: a value
  // m 2^e (|m| <= 2^53) added at offset d = e - base adds |m| 2^(d mod 64)
  // <= 2^116 to cell d / 64; at most kWindowAdds = 2^10 of them keep a
  // cell within 2^126. Every value is taken with e + 53 at most
  // kWindowBits - 16 above the base, so the sum, at most 2^10 times that,
  // is within 2^(64 kWindowCells - 6) units: the carries out of the top
  // cell are only the sign (0 or -1) when it is rounded.
  static constexpr int kWindowCells = 6;
  static constexpr int kWindowBits = 64 * kWindowCells;
  static constexpr int kWindowAdds = 1 << 10;
  std::array<__int128, kWindowCells> window_{};
  int window_base_ = 0;
  int window_adds_ = 0;
  std::array<__int128, kChunks> chunks_{};
  // The bulk calls' positive terms (the first kChunks) and negative ones
  // (the rest), apart (add_split); zero between calls.
  std::array<unsigned __int128, 2 * kChunks> split_{};
  // add_all's bins, one per sign and biased exponent (add_binned); zero
  // between calls.
  static constexpr std::size_t kBinBlock = 2048;
  static constexpr std::size_t kBinsFrom = 16;  // add_all's terms from which the bins pay (bench/exact_sum_bench.cpp)
  std::array<std::uint64_t, 4096> bin_fractions_{};
  std::array<std::uint16_t, 4096> bin_count_{};
  std::array<std::uint16_t, kBinBlock> bin_listed_{};
  unsigned lo_ = kChunks, hi_ = 0;  // the chunks touched: [lo_, hi_]
  std::int64_t terms_ = 0, extracted_ = 0;
  // What the chunks took since they were last normalized, in units of 2^85
  // per chunk (one term's most): normalized before it reaches 2^40, so a
  // chunk stays below 2^32 + 2^125 < 2^127.
  std::int64_t load_ = 0;
  bool all_negative_zero_ = true;
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
};

}  // namespace kc::oracle
