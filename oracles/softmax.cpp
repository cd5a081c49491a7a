// The softmax family's evaluations (oracles/oracle.h). The exact values are
// MPFR at the working precision (re-evaluated higher near a rounding
// boundary, as every oracle is); the bounds are computed from the
// derivations below (long form: docs/accuracy-bounds.md, "Softmax") in
// extended precision (oracles/row_support.h, which defines u, eps, E and
// ulp_min); every operation other than exp and ln is one correct rounding:
// relative u, or absolute ulp_min/2 where it underflows.
//
// After the exact functions, the replays of softmax and log_softmax over the last axis and of their
// backwards (reference-semantics.md §10): the element's whole row redone in
// T in the reference's order. Args: the row of the first input, then (the
// backwards) the row of g; form: the element's position in the row.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "oracles/det_math.h"
#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"
#include "oracles/row_support.h"

KC_MATH_OF(Row, softmax)
KC_MATH_OF(Row, log_softmax)
KC_MATH_OF(Row, softmax_backward)
KC_MATH_OF(Row, log_softmax_backward)

namespace kc::oracle {

namespace {

using rows::B;
using rows::gamma;
using rows::set_bound;
using rows::Units;

// ---- softmax and log_softmax: what a row gives each element ----------------
//
// m = the row's running maximum (from -inf, strict >: NaN ignored). The
// reference's row is all NaN when it holds a NaN (exp(NaN) enters the sum),
// a +inf (inf - inf) or only -inf (-inf - -inf): the exact result is NaN
// there too. Otherwise c_j = exp(x_j - m) <= 1 with c = 1 at the maximum,
// and Z = sum c_j >= 1.
//
// The bound. d_j = fl(x_j - m) = (x_j - m)(1 + d), exact where subnormal,
// so exp(d_j) = c_j e^t with |t| <= a_j = u |x_j - m|; e_j = fl(exp(d_j))
// is then within c_j eps'_j + E ulp_min of c_j, eps'_j = (1 + eps) e^(a_j)
// - 1 (an overflowed d_j = -inf gives e_j = 0, and c_j below ulp_min).
// s = fold of the e_j >= 0 from +0: |s - sum e_j| <= gamma_(n-1) sum e_j
// (Higham 4.4; additions that underflow are exact), so |s - Z| <= Ds =
// sum_j (c_j eps'_j + E ulp_min) + gamma_(n-1) sum_j (c_j (1 + eps'_j) + E
// ulp_min); and s >= e_max >= 1 - eps (the maximum's exp(0), which a fold
// of non-negative terms never decreases).
struct SoftRow {
  rows::RowKey key;
  bool nan = false;
  double m = 0;
  std::vector<Mp> c;        // exp(x_j - m)
  Mp z_minus_1;             // Z - 1: sum of c_j over j != the first maximum (log1p keeps ln Z exact near Z = 1)
  Mp z;                     // Z = 1 + (Z - 1), rounded once
  // ln Z = log1p(Z - 1), once a row (log_softmax's elements all need it).
  mutable Mp ln_z;
  mutable bool has_ln_z = false;
  std::vector<B> cd;   // c_j
  std::vector<B> de;   // |e_j - c_j| <= de_j
  std::vector<B> eps1; // eps'_j
  // Z, Ds, Z - s_lo and s's range; Z - s_lo kept apart from the
  // difference of the Bs, which would cancel (f64's Ds is 2^-50 Z).
  B zd = 0, ds = 0, z_minus_s_lo = 0, s_lo = 0, s_hi = 0;
  // The rms bounds of the case statistics (rows::Stage::r): re_j of e_j -
  // c_j, rs of s - Z.
  std::vector<B> re;
  B rs = 0;
  // log_softmax's row constants (below): DlnS and max |ln s|.
  B dln = 0, ln_s = 0;
};

const SoftRow& soft_row(const Row& in) {
  // (Four rows: the relations read a case's rows after grading did.)
  static thread_local rows::RowSlots<SoftRow, 4> kept;
  bool hit = false;
  SoftRow& r = kept.at(in, hit);
  if (hit) return r;
  const std::size_t n = in.a.size();
  r.nan = false;
  r.m = -std::numeric_limits<double>::infinity();
  std::size_t at_max = n;
  for (std::size_t j = 0; j < n; ++j) {
    r.nan |= std::isnan(in.a[j]);
    if (in.a[j] > r.m) r.m = in.a[j], at_max = j;
  }
  r.nan |= std::isinf(r.m);  // +inf, or every element -inf (or none: no element asks)
  if (r.nan) return r;
  const Units un = rows::units(in.ctx.dtype);
  r.c.resize(n);
  r.cd.resize(n);
  r.de.resize(n);
  r.eps1.resize(n);
  r.re.resize(n);
  r.z_minus_1 = Mp(0);
  r.zd = 0;
  B sum_e = 0, sum_de = 0, zm1d = 0, sum_re = 0, steps = 0;
  const B g = gamma(un.u, n - 1);
  for (std::size_t j = 0; j < n; ++j) {
    Mp& c = r.c[j];
    c = Mp(in.a[j]) - Mp(r.m);
    mpfr_exp(raw(c), raw(c), MPFR_RNDN);
    if (j != at_max) r.z_minus_1 += c;
    const B diff = static_cast<B>(in.a[j]) - r.m;  // <= 0, exact enough for a bound (its error scales it by 1 + 2^-63)
    r.cd[j] = det::exp(diff);
    // (c_j below B's range: e_j is exp's result below T's too, within
    // E ulp_min of the tiny c_j, and c_j < ulp_min)
    const B a = un.u * std::fabs(diff), grow_m1 = det::expm1(a);  // e^a - 1
    r.eps1[j] = r.cd[j] > 0 ? grow_m1 * (1 + un.eps) + un.eps : 0.0;
    r.de[j] = r.cd[j] > 0 ? r.cd[j] * r.eps1[j] + un.libm_abs : un.libm_abs + un.ulp_min;
    // rms: d_j's rounding, uniform, moves exp(d_j) by c_j e^(a) |x_j -
    // m| u / sqrt(3) at most; then the libm's own (Units::eps_rms).
    r.re[j] = std::min(r.de[j], r.cd[j] > 0 ? r.cd[j] * (1 + grow_m1) * (un.round_rms * std::fabs(diff) + un.eps_rms) + un.libm_abs
                                              : r.de[j]);
    r.zd += r.cd[j];
    if (j != at_max) zm1d += r.cd[j];
    sum_e += r.cd[j] + r.de[j];
    sum_de += r.de[j];
    sum_re += r.re[j];
    // (the fold's step j >= 1 rounds a partial sum within sum_de + g sum_e of its exact value)
    if (j > 0) steps += (r.zd + sum_de + g * sum_e) * (r.zd + sum_de + g * sum_e);
  }
  r.ds = sum_de + g * sum_e;
  // The e_j's errors by Minkowski (they need not be independent: one
  // libm), the fold's steps in quadrature; at most Ds.
  r.rs = std::min(r.ds, sum_re + un.round_rms * std::sqrt(steps));
  r.s_hi = r.zd + r.ds;
  // s >= max(Z - Ds, 1 - eps): Z - s_lo = min(Ds, (Z - 1) + eps).
  r.z_minus_s_lo = std::min(r.ds, zm1d + un.eps);
  r.s_lo = r.zd - r.z_minus_s_lo;
  // (log_softmax's, once per row: four MPFR calls, oracles/det_math.h)
  r.dln = std::max(det::log1p(r.ds / r.zd), -det::log1p(-r.z_minus_s_lo / r.zd));
  r.ln_s = std::max(std::fabs(det::log(r.s_lo)), det::log(r.s_hi));
  r.z = Mp(1) + r.z_minus_1;
  r.has_ln_z = false;
  return r;
}


}  // namespace

// softmax: z_i = c_i / Z. y_i = fl(e_i / s) = (e_i / s)(1 + d) + ulp_min/2
// at most, and e_i / s lies in [(c_i - de_i)/s_hi, (c_i + de_i)/s_lo]:
//   |y - z| <= dev + u (z + dev_hi) + ulp_min,
// with the deviations written without cancellation:
//   dev_hi = (c_i + de_i)/s_lo - c_i/Z = (c_i (Z - s_lo) + de_i Z) / (s_lo Z),
//   dev_lo = c_i/Z - (c_i - de_i)/s_hi = (c_i Ds + de_i Z) / (s_hi Z).
void softmax(const Row& in, Exact& out) {
  const SoftRow& r = soft_row(in);
  if (r.nan) {
    out.value = Mp(NAN);
    return;
  }
  const Units un = rows::units(in.ctx.dtype);
  const std::size_t i = in.i;
  out.value = r.c[i] / r.z;
  const B z = r.cd[i] / r.zd;
  const B dev_hi = (r.cd[i] * r.z_minus_s_lo + r.de[i] * r.zd) / (r.s_lo * r.zd);
  const B dev_lo = (r.cd[i] * r.ds + r.de[i] * r.zd) / (r.s_hi * r.zd);
  // rms: e_i/s - c_i/Z = (e_i - c_i)/s - c_i (s - Z)/(s Z), s >= s_lo, then the division's rounding.
  const B rms = r.re[i] / r.s_lo + r.cd[i] * r.rs / (r.s_lo * r.zd) + un.round_rms * (z + dev_hi) + un.underflow_rms;
  set_bound(out, in.ctx.dtype, std::max(dev_hi, dev_lo) + un.u * (z + dev_hi) + un.ulp_min, rms);
}

// log_softmax: z_i = (x_i - m) - ln Z. d_i = fl(x_i - m) within u |x_i - m|;
// L = fl(ln s): ln s lies within DlnS = max(log1p(Ds/Z), -log1p(-(Z -
// s_lo)/Z)) of ln Z, and the libm adds eps |ln s| <= eps max(|ln s_lo|,
// ln s_hi); y = fl(d_i - L):
//   |y - z| <= (Dd + DL)(1 + u) + u |z|,  DL = DlnS + eps max|ln s| + ulp_min.
void log_softmax(const Row& in, Exact& out) {
  const SoftRow& r = soft_row(in);
  if (r.nan) {
    out.value = Mp(NAN);
    return;
  }
  const Units un = rows::units(in.ctx.dtype);
  const B x = in.a[in.i];
  if (!r.has_ln_z) {
    r.ln_z = r.z_minus_1;
    mpfr_log1p(raw(r.ln_z), raw(r.ln_z), MPFR_RNDN);
    r.has_ln_z = true;
  }
  out.value = (Mp(x) - Mp(r.m)) - r.ln_z;
  if (!is_number(out.value)) return;  // x = -inf: -inf exactly
  const B dd = un.u * std::fabs(x - r.m);
  const B dln = r.dln, ln_s = r.ln_s;
  const B dl = dln + un.eps * ln_s + un.ulp_min;
  const B az = std::fabs(out.value.convert_to<long double>());
  // rms: d_i's rounding; ln s - ln Z within |s - Z| / s_lo (s, Z >= s_lo), then ln's own; the last rounding.
  const B rms = un.round_rms * std::fabs(x - r.m) + r.rs / r.s_lo + un.eps_rms * ln_s + un.libm_abs +
                un.round_rms * (az + dd + dl) + un.underflow_rms;
  set_bound(out, in.ctx.dtype, (dd + dl) * (1 + un.u) + un.u * az, std::min(rms, (dd + dl) * (1 + un.u) + un.u * az));
}


// softmax_backward(y, g): z_i = y_i (g_i - d), d = sum y_j g_j, exactly
// (g_i - d summed exactly, then one rounding at the working precision).
// d^ = fold of fl(y_j g_j): |d^ - d| <= D, the dot products' bound
// (oracles/linalg.h); t = fl(g_i - d^) within Dt = D (1 + u) + u |g_i - d|;
// dx = fl(y_i t):
//   |dx - z| <= |y_i| (Dt (1 + u) + u |g_i - d|) + ulp_min.
// What a row's elements share (kept for the row's next element): -d
// exactly, and d, sum |y_j g_j| and the statistics' sum of squares.
struct SoftBackRow {
  rows::RowKey key;
  ExactSum minus_d;
  B dd = 0, abs_d = 0, sum_sq = 0;
};
const SoftBackRow& soft_back_row(const Row& in) {
  static thread_local SoftBackRow r;
  if (r.key.same_or_set(in)) return r;
  r.minus_d.clear();
  r.dd = r.abs_d = r.sum_sq = 0;
  for (std::size_t j = 0; j < in.a.size(); ++j) {
    r.minus_d.add_product(-in.a[j], in.b[j]);
    const B p = static_cast<B>(in.a[j]) * in.b[j];
    r.dd += p;
    r.abs_d += std::fabs(p);
    // (the dot products' model of the statistics: each product's and each
    // step's rounding independent, uniform on +-ulp/2; s_1 = p_1 no step)
    r.sum_sq += p * p + (j > 0 ? r.dd * r.dd : 0);
  }
  return r;
}

void softmax_backward(const Row& in, Exact& out) {
  const DType t = in.ctx.dtype;
  const Units un = rows::units(t);
  const std::size_t n = in.a.size(), i = in.i;
  const SoftBackRow& row = soft_back_row(in);
  static thread_local ExactSum sum;
  sum = row.minus_d;
  const B dd = row.dd, abs_d = row.abs_d, sum_sq = row.sum_sq;
  sum.add(in.b[i]);
  Mp g_minus_d;
  sum.round_into(raw(g_minus_d), MPFR_RNDN);
  out.value = Mp(in.a[i]) * g_minus_d;
  const B gd = std::fabs(in.b[i] - dd) + 0x1p-50 * (std::fabs(in.b[i]) + abs_d);  // >= |g_i - d|
  // D = gamma_n sum |y_j g_j| + n eta (1 + u)^(n - 1), eta <= ulp_min
  // (docs/accuracy-bounds.md, "Dot products").
  const B dot = gamma(un.u, n) * abs_d + static_cast<B>(n) * un.ulp_min * det::pow1p_up(un.u, static_cast<long>(n));
  const B dt = dot * (1 + un.u) + un.u * gd;
  const B bound = std::fabs(in.a[i]) * (dt * (1 + un.u) + un.u * gd) + un.ulp_min;
  // rms: d^'s roundings in quadrature (their partial sums within D of the
  // exact ones, which sum_sq holds: the dot's first-order model, as
  // oracles/linalg.cpp's), t's and dx's roundings by Minkowski.
  const B rd = un.round_rms * std::sqrt(sum_sq) + std::sqrt(static_cast<B>(2 * n)) * un.underflow_rms;
  const B rt = rd + un.round_rms * (gd + dt) + un.underflow_rms;
  const B rms = std::fabs(in.a[i]) * rt + un.round_rms * std::fabs(in.a[i]) * (gd + dt) + un.underflow_rms;
  if (is_number(out.value)) set_bound(out, t, bound, std::min(rms, bound));
  rows::settle_overflow(in, replay::softmax_backward, bound, false, out);
}

// log_softmax_backward(y, g): z_i = g_i - exp(y_i) G, G = sum g_j.
// G^ = fold of g_j: |G^ - G| <= DG = gamma_(n-1) sum |g_j|; e^ =
// fl(exp(y_i)) within De = e eps + E ulp_min of e = exp(y_i); p =
// fl(e^ G^) within Dp = De (|G| + DG) + e DG + u (e + De)(|G| + DG) +
// ulp_min of e G; dx = fl(g_i - p):
//   |dx - z| <= Dp (1 + u) + u |z|.
void log_softmax_backward(const Row& in, Exact& out) {
  const DType t = in.ctx.dtype;
  const Units un = rows::units(t);
  const std::size_t n = in.a.size(), i = in.i;
  // (The row's G, kept for its next element.)
  static thread_local struct {
    rows::RowKey key;
    Mp g;
    B abs_g = 0, gsum = 0, steps = 0;
  } row;
  if (!row.key.same_or_set(in)) {
    static thread_local ExactSum sum;
    sum.clear();
    row.abs_g = row.gsum = row.steps = 0;
    for (std::size_t j = 0; j < n; ++j) {
      sum.add(in.b[j]), row.abs_g += std::fabs(in.b[j]), row.gsum += in.b[j];
      if (j > 0) row.steps += row.gsum * row.gsum;  // (the fold's step j rounds a partial sum near gsum: the statistics' model)
    }
    row.g = Mp();
    sum.round_into(raw(row.g), MPFR_RNDN);
  }
  const Mp& g = row.g;
  const B abs_g = row.abs_g, gsum = row.gsum, steps = row.steps;
  Mp e(in.a[i]);
  mpfr_exp(raw(e), raw(e), MPFR_RNDN);
  out.value = Mp(in.b[i]) - e * g;
  const B dg = gamma(un.u, n - 1) * abs_g * (1 + 0x1p-40);
  const B ed = det::exp(static_cast<B>(in.a[i])), de = ed * un.eps + un.libm_abs;
  const B gabs = std::fabs(gsum) + 0x1p-50 * abs_g + dg;  // >= |G| + DG
  const B dp = de * gabs + ed * dg + un.u * (ed + de) * gabs + un.ulp_min;
  const B az = std::fabs(out.value.convert_to<long double>());
  const B bound = dp * (1 + un.u) + un.u * az;
  // rms: G^'s steps in quadrature (about the exact partial sums, as the
  // dot's model), exp's worst case (Units::eps_rms), the product's and
  // the difference's roundings, all by Minkowski.
  const B rg = un.round_rms * std::sqrt(steps) + std::sqrt(static_cast<B>(n)) * un.underflow_rms;
  const B re = ed * un.eps_rms + un.libm_abs;
  const B rp = ed * rg + gabs * re + de * rg + un.round_rms * (ed + de) * gabs + un.underflow_rms;
  const B rms = rp + un.round_rms * (az + dp) + un.underflow_rms;
  if (is_number(out.value)) set_bound(out, t, bound, std::min(rms, bound));
  rows::settle_overflow(in, replay::log_softmax_backward, bound, false, out);
}

}  // namespace kc::oracle

