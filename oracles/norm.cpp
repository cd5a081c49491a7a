// The norms' evaluations (oracles/oracle.h). Exact values in MPFR at the
// working precision (the sums of the row exact, oracles/exact_sum.h);
// bounds from the reference's own steps on Stage values (each operation's
// rigorous error rule, oracles/row_support.h), so the bound follows the
// reference's evaluation order stage by stage:
//   layer_norm:  mu = fold(x)/N; d_j = x_j - mu; v = fold(d_j d_j)/N;
//                r = 1/sqrt(v + E); y_i = d_i r
//   backward:    the same mu, v, r; yh_j = d_j r; sg = fold g, sgy = fold
//                g_j yh_j; dx_i = r ((g_i - sg/N) - yh_i (sgy/N))
//   rms_norm:    q = fold(x_j x_j)/N; r = 1/sqrt(q + E); y_i = x_i r
//   backward:    S2 = fold x x, Sgx = fold g x; D = S2/N + E; r =
//                1/sqrt(D); c = Sgx/(N D); dx_i = r (g_i - x_i c)
// (N = T(n), E = T(eps)). Where the exact value is undefined (v + E = 0:
// a constant row with eps = 0 gives 0/0) it is NaN, and the reference's
// replay is the grade where it returns a number; where a stage may pass
// max_T, the replay too (rows::settle_overflow).
//
// After the exact functions, the replays of layer_norm and rms_norm over the last axis and of their
// backwards (reference-semantics.md §10): the element's row redone in T in
// the reference's order, with N = T(n) and E = T(eps) (NumCast, §0.3).
// Args: the row of x, then (the backwards) the row of g; form: the
// element's position in the row.
#include <cmath>
#include <vector>

#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"
#include "oracles/row_support.h"

KC_MATH_OF(Row, layer_norm)
KC_MATH_OF(Row, layer_norm_backward)
KC_MATH_OF(Row, rms_norm)
KC_MATH_OF(Row, rms_norm_backward)

