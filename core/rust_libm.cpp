#include "core/rust_libm.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace kc::rust_libm {

namespace {

// Coefficients as bit patterns (msun's published values, high and low words).
constexpr double bits(std::uint64_t b) { return std::bit_cast<double>(b); }

std::uint32_t high_word(double x) { return static_cast<std::uint32_t>(std::bit_cast<std::uint64_t>(x) >> 32); }
double low_word_cleared(double x) { return bits(std::bit_cast<std::uint64_t>(x) & 0xffffffff00000000ull); }

// c[0] + s (c[1] + s (c[2] + ... + s c[N-1])), innermost first: the crate's
// nesting, one rounding per operation (this file builds without FMA
// contraction, like everything in kconform).
template <std::size_t N>
double nested(double s, const std::array<double, N>& c) {
  double acc = c[N - 1];
  for (std::size_t i = N - 1; i-- > 0;) acc = c[i] + s * acc;
  return acc;
}

// musl's scalbn: x 2^n with one rounding, the subnormal range reached in
// steps that keep the last multiplication the only inexact one.
double scalbn(double x, int n) {
  const double two1023 = bits(0x7fe0000000000000), two_969 = bits(0x0010000000000000) * bits(0x4340000000000000);
  double y = x;
  if (n > 1023) {
    y *= two1023, n -= 1023;
    if (n > 1023) {
      y *= two1023, n -= 1023;
      if (n > 1023) n = 1023;
    }
  } else if (n < -1022) {
    y *= two_969, n += 1022 - 53;
    if (n < -1022) {
      y *= two_969, n += 1022 - 53;
      if (n < -1022) n = -1022;
    }
  }
  return y * bits(static_cast<std::uint64_t>(0x3ff + n) << 52);
}

// e_exp.c
constexpr double kLn2Hi = bits(0x3fe62e42fee00000), kLn2Lo = bits(0x3dea39ef35793c76),
                 kInvLn2 = bits(0x3ff71547652b82fe);
constexpr std::array<double, 5> kExpP{bits(0x3fc555555555553e), bits(0xbf66c16c16bebd93), bits(0x3f11566aaf25de2c),
                                      bits(0xbebbbd41c5d26bf1), bits(0x3e66376972bea4d0)};

// s_erf.c
constexpr double kErx = bits(0x3feb0ac160000000), kEfx8 = bits(0x3ff06eba8214db69);
constexpr std::array<double, 5> kPp{bits(0x3fc06eba8214db68), bits(0xbfd4cd7d691cb913), bits(0xbf9d2a51dbd7194f),
                                    bits(0xbf77a291236668e4), bits(0xbef8ead6120016ac)};
constexpr std::array<double, 6> kQq{1.0, bits(0x3fd97779cddadc09), bits(0x3fb0a54c5536ceba),
                                    bits(0x3f74d022c4d36b0f), bits(0x3f215dc9221c1a10), bits(0xbed09c4342a26120)};
constexpr std::array<double, 7> kPa{bits(0xbf6359b8bef77538), bits(0x3fda8d00ad92b34d), bits(0xbfd7d240fbb8c3f1),
                                    bits(0x3fd45fca805120e4), bits(0xbfbc63983d3e28ec), bits(0x3fa22a36599795eb),
                                    bits(0xbf61bf380a96073f)};
constexpr std::array<double, 7> kQa{1.0, bits(0x3fbb3e6618eee323), bits(0x3fe14af092eb6f33),
                                    bits(0x3fb2635cd99fe9a7), bits(0x3fc02660e763351f), bits(0x3f8bedc26b51dd1c),
                                    bits(0x3f888b545735151d)};
constexpr std::array<double, 8> kRa{bits(0xbf843412600d6435), bits(0xbfe63416e4ba7360), bits(0xc0251e0441b0e726),
                                    bits(0xc04f300ae4cba38d), bits(0xc0644cb184282266), bits(0xc067135cebccabb2),
                                    bits(0xc054526557e4d2f2), bits(0xc023a0efc69ac25c)};
constexpr std::array<double, 9> kSa{1.0, bits(0x4033a6b9bd707687), bits(0x4061350c526ae721),
                                    bits(0x407b290dd58a1a71), bits(0x40842b1921ec2868), bits(0x407ad02157700314),
                                    bits(0x405b28a3ee48ae2c), bits(0x401a47ef8e484a93), bits(0xbfaeeff2ee749a62)};
constexpr std::array<double, 7> kRb{bits(0xbf84341239e86f4a), bits(0xbfe993ba70c285de), bits(0xc031c209555f995a),
                                    bits(0xc064145d43c5ed98), bits(0xc083ec881375f228), bits(0xc09004616a2e5992),
                                    bits(0xc07e384e9bdc383f)};
constexpr std::array<double, 8> kSb{1.0, bits(0x403e568b261d5190), bits(0x40745cae221b9f0a),
                                    bits(0x409802eb189d5118), bits(0x40a8ffb7688c246a), bits(0x40a3f219cedf3be6),
                                    bits(0x407da874e79fe763), bits(0xc03670e242712d62)};

// 1 - erf(|x|) for 0.84375 <= |x| < 1.25 (the crate's erfc1).
double erfc_near_one(double x) {
  const double s = std::fabs(x) - 1.0;
  return 1.0 - kErx - nested(s, kPa) / nested(s, kQa);
}

// 1 - erf(|x|) for 0.84375 <= |x| < 6, ix the high word of |x| (erfc2).
double erfc_tail(std::uint32_t ix, double x) {
  if (ix < 0x3ff40000) return erfc_near_one(x);
  x = std::fabs(x);
  const double s = 1.0 / (x * x);
  const bool near = ix < 0x4006db6d;  // |x| < 1/0.35
  const double r = near ? nested(s, kRa) : nested(s, kRb);
  const double big_s = near ? nested(s, kSa) : nested(s, kSb);
  const double z = low_word_cleared(x);
  return exp(-z * z - 0.5625) * exp((z - x) * (z + x) + r / big_s) / x;
}

}  // namespace

