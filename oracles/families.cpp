// Oracles of the binary, reduction and cast families.
#include "oracles/families.h"

#include <bit>
#include <cmath>

#include "oracles/mp.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace bm = boost::multiprecision;

namespace {
mpfr_t& raw(Mp& m) { return m.backend().data(); }
const mpfr_t& raw(const Mp& m) { return m.backend().data(); }
bool is_nan(const Mp& m) { return mpfr_nan_p(raw(m)) != 0; }
bool is_inf(const Mp& m) { return mpfr_inf_p(raw(m)) != 0; }
// One correct rounding into the kernel's dtype: every step the reference
// performs in T (halves: an f32 operation and RNE, the same thing, §0.2).
Mp rn(DType t, const Mp& v) { return Mp(round_to(t, v)); }
double unit_roundoff(DType t) { return std::ldexp(1.0, -float_format(t).precision); }
// T(n) as NumCast converts a count (halves: f64 -> f32 -> T).
Mp count_in(DType t, std::size_t n) {
  double c = static_cast<double>(n);
  if (t != DType::f64) c = round_to_format(round_to_format(c, DType::f32), t);
  return Mp(c);
}
}  // namespace

void add(OracleIO& io) { io.out = io.args[0] + io.args[1]; }
void sub(OracleIO& io) { io.out = io.args[0] - io.args[1]; }
void mul(OracleIO& io) { io.out = io.args[0] * io.args[1]; }
void div(OracleIO& io) { io.out = io.args[0] / io.args[1]; }
// a if a > b else b: NaN in a gives b, NaN in b gives NaN, ties give b (§2).
void maximum(OracleIO& io) { io.out = io.args[0] > io.args[1] ? io.args[0] : io.args[1]; }
void minimum(OracleIO& io) { io.out = io.args[0] < io.args[1] ? io.args[0] : io.args[1]; }
// rem is defined by its steps (§2): q = a/b, floor, p = floor(q) b, a - p,
// each rounded in T. Not the mathematical remainder for large quotients, so
// the oracle is the exact replay of those steps.
void rem(OracleIO& io) {
  const DType t = io.dtype;
  const Mp& a = io.args[0];
  const Mp& b = io.args[1];
  Mp q = rn(t, a / b);
  Mp f = q;
  mpfr_floor(raw(f), raw(q));
  Mp p = rn(t, f * b);
  io.out = rn(t, a - p);
}
// pow: MPFR follows C99 Annex F (pow(x, +-0) = 1, pow(1, y) = 1, ...), as
// glibc does, except that glibc returns NaN when an operand is a signalling
// NaN (IEEE 754-2008). Halves are widened to f32 first, which quiets them.
void pow(OracleIO& io) {
  if (io.signaling_nan && (io.dtype == DType::f32 || io.dtype == DType::f64)) {
    io.out = Mp(std::nan(""));
    return;
  }
  io.out = io.args[0];
  mpfr_pow(raw(io.out), raw(io.args[0]), raw(io.args[1]), MPFR_RNDN);
}

// Sum of the folded elements, correctly rounded at the working precision
// (mpfr_sum), with S = gamma_{n-1}/u * sum |a_i| so that the model's K u S is
// Higham's gamma_{n-1} sum |a_i| (docs/accuracy-bounds.md). The fold
// 0 + a_0 + a_1 + ... is replayed in T for the semantics check; when one of
// its partial sums overflows the reference's result is that of the fold
// (inf or NaN), and the element is graded against the replay.
namespace {
void sum_into(OracleIO& io, Mp& exact, Mp& abs_sum, Mp& fold) {
  const std::size_t n = io.args.size();
  exact = Mp(0);
  abs_sum = Mp(0);
  if (n > 0) {
    std::vector<mpfr_ptr> ptrs;
    std::vector<Mp> absv(n);
    for (std::size_t i = 0; i < n; ++i) {
      ptrs.push_back(io.args[i].backend().data());
      absv[i] = bm::abs(io.args[i]);
    }
    mpfr_sum(raw(exact), ptrs.data(), n, MPFR_RNDN);
    std::vector<mpfr_ptr> aptrs;
    for (auto& v : absv) aptrs.push_back(v.backend().data());
    mpfr_sum(raw(abs_sum), aptrs.data(), n, MPFR_RNDN);
  }
  fold = Mp(0);
  bool overflowed = false;
  for (const Mp& a : io.args) {
    fold = rn(io.dtype, fold + a);
    overflowed |= (is_inf(fold) || is_nan(fold)) && !is_inf(a) && !is_nan(a);
  }
  io.replayed = overflowed;
}
// gamma_m / u with gamma_m = (1 + u)^m - 1, m = n - 1 roundings: the form of
// Higham's gamma that holds for every m (m u / (1 - m u) needs m u < 1,
// which bf16 sums of 256 or more terms break).
Mp gamma_over_u(DType t, std::size_t n) {
  if (n <= 1) return Mp(0);
  const double m = static_cast<double>(n - 1), u = unit_roundoff(t);
  return Mp(std::expm1(m * std::log1p(u)) / u);
}
}  // namespace