namespace kc::oracle {

namespace {

using rows::B;
using rows::Stage;
using rows::Stages;

double eps_of(const Row& in) { return in.ctx.params && in.ctx.params->has("eps") ? in.ctx.params->real("eps") : 0.0; }

// A sum of the doubles (or of their products with `times`), exact, rounded at the working precision.
Mp exact_sum(std::span<const double> a, std::span<const double> times = {}) {
  static thread_local ExactSum s;
  s.clear();
  for (std::size_t j = 0; j < a.size(); ++j) times.empty() ? s.add(a[j]) : s.add_product(a[j], times[j]);
  Mp out;
  s.round_into(raw(out), MPFR_RNDN);
  return out;
}

Mp inv_sqrt(const Mp& x) {
  Mp r = x;
  mpfr_rec_sqrt(raw(r), raw(r), MPFR_RNDN);  // (MPFR: 1/sqrt(+0) = +inf)
  return r;
}

// The row's count and eps as the reference reads them (T(n), T(eps): a
// bf16 row of 257 counts 256) or as given (n exact, eps the parameter's
// value: PyTorch's opmath for the halves), the definition's other reading
// (Exact::other_reading, asked only for a result the first one fails).
struct Reading {
  Mp nn, ee;
};
Reading in_t(const Row& in) {
  const DType t = in.ctx.dtype;
  return {Mp(num_cast(t, static_cast<double>(in.a.size()))), Mp(num_cast(t, eps_of(in)))};
}
Reading as_given(const Row& in) { return {Mp(static_cast<double>(in.a.size())), Mp(eps_of(in))}; }

// What layer_norm's forward and backward share of a row: the exact mu and
// r, and the stages mu, d_j, r.
struct LayerRow {
  rows::RowKey key;
  Mp mu, r;
  Stage r_st;
  std::vector<Stage> d;
  bool overflow = false;
  bool undefined = false;  // v + E = 0
};
const LayerRow& layer_row(const Row& in) {
  // (Four rows: the relations read a case's rows after grading did.)
  static thread_local rows::RowSlots<LayerRow, 4> kept;
  bool hit = false;
  LayerRow& L = kept.at(in, hit);
  if (hit) return L;
  const DType t = in.ctx.dtype;
  const auto [nn, ee] = in_t(in);
  L.mu = exact_sum(in.a) / nn;
  Mp v(0);
  for (double x : in.a) {
    const Mp d = Mp(x) - L.mu;
    v += d * d;
  }
  v = v / nn + ee;
  L.undefined = is_zero(v);
  L.r = inv_sqrt(v);
  Stages st(t);
  std::vector<Stage> xs;
  for (double x : in.a) xs.push_back(Stages::exact(x));
  const Stage nst = Stages::exact(nn.convert_to<long double>());
  const Stage mu = st.div(st.fold(xs), nst);
  L.d.clear();
  std::vector<Stage> q;
  for (double x : in.a) {
    L.d.push_back(st.sub(Stages::exact(x), mu));
    q.push_back(st.mul(L.d.back(), L.d.back()));
  }
  const Stage w = st.add(st.div(st.fold(q), nst), Stages::exact(ee.convert_to<long double>()));
  L.r_st = st.div(Stages::exact(1), st.sqrt(w));
  L.overflow = st.overflow;
  return L;
}

// Each kernel's exact value under a reading, from the row alone (the
// forward's mean and r computed again: the other reading's path).
Mp layer_value(const Row& in, const Reading& rd, bool backward) {
  const std::size_t n = in.a.size();
  const Mp mu = exact_sum(in.a) / rd.nn;
  Mp v(0);
  for (double x : in.a) v += (Mp(x) - mu) * (Mp(x) - mu);
  const Mp r = inv_sqrt(v / rd.nn + rd.ee), yh_i = (Mp(in.a[in.i]) - mu) * r;
  if (!backward) return yh_i;
  Mp sgy(0);
  for (std::size_t j = 0; j < n; ++j) sgy += Mp(in.b[j]) * ((Mp(in.a[j]) - mu) * r);
  return r * ((Mp(in.b[in.i]) - exact_sum(in.b) / rd.nn) - yh_i * (sgy / rd.nn));
}
Mp rms_value(const Row& in, const Reading& rd, bool backward) {
  const Mp d = exact_sum(in.a, in.a) / rd.nn + rd.ee;
  if (!backward) return Mp(in.a[in.i]) * inv_sqrt(d);
  return inv_sqrt(d) * (Mp(in.b[in.i]) - Mp(in.a[in.i]) * (exact_sum(in.b, in.a) / (rd.nn * d)));
}

// The other reading where it differs from the reference's.
// (Decided on doubles: it is asked at every element.)
void other_reading(const Row& in, Mp (*value)(const Row&, const Reading&, bool), bool backward, Exact& out) {
  const DType t = in.ctx.dtype;
  const auto n = static_cast<double>(in.a.size());
  const double eps = eps_of(in);
  if (num_cast(t, n) == n && num_cast(t, eps) == eps) return;
  out.other_reading = [&in, value, backward] { return std::optional<Mp>(value(in, as_given(in), backward)); };
}

// The exact value is set; the bound and the replay rules follow.
void finish(const Row& in, double (*replay_fn)(const Row&), const Stage& y, bool overflow, bool undefined, Exact& out) {
  if (is_number(out.value) && std::isfinite(y.e)) rows::set_bound(out, in.ctx.dtype, y.e, y.rms());
  rows::settle_overflow(in, replay_fn, y.e, overflow || undefined, out);
}

}  // namespace

void layer_norm(const Row& in, Exact& out) {
  other_reading(in, layer_value, false, out);
  const LayerRow& L = layer_row(in);
  out.value = (Mp(in.a[in.i]) - L.mu) * L.r;
  Stages st(in.ctx.dtype);
  const Stage y = st.mul(L.d[in.i], L.r_st);
  finish(in, replay::layer_norm, y, L.overflow || st.overflow, L.undefined, out);
}

// What layer_norm_backward's elements share of a row (kept for its next
// element, as LayerRow is): the exact mean of g and of g yh, their stages,
// and whether a row stage may overflow.
struct LayerBackRow {
  rows::RowKey key;
  Mp mg, mgy;
  Stage m_g, m_gy;
  bool overflow = false;
};
const LayerBackRow& layer_back_row(const Row& in, const LayerRow& L) {
  static thread_local rows::RowSlots<LayerBackRow, 4> kept;
  bool hit = false;
  LayerBackRow& R = kept.at(in, hit);
  if (hit) return R;
  const std::size_t n = in.a.size();
  const Mp nn = in_t(in).nn;
  Mp sgy(0);
  for (std::size_t j = 0; j < n; ++j) sgy += Mp(in.b[j]) * ((Mp(in.a[j]) - L.mu) * L.r);
  R.mg = exact_sum(in.b) / nn, R.mgy = sgy / nn;
  Stages st(in.ctx.dtype);
  std::vector<Stage> gs, gy;
  for (std::size_t j = 0; j < n; ++j) {
    gs.push_back(Stages::exact(in.b[j]));
    gy.push_back(st.mul(gs.back(), st.mul(L.d[j], L.r_st)));
  }
  const Stage nst = Stages::exact(nn.convert_to<long double>());
  R.m_g = st.div(st.fold(gs), nst), R.m_gy = st.div(st.fold(gy), nst);
  R.overflow = st.overflow;
  return R;
}

void layer_norm_backward(const Row& in, Exact& out) {
  other_reading(in, layer_value, true, out);
  const LayerRow& L = layer_row(in);
  const LayerBackRow& R = layer_back_row(in, L);
  // Exact: yh_j = (x_j - mu) r, mg = sum g / N, mgy = sum g_j yh_j / N.
  const Mp yh_i = (Mp(in.a[in.i]) - L.mu) * L.r;
  out.value = L.r * ((Mp(in.b[in.i]) - R.mg) - yh_i * R.mgy);
  // The reference's stages.
  Stages st(in.ctx.dtype);
  const Stage yh = st.mul(L.d[in.i], L.r_st);
  const Stage dx = st.mul(L.r_st, st.sub(st.sub(Stages::exact(in.b[in.i]), R.m_g), st.mul(yh, R.m_gy)));
  finish(in, replay::layer_norm_backward, dx, L.overflow || R.overflow || st.overflow, L.undefined, out);
}

// What rms_norm's and its backward's elements share of a row: the exact
// mean square plus eps (w), 1/sqrt(w), c = sum g x / (N w) (the
// backward's), their stages, and whether a row stage may overflow.
struct RmsRow {
  rows::RowKey key;
  Mp w, r, c;
  Stage r_st, c_st;
  bool overflow = false;
};
const RmsRow& rms_row(const Row& in, bool backward) {
  static thread_local rows::RowSlots<RmsRow, 4> rows_of[2];
  bool hit = false;
  RmsRow& R = rows_of[backward ? 1 : 0].at(in, hit);
  if (hit) return R;
  const std::size_t n = in.a.size();
  const auto [nn, ee] = in_t(in);
  R.w = exact_sum(in.a, in.a) / nn + ee;
  R.r = inv_sqrt(R.w);
  Stages st(in.ctx.dtype);
  std::vector<Stage> sxx, sgx;
  for (std::size_t j = 0; j < n; ++j) {
    sxx.push_back(st.mul(Stages::exact(in.a[j]), Stages::exact(in.a[j])));
    if (backward) sgx.push_back(st.mul(Stages::exact(in.b[j]), Stages::exact(in.a[j])));
  }
  const Stage nst = Stages::exact(nn.convert_to<long double>());
  const Stage w = st.add(st.div(st.fold(sxx), nst), Stages::exact(ee.convert_to<long double>()));
  R.r_st = st.div(Stages::exact(1), st.sqrt(w));
  if (backward) {
    R.c = exact_sum(in.b, in.a) / (nn * R.w);
    R.c_st = st.div(st.fold(sgx), st.mul(nst, w));
  }
  R.overflow = st.overflow;
  return R;
}

void rms_norm(const Row& in, Exact& out) {
  other_reading(in, rms_value, false, out);
  const RmsRow& R = rms_row(in, false);
  out.value = Mp(in.a[in.i]) * R.r;
  Stages st(in.ctx.dtype);
  const Stage y = st.mul(Stages::exact(in.a[in.i]), R.r_st);
  finish(in, replay::rms_norm, y, R.overflow || st.overflow, is_zero(R.w), out);
}

void rms_norm_backward(const Row& in, Exact& out) {
  other_reading(in, rms_value, true, out);
  const RmsRow& R = rms_row(in, true);
  out.value = R.r * (Mp(in.b[in.i]) - Mp(in.a[in.i]) * R.c);
  Stages st(in.ctx.dtype);
  const Stage dx = st.mul(R.r_st, st.sub(Stages::exact(in.b[in.i]), st.mul(Stages::exact(in.a[in.i]), R.c_st)));
  finish(in, replay::rms_norm_backward, dx, R.overflow || st.overflow, is_zero(R.w), out);
}

}  // namespace kc::oracle

