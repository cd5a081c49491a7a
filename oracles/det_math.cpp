#include "oracles/det_math.h"

#include <array>
#include <cmath>
#include <limits>

#include <mpfr.h>

namespace kc::oracle::det {

namespace {

// Two MPFR numbers per thread at the type's precision, set up once (an
// init and a clear per call cost as much as a 53-bit exp). mpfr_set_d and
// mpfr_set_ld are exact at these precisions.
template <int kBits>
struct Scratch {
  mpfr_t x, y;
  Scratch() { mpfr_inits2(kBits, x, y, static_cast<mpfr_ptr>(nullptr)); }
  ~Scratch() { mpfr_clears(x, y, static_cast<mpfr_ptr>(nullptr)); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

using D = Scratch<53>;
using L = Scratch<64>;

template <class S>
S& scratch() {
  static thread_local S s;
  return s;
}

double get(mpfr_srcptr v) { return mpfr_get_d(v, MPFR_RNDN); }
long double get_l(mpfr_srcptr v) { return mpfr_get_ld(v, MPFR_RNDN); }

using Unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

double unary(Unary f, double a) {
  D& s = scratch<D>();
  mpfr_set_d(s.x, a, MPFR_RNDN);
  f(s.y, s.x, MPFR_RNDN);
  return get(s.y);
}
long double unary(Unary f, long double a) {
  L& s = scratch<L>();
  mpfr_set_ld(s.x, a, MPFR_RNDN);
  f(s.y, s.x, MPFR_RNDN);
  return get_l(s.y);
}

}  // namespace

double exp(double x) { return unary(mpfr_exp, x); }
double exp2(double x) { return unary(mpfr_exp2, x); }
double expm1(double x) { return unary(mpfr_expm1, x); }
double log(double x) { return unary(mpfr_log, x); }
double log1p(double x) { return unary(mpfr_log1p, x); }
double log10(double x) { return unary(mpfr_log10, x); }
double sin(double x) { return unary(mpfr_sin, x); }
double cos(double x) { return unary(mpfr_cos, x); }
double tanh(double x) { return unary(mpfr_tanh, x); }
double asinh(double x) { return unary(mpfr_asinh, x); }
double cbrt(double x) { return unary(mpfr_cbrt, x); }
double pow(double x, double y) {
  D& s = scratch<D>();
  mpfr_set_d(s.x, x, MPFR_RNDN);
  mpfr_set_d(s.y, y, MPFR_RNDN);
  mpfr_pow(s.x, s.x, s.y, MPFR_RNDN);
  return get(s.x);
}

long double log(long double x) { return unary(mpfr_log, x); }
long double log1p(long double x) { return unary(mpfr_log1p, x); }
long double pow(long double x, long double y) {
  L& s = scratch<L>();
  mpfr_set_ld(s.x, x, MPFR_RNDN);
  mpfr_set_ld(s.y, y, MPFR_RNDN);
  mpfr_pow(s.x, s.x, s.y, MPFR_RNDN);
  return get_l(s.x);
}

// ---- e^x and e^x - 1 in x87's basic operations ----------------------------
//
// e^x = 2^k e^r, k = nearbyint(x / ln 2), r = (x - k C1) - k C2, where C1
// is ln 2 cut to 48 bits (so k C1, |k| < 2^15, is exact in 64 bits) and
// C2 the next 64 bits of it (|ln 2 - C1 - C2| < 2^-116). x / ln 2 is
// within 2^-49 of its rounding for |x| < 11500, so |r| <= ln(2)/2 + 2^-49
// < 0.3466. The two subtractions and the product k C2 round at most 2^-64
// relative each, and k's share of C2's own error is below 2^-100: |r^ -
// r| <= 2^-62, which moves e^r by a relative 2^-62 at most.
// e^r = sum_{i<=17} r^i / i! + R, |R| <= |r|^18 / 18! e^|r| < 2^-79 e^r.
// Horner's scheme over the 18 coefficients c_i = RN(1/i!) (i! is exact
// in 64 bits up to 17!, so each is one rounding, relative 2^-64) errs by
// at most gamma_34 sum c_i |r|^i <= 34 2^-64 (1 + 2^-58) e^|r| (Higham
// 5.7, with the coefficients' own 2^-64 added), and e^|r| / e^r <=
// e^(2 |r|) < 2: a relative 2^-57.9. With r's share and R: e^x within
// 2^-56 relative; the scaling by 2^k is exact where the result is normal
// (ldexp: one rounding, IEEE's, where it is subnormal).
// e^x - 1 for |x| < 0.35: x q(x), q = sum_{i<=16} x^i / (i+1)! by Horner
// (q in [0.84, 1.19]: within 34 2^-64 1.19 / 0.84 relative), the
// truncation below 2^-77: within 2^-58 relative; else e^x - 1 from e^x,
// whose error the subtraction magnifies by e^x / |e^x - 1| <= 3.4 for x >=
// 0.35 (<= 2.4 for x <= -0.35): within 2^-54 relative.
// tests/det_math_test.cpp (DetMath.*) checks them against MPFR.
namespace {
constexpr int kTerms = 18;
constexpr std::array<long double, kTerms> inverse_factorials() {
  std::array<long double, kTerms> c{};
  long double f = 1;  // i!, exact: 17! < 2^49
  for (int i = 0; i < kTerms; ++i) {
    if (i > 0) f *= i;
    c[static_cast<std::size_t>(i)] = 1 / f;
  }
  return c;
}
constexpr std::array<long double, kTerms> kInvFact = inverse_factorials();
constexpr long double kInvLn2 = 0xb8aa3b295c17f0bcp-63L;
constexpr long double kLn2Hi = 0xb17217f7d1cfp-48L;
constexpr long double kLn2Lo = 0xf35793c7673007e6p-113L;
}  // namespace

long double exp(long double x) {
  if (std::isnan(x)) return x;
  if (x > 11357.3L) return std::numeric_limits<long double>::infinity();  // (ln of the largest is 11356.52...)
  if (x < -11500) return 0;  // (the smallest subnormal is e^-11398.8)
  const long double k = std::nearbyint(x * kInvLn2);
  const long double r = (x - k * kLn2Hi) - k * kLn2Lo;
  long double p = kInvFact[kTerms - 1];
  for (int i = kTerms - 2; i >= 0; --i) p = p * r + kInvFact[static_cast<std::size_t>(i)];
  return std::ldexp(p, static_cast<int>(k));
}

long double expm1(long double x) {
  if (!(std::fabs(x) < 0.35L)) return exp(x) - 1;  // (NaN, the infinities included)
  long double q = kInvFact[kTerms - 1];
  for (int i = kTerms - 2; i >= 1; --i) q = q * x + kInvFact[static_cast<std::size_t>(i)];
  return x * q;
}

// tanh |x| = t / (t + 2), t = e^(2|x|) - 1 >= 0: t's relative error d
// moves it by d 2 / (t + 2) <= d relative, the sum and the quotient round
// once each: within 2^-53.9 relative. From |x| = 23 on, 1 - tanh |x| <
// 2e^-46 < 2^-65: +-1 (within 2^-65).
long double tanh(long double x) {
  if (std::isnan(x)) return x;
  const long double a = std::fabs(x);
  if (a >= 23) return std::copysign(1.0L, x);
  const long double e = expm1(2 * a);
  const long double t = e / (e + 2);
  return std::copysign(t, x);
}

namespace {
// (1 + u)^m (1 + v)^k - minus, every step rounded up: 1 + u up where m >= 0
// (a larger base raises the power), down where m < 0 (a smaller one
// raises it), the powers and their product up (both positive), the
// difference up. 256 bits hold 1 + u exactly for the u of every dtype
// (+-2^-p, p <= 64) and leave the powers' own roundings far below the
// result's.
struct Wide {
  mpfr_t a, b;
  Wide() { mpfr_inits2(256, a, b, static_cast<mpfr_ptr>(nullptr)); }
  ~Wide() { mpfr_clears(a, b, static_cast<mpfr_ptr>(nullptr)); }
  Wide(const Wide&) = delete;
  Wide& operator=(const Wide&) = delete;
};
void pow1p_into(mpfr_ptr out, long double u, long m) {
  mpfr_set_ld(out, u, MPFR_RNDN);  // (exact: 256 bits hold a long double)
  mpfr_add_ui(out, out, 1, m >= 0 ? MPFR_RNDU : MPFR_RNDD);
  mpfr_pow_si(out, out, m, MPFR_RNDU);
}
mpfr_srcptr pow1p_minus(long double u, long m, long double v, long k, unsigned long minus) {
  static thread_local Wide w;
  pow1p_into(w.a, u, m);
  if (k != 0) {
    pow1p_into(w.b, v, k);
    mpfr_mul(w.a, w.a, w.b, MPFR_RNDU);
  }
  mpfr_sub_ui(w.a, w.a, minus, MPFR_RNDU);
  return w.a;
}

// The last results, by their arguments (direct-mapped): a fold's length
// repeats for every output of a case and every score of an attention row,
// and the power costs microseconds at 256 bits.
struct Args {
  long double u, v;
  long m, k;
  unsigned long minus;
  bool wide;  // long double (else double)
  bool operator==(const Args&) const = default;
};
struct Memo {
  Args args;
  long double value;
  bool set = false;
};
long double pow1p_rounded_up(const Args& a) {
  static thread_local std::array<Memo, 256> memo;
  const auto slot = (static_cast<std::size_t>(a.m) * 31 + static_cast<std::size_t>(a.k) * 7 + a.minus * 3 + a.wide) & 255;
  Memo& e = memo[slot];
  if (e.set && e.args == a) return e.value;
  mpfr_srcptr r = pow1p_minus(a.u, a.m, a.v, a.k, a.minus);
  e = {a, a.wide ? mpfr_get_ld(r, MPFR_RNDU) : static_cast<long double>(mpfr_get_d(r, MPFR_RNDU)), true};
  return e.value;
}
}  // namespace

double pow1p_up(double u, long m) { return static_cast<double>(pow1p_rounded_up({u, 0, m, 0, 0, false})); }
double gamma_up(double u, long m) { return static_cast<double>(pow1p_rounded_up({u, 0, m, 0, 1, false})); }
double gamma_up(double u, long m, double v, long k) {
  return static_cast<double>(pow1p_rounded_up({u, v, m, k, 1, false}));
}
long double pow1p_up(long double u, long m) { return pow1p_rounded_up({u, 0, m, 0, 0, true}); }
long double gamma_up(long double u, long m) { return pow1p_rounded_up({u, 0, m, 0, 1, true}); }

}  // namespace kc::oracle::det