void sum(OracleIO& io) {
  Mp exact, abs_sum, fold;
  sum_into(io, exact, abs_sum, fold);
  io.out = io.replayed ? fold : exact;
  io.magnitude = gamma_over_u(io.dtype, io.args.size()) * abs_sum;
  io.has_replay = true;
  io.replay = fold;
}

// mean = sum / T(n) with the count rounded into T (§0.3): bf16 divides a
// 257-element sum by 256. Empty: 0/0 = NaN.
void mean(OracleIO& io) {
  Mp exact, abs_sum, fold;
  sum_into(io, exact, abs_sum, fold);
  const Mp n = count_in(io.dtype, io.args.size());
  io.out = (io.replayed ? fold : exact) / n;
  io.magnitude = gamma_over_u(io.dtype, io.args.size()) * abs_sum / n;
  io.has_replay = true;
  io.replay = rn(io.dtype, fold / n);
  if (io.replayed) io.out = io.replay;
}

// Start at -inf (+inf), replace on strict > (<): NaN ignored, first of equals kept.
void max_fold(OracleIO& io) {
  io.out = Mp(-INFINITY);
  for (const Mp& a : io.args)
    if (a > io.out) io.out = a;
}
void min_fold(OracleIO& io) {
  io.out = Mp(INFINITY);
  for (const Mp& a : io.args)
    if (a < io.out) io.out = a;
}
// The best starts as the first element, so a NaN at index 0 wins (§6).
void argmax(OracleIO& io) {
  std::size_t at = 0;
  Mp best = io.args[0];
  for (std::size_t k = 1; k < io.args.size(); ++k)
    if (io.args[k] > best) best = io.args[k], at = k;
  io.out = Mp(static_cast<double>(at));
}
void argmin(OracleIO& io) {
  std::size_t at = 0;
  Mp best = io.args[0];
  for (std::size_t k = 1; k < io.args.size(); ++k)
    if (io.args[k] < best) best = io.args[k], at = k;
  io.out = Mp(static_cast<double>(at));
}

// The gradient at x_i: s * mask_i with s = up / max(count, 1), count the
// number of maxima of the cell counted in T (fair share, §7). Every step is
// a basic operation: the replay is the exact definition.
void max_backward(OracleIO& io) {
  const DType t = io.dtype;
  const Mp& xi = io.args[0];
  const Mp& up = io.args[1];
  Mp y(-INFINITY);
  for (std::size_t k = 2; k < io.args.size(); ++k)
    if (io.args[k] > y) y = io.args[k];
  Mp count(0);
  for (std::size_t k = 2; k < io.args.size(); ++k)
    if (io.args[k] == y) count = rn(t, count + Mp(1));
  const Mp safe = count < Mp(1) ? Mp(1) : count;
  const Mp s = rn(t, up / safe);
  const Mp mask = xi == y ? Mp(1) : Mp(0);
  io.out = rn(t, s * mask);
}

void identity(OracleIO& io) { io.out = io.x; }

// Rust `as u32`: truncate toward zero, saturate, NaN -> 0 (§17).
void cast_saturating_u32(OracleIO& io) {
  if (is_nan(io.x) || io.x < 0) io.out = Mp(0);
  else if (io.x >= Mp(4294967296.0)) io.out = Mp(4294967295.0);
  else io.out = bm::trunc(io.x);
}

// The exact value is the source; the reference rounds it by half's
// from_f64: the low 32 bits of the f64 significand cleared, then RNE.
void cast_f64_to_bf16(OracleIO& io) {
  io.out = io.x;
  const double x = io.x.convert_to<double>();  // exact: the source is an f64
  const double truncated = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) & ~0xFFFFFFFFull);
  io.has_replay = true;
  io.replay = std::isnan(x) ? Mp(x) : Mp(round_to(DType::bf16, Mp(truncated)));
}

// x86 F16C (any modern x86-64): f64 -> f32 (RNE) -> f16 (RNE).
void cast_f64_to_f16(OracleIO& io) {
  io.out = io.x;
  io.has_replay = true;
  io.replay = Mp(round_to(DType::f16, Mp(round_to(DType::f32, io.x))));
}

}  // namespace kc::oracle