namespace kc::oracle::replay {

namespace {

struct RowIn {
  InT a;
  std::size_t n, i;
  double count, eps;  // T(n), T(eps)
  std::span<const double> x, g;
};
RowIn row_in(const Row& in, bool backward) {
  const InT a{in.ctx.dtype};
  const std::size_t n = in.a.size();
  const double eps = in.ctx.params && in.ctx.params->has("eps") ? in.ctx.params->real("eps") : 0.0;
  return {a, n, in.i, a.from_f64(static_cast<double>(n)), a.from_f64(eps),
          in.a, backward ? in.b : std::span<const double>{}};
}

// mu = fold(x)/N, v = fold((x - mu)^2)/N, r = 1/sqrt(v + E).
struct MuR {
  double mu, r;
};
MuR mu_r(const RowIn& w) {
  double s = 0.0;
  for (double v : w.x) s = w.a.add(s, v);
  const double mu = w.a.div(s, w.count);
  double q = 0.0;
  for (double v : w.x) {
    const double d = w.a.sub(v, mu);
    q = w.a.add(q, w.a.mul(d, d));
  }
  return {mu, w.a.div(1.0, w.a.sqrt(w.a.add(w.a.div(q, w.count), w.eps)))};
}

}  // namespace

double layer_norm(const Row& in) {
  static thread_local rows::Kept k;
  const RowIn w = row_in(in, false);
  const double* m = rows::kept(k, in, [&](double* v) {
    const auto [mu, r] = mu_r(w);
    v[0] = mu, v[1] = r;
  });
  return w.a.mul(w.a.sub(w.x[w.i], m[0]), m[1]);
}

double layer_norm_backward(const Row& in) {
  static thread_local rows::Kept k;
  const RowIn w = row_in(in, true);
  // mu, r, mg, mgy.
  const double* m = rows::kept(k, in, [&](double* v) {
    const auto [mu, r] = mu_r(w);
    double sg = 0.0, sgy = 0.0;
    for (std::size_t j = 0; j < w.n; ++j) {
      sg = w.a.add(sg, w.g[j]);
      sgy = w.a.add(sgy, w.a.mul(w.g[j], w.a.mul(w.a.sub(w.x[j], mu), r)));
    }
    v[0] = mu, v[1] = r, v[2] = w.a.div(sg, w.count), v[3] = w.a.div(sgy, w.count);
  });
  const double yh = w.a.mul(w.a.sub(w.x[w.i], m[0]), m[1]);
  return w.a.mul(m[1], w.a.sub(w.a.sub(w.g[w.i], m[2]), w.a.mul(yh, m[3])));
}

double rms_norm(const Row& in) {
  static thread_local rows::Kept k;
  const RowIn w = row_in(in, false);
  const double* r = rows::kept(k, in, [&](double* v) {
    double s = 0.0;
    for (double x : w.x) s = w.a.add(s, w.a.mul(x, x));
    v[0] = w.a.div(1.0, w.a.sqrt(w.a.add(w.a.div(s, w.count), w.eps)));
  });
  return w.a.mul(w.x[w.i], r[0]);
}

double rms_norm_backward(const Row& in) {
  static thread_local rows::Kept k;
  const RowIn w = row_in(in, true);
  // r, c.
  const double* m = rows::kept(k, in, [&](double* v) {
    double s2 = 0.0, sgx = 0.0;
    for (std::size_t j = 0; j < w.n; ++j) {
      s2 = w.a.add(s2, w.a.mul(w.x[j], w.x[j]));
      sgx = w.a.add(sgx, w.a.mul(w.g[j], w.x[j]));
    }
    const double d = w.a.add(w.a.div(s2, w.count), w.eps);
    v[0] = w.a.div(1.0, w.a.sqrt(d)), v[1] = w.a.div(sgx, w.a.mul(w.count, d));
  });
  return w.a.mul(m[0], w.a.sub(w.g[w.i], w.a.mul(w.x[w.i], m[1])));
}

}  // namespace kc::oracle::replay