namespace kc::oracle::replay {

namespace {

using D1 = double (*)(double);

// m = the running max from -inf with a strict >, then s = +0 + exp(x_0 - m)
// + ... in T.
struct MaxAndSum {
  double m, s;
};
MaxAndSum max_and_sum(const InT& a, std::span<const double> x) {
  double m = -std::numeric_limits<double>::infinity();
  for (double v : x)
    if (v > m) m = v;
  double s = 0.0;
  for (double v : x) s = a.add(s, a.call(::expf, static_cast<D1>(::exp), a.sub(v, m)));
  return {m, s};
}

}  // namespace

double softmax(const Row& in) {
  static thread_local rows::Kept k;
  const InT a{in.ctx.dtype};
  const double* ms = rows::kept(k, in, [&](double* v) {
    const auto [m, s] = max_and_sum(a, in.a);
    v[0] = m, v[1] = s;
  });
  return a.div(a.call(::expf, static_cast<D1>(::exp), a.sub(in.a[in.i], ms[0])), ms[1]);
}

double log_softmax(const Row& in) {
  static thread_local rows::Kept k;
  const InT a{in.ctx.dtype};
  // m, log s.
  const double* ml = rows::kept(k, in, [&](double* v) {
    const auto [m, s] = max_and_sum(a, in.a);
    v[0] = m, v[1] = a.call(::logf, static_cast<D1>(::log), s);
  });
  return a.sub(a.sub(in.a[in.i], ml[0]), ml[1]);
}

double softmax_backward(const Row& in) {
  static thread_local rows::Kept k;
  const InT a{in.ctx.dtype};
  const double* d = rows::kept(k, in, [&](double* v) {
    v[0] = 0.0;
    for (std::size_t j = 0; j < in.a.size(); ++j) v[0] = a.add(v[0], a.mul(in.a[j], in.b[j]));
  });
  return a.mul(in.a[in.i], a.sub(in.b[in.i], d[0]));
}

double log_softmax_backward(const Row& in) {
  static thread_local rows::Kept k;
  const InT a{in.ctx.dtype};
  const double* g = rows::kept(k, in, [&](double* v) {
    v[0] = 0.0;
    for (double x : in.b) v[0] = a.add(v[0], x);
  });
  return a.sub(in.b[in.i], a.mul(a.call(::expf, static_cast<D1>(::exp), in.a[in.i]), g[0]));
}

}  // namespace kc::oracle::replay