double exp(double x) {
  std::uint32_t hx = high_word(x);
  const int sign = static_cast<int>(hx >> 31);
  hx &= 0x7fffffff;
  if (hx >= 0x4086232b) {  // |x| >= 708.39...
    if (std::isnan(x)) return x;
    if (x > 709.782712893383973096) return x * bits(0x7fe0000000000000);  // overflow (inf stays inf)
    if (x < -708.39641853226410622 && x < -745.13321910194110842) return 0.0;
  }
  double hi = 0, lo = 0;
  int k = 0;
  if (hx > 0x3fd62e42) {    // |x| > ln2 / 2
    if (hx >= 0x3ff0a2b2)   // |x| >= 1.5 ln2: k rounds x / ln2 half away from zero (truncating k x/ln2 +- 1/2)
      k = static_cast<int>(kInvLn2 * x + (sign ? -0.5 : 0.5));
    else
      k = 1 - sign - sign;
    hi = x - static_cast<double>(k) * kLn2Hi;  // exact: kLn2Hi has 32 significant bits
    lo = static_cast<double>(k) * kLn2Lo;
    x = hi - lo;
  } else if (hx > 0x3e300000) {  // |x| > 2^-28
    hi = x;
  } else {
    return 1.0 + x;
  }
  const double xx = x * x;
  const double c = x - xx * nested(xx, kExpP);
  const double y = 1.0 + (x * c / (2.0 - c) - lo + hi);
  return k == 0 ? y : scalbn(y, k);
}

double erf(double x) {
  std::uint32_t ix = high_word(x);
  const int sign = static_cast<int>(ix >> 31);
  ix &= 0x7fffffff;
  if (ix >= 0x7ff00000) return 1.0 - 2.0 * sign + 1.0 / x;  // NaN stays NaN, +-inf gives +-1
  if (ix < 0x3feb0000) {                                    // |x| < 0.84375
    if (ix < 0x3e300000) return 0.125 * (8.0 * x + kEfx8 * x);  // |x| < 2^-28: scaled to avoid underflow
    const double z = x * x;
    return x + x * (nested(z, kPp) / nested(z, kQq));
  }
  const double y = ix < 0x40180000 ? 1.0 - erfc_tail(ix, x) : 1.0 - bits(0x0010000000000000);
  return sign ? -y : y;
}

}  // namespace kc::rust_libm
