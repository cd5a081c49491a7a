// The evaluations of attention_flash_backward (oracles/oracle.h). A cell (one
// batch and KV head: its G query heads' rows, dO, K and V) is computed once
// for all its outputs. Cells with a non-finite input or score are graded
// against the kernel's replay. Otherwise the exact vector-Jacobian product
// of the attention function o_i = sum_j P_ij v_j, P_ij the softmax over the
// admissible keys of s_ij = (q_i . k_j) S, capped tanh(s / c) c, plus the
// ALiBi term (S and c the f32 parameters), at dO:
//   dV_j = sum_i P_ij dO_i              dP_ij = dO_i . v_j
//   dS_ij = P_ij (dP_ij - sum_j' P_ij' dP_ij') (1 - tanh^2(s_pre,ij / c))
//   dQ_i = S sum_j dS_ij k_j            dK_j = S sum_i dS_ij q_i
// with i over the rows of every query head of the KV head (a row with no
// admissible key contributes nothing: its output is 0 whatever q, k, v).
// The bound of each output is the last stage of the kernel's own recompute
// (scores, e^(s - m), 1/sum, p = e inv, dP and rd folds, dS, g = dS S, the
// accumulations into dQ, dK, dV) replayed on Stage values
// (oracles/row_support.h); docs/accuracy-bounds.md "Attention backward".
//
// Its replay comes first (the exact function grades the special cells
// against it): the cell's rows redone in T in the kernel's nesting.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "oracles/attention_layout.h"
#include "oracles/attention_scores.h"
#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/row_support.h"

KC_MATH_OF(Row, attention_flash_backward)

namespace kc::oracle::replay {

namespace {
using D1 = double (*)(double);
using attention::exp_t;
using attention::Layout;
using attention::Mask;
using attention::scores_t;
}  // namespace

// attention_flash_backward (§12): the cell's rows (head gi, query qi) in
// the kernel's nesting, each recomputing its softmax, then dV += p dO,
// dP and rd over all keys, dS = (dP - rd) p (times 1 - t t with a
// softcap), and with g = dS scale (skipped where 0) dQ += g k, dK += g q.
std::vector<double> flash_backward_cell(DType t, const Params& params, std::span<const double> args) {
  const InT a{t};
  const attention::Cell c = attention::Cell::of(args);
  const Mask mk = Mask::of(params, t);
  const auto d = static_cast<std::size_t>(c.d), nk = static_cast<std::size_t>(c.sk), dq = c.dq_count();
  std::vector<double> out(c.outputs(), 0.0), pre, p(nk), dp(nk);
  const double cinv = a.div(1.0, mk.softcap);
  for (std::int64_t gi = 0; gi < c.g; ++gi)
    for (std::int64_t qi = 0; qi < c.sq; ++qi) {
      const Layout l = c.row(gi, qi);
      const std::span<const double> dout = c.dout_row(gi, qi);
      const std::vector<double> s = scores_t(a, l, mk, &pre);
      double m = -INFINITY;
      for (double x : s)
        if (x > m) m = x;
      if (!std::isfinite(m)) continue;
      double sum = 0.0;
      for (std::size_t j = 0; j < nk; ++j) sum = a.add(sum, p[j] = std::isfinite(s[j]) ? exp_t(a, a.sub(s[j], m)) : 0.0);
      const double inv = a.div(1.0, sum);
      for (std::size_t j = 0; j < nk; ++j) p[j] = a.mul(p[j], inv);
      for (std::size_t j = 0; j < nk; ++j)
        if (p[j] != 0)
          for (std::size_t x = 0; x < d; ++x) {
            double& o = out[dq + nk * d + j * d + x];
            o = a.add(o, a.mul(p[j], dout[x]));
          }
      double rd = 0.0;
      for (std::size_t j = 0; j < nk; ++j) {
        double f = 0.0;
        for (std::size_t x = 0; x < d; ++x) f = a.add(f, a.mul(dout[x], l.v[j * d + x]));
        dp[j] = f;
        rd = a.add(rd, a.mul(p[j], f));
      }
      const std::size_t row = static_cast<std::size_t>(gi * c.sq + qi) * d;
      for (std::size_t j = 0; j < nk; ++j) {
        double ds = a.mul(a.sub(dp[j], rd), p[j]);
        if (mk.softcap != 0 && std::isfinite(pre[j])) {
          const double th = a.call(::tanhf, static_cast<D1>(::tanh), a.mul(pre[j], cinv));
          ds = a.mul(ds, a.sub(1.0, a.mul(th, th)));
        }
        const double g = a.mul(ds, mk.scale);
        if (g == 0) continue;
        for (std::size_t x = 0; x < d; ++x) out[row + x] = a.add(out[row + x], a.mul(g, l.k[j * d + x]));
        for (std::size_t x = 0; x < d; ++x) {
          double& o = out[dq + j * d + x];
          o = a.add(o, a.mul(g, l.q[x]));
        }
      }
    }
  return out;
}

double attention_flash_backward(const Row& in) {
  // Each element replays its whole cell: the last cell's outputs are kept
  // for the next element of the same cell (same dtype, params and bits).
  static thread_local rows::RowKey key;
  static thread_local std::vector<double> out;
  if (!key.same_or_set(in, 0)) out = flash_backward_cell(in.ctx.dtype, *in.ctx.params, in.a);
  return out.at(in.i);
}

}  // namespace kc::oracle::replay

namespace kc::oracle {

namespace {

using attention::Cell;
using attention::Mask;
using rows::B;
using rows::Stage;
using rows::Stages;
using D1 = double (*)(double);

struct CellGrades {
  bool special = false, overflow = false;
  bool inputs_finite = true;  // special only through the reference's own steps (an overflowed score)
  std::vector<Mp> z;       // the exact outputs
  std::vector<Mp> z_given;  // ... with the scale and softcap as given (Exact::other_reading), once asked
  bool given_done = false;
  std::vector<B> bound;    // their bounds
  std::vector<B> rms;      // their rms bounds (rows::Stage::r: the case statistics)
  std::vector<double> replay;  // special cells: the kernel's replay
  std::vector<bool> nan_ok;    // outputs PyTorch's NaN of a query row with no admissible key reaches (empty: none)
};

// A query row with no admissible key has no softmax: the reference skips
// it (zero gradients); PyTorch's math backend carries its softmax's NaN
// into that row's dQ and every dK and dV of the cell (P^T dO, dS^T Q). Both
// are correct (docs/conformance-audit.md): the outputs NaN may reach.
std::vector<bool> masked_row_nans(const Cell& c, const Mask& mk) {
  std::vector<bool> ok;
  const auto d = static_cast<std::size_t>(c.d);
  for (std::int64_t qi = 0; qi < c.sq; ++qi) {
    bool any = false;
    for (std::int64_t j = 0; j < c.sk && !any; ++j) any = mk.admissible(qi, j);
    if (any) continue;
    if (ok.empty()) {
      ok.assign(c.outputs(), false);
      std::fill(ok.begin() + static_cast<std::ptrdiff_t>(c.dq_count()), ok.end(), true);  // dK, dV
    }
    for (std::int64_t gi = 0; gi < c.g; ++gi)
      std::fill_n(ok.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(gi * c.sq + qi) * d),
                  static_cast<std::ptrdiff_t>(d), true);
  }
  return ok;
}

bool all_finite(std::span<const double> xs) {
  for (double x : xs)
    if (!std::isfinite(x)) return false;
  return true;
}

// What every row of a cell shares: its shape and mask, the arithmetic in
// T and as stages, 1 / softcap both ways, and where dK and dV lie among
// the outputs (after dQ's dq).
struct CellCtx {
  const Cell& c;
  const Mask& mk;
  DType t;
  const replay::InT& a;
  Stages& st;
  std::size_t d, nk, dq;
  double cinv_t;
  Stage cinv;
  std::size_t dk_at(std::size_t j, std::size_t x) const { return dq + j * d + x; }
  std::size_t dv_at(std::size_t j, std::size_t x) const { return dq + nk * d + j * d + x; }
};

// A row's work, its buffers kept across the rows of a cell: the kernel's
// steps in T and as stages (e, p, dP and rd), and the exact dP and
// weights.
struct RowWork {
  explicit RowWork(std::size_t nk) : e_t(nk), p_t(nk), dp_t(nk), e(nk), p(nk), dp(nk), dpx(nk) {}
  std::vector<double> e_t, p_t, dp_t;
  std::vector<Stage> e, p, dp;
  std::vector<Mp> dpx;
  attention::ExactWeights ew;
  double rd_t = 0.0;
  Stage rd;
  // acc += f v, the product rounded once at the working precision, then
  // the sum: what acc += f * Mp(v) does, without an MPFR value made and
  // freed per term (3 d of them per key).
  void add_product(Mp& acc, const Mp& f, double v) {
    mpfr_mul_d(raw(product), raw(f), v, MPFR_RNDN);
    mpfr_add(raw(acc), raw(acc), raw(product), MPFR_RNDN);
  }
  Mp product;  // (made at the working precision, with the row's work)
};

// The kernel's steps of one row in T (which weights and dS are 0: its
// skips) and as stages: e^(s - m), 1/sum, p = e inv, dP and the rd fold.
void kernel_steps(const CellCtx& cx, const attention::Layout& l, const attention::Scores& s,
                  std::span<const double> dout, RowWork& w) {
  const replay::InT& a = cx.a;
  Stages& st = cx.st;
  const std::size_t d = cx.d, nk = cx.nk;
  double m = -INFINITY;
  for (double x : s.t)
    if (x > m) m = x;
  double sum_t = 0.0;
  std::vector<Stage> adm;
  for (std::size_t j = 0; j < nk; ++j) {
    w.e_t[j] = 0, w.e[j] = Stages::exact(0);
    if (!s.admissible[j]) continue;
    sum_t = a.add(sum_t, w.e_t[j] = attention::exp_t(a, s.t[j], m));
    adm.push_back(w.e[j] = st.exp(st.sub(s.st[j], Stages::exact(m))));
  }
  const double inv_t = a.div(1.0, sum_t);
  const Stage inv = st.div(Stages::exact(1), st.fold(adm));
  std::vector<Stage> rd_terms, f;
  double rd_t = 0.0;
  for (std::size_t j = 0; j < nk; ++j) {
    w.p_t[j] = s.admissible[j] ? a.mul(w.e_t[j], inv_t) : 0.0;
    w.p[j] = s.admissible[j] ? st.mul(w.e[j], inv) : Stages::exact(0);
    double fx = 0.0;
    f.clear();
    for (std::size_t x = 0; x < d; ++x) {
      fx = a.add(fx, a.mul(dout[x], l.v[j * d + x]));
      f.push_back(st.mul(Stages::exact(dout[x]), Stages::exact(l.v[j * d + x])));
    }
    w.dp_t[j] = fx, w.dp[j] = st.fold(f);
    rd_t = a.add(rd_t, a.mul(w.p_t[j], w.dp_t[j]));
    rd_terms.push_back(st.mul(w.p[j], w.dp[j]));
  }
  w.rd_t = rd_t;
  w.rd = st.fold(rd_terms);
}

// Exact: the softmax P = w / sum (into w.ew.w), dP (w.dpx) and rd, the
// last returned, in MPFR.
Mp exact_row(const CellCtx& cx, const attention::Layout& l, const attention::Scores& s,
             std::span<const double> dout, RowWork& w) {
  static thread_local ExactSum dot;
  attention::ExactWeights& ew = w.ew;
  attention::exact_weights(l, cx.mk, s, ew);
  Mp rdx(0);
  for (std::size_t j = 0; j < cx.nk; ++j) {
    if (!s.admissible[j]) continue;
    ew.w[j] /= ew.sum;  // P_j
    dot.clear();
    for (std::size_t x = 0; x < cx.d; ++x) dot.add_product(dout[x], l.v[j * cx.d + x]);
    dot.round_into(raw(w.dpx[j]), MPFR_RNDN);
    rdx += ew.w[j] * w.dpx[j];
  }
  return rdx;
}

// The kernel's g = dS S of key j in T and as a stage: dS = (dP - rd) p,
// times 1 - tanh^2(s_pre / c) where capped.
std::pair<double, Stage> kernel_g(const CellCtx& cx, const attention::Scores& s, const RowWork& w, std::size_t j) {
  const replay::InT& a = cx.a;
  Stages& st = cx.st;
  double ds_t = a.mul(a.sub(w.dp_t[j], w.rd_t), w.p_t[j]);
  Stage ds = st.mul(st.sub(w.dp[j], w.rd), w.p[j]);
  if (cx.mk.softcap != 0) {
    const double th_t = a.call(::tanhf, static_cast<D1>(::tanh), a.mul(s.pre_t[j], cx.cinv_t));
    ds_t = a.mul(ds_t, a.sub(1.0, a.mul(th_t, th_t)));
    const Stage th = st.tanh(st.mul(s.pre[j], cx.cinv));
    ds = st.mul(ds, st.sub(Stages::exact(1), st.mul(th, th)));
  }
  return {a.mul(ds_t, cx.mk.scale), st.mul(ds, Stages::exact(cx.mk.scale))};
}

// One row (gi, qi) of the cell into the exact outputs z and each output's
// terms (their stages); false where a score overflowed (the cell is then
// special: graded against the replay).
bool grade_row(const CellCtx& cx, std::int64_t gi, std::int64_t qi, RowWork& w,
               std::vector<std::vector<Stage>>& terms, std::vector<Mp>& z) {
  const attention::Layout l = cx.c.row(gi, qi);
  const std::span<const double> dout = cx.c.dout_row(gi, qi);
  const attention::Scores s = attention::scores(l, cx.mk, cx.t, cx.st);
  if (!s.any) return true;  // the kernel skips the row; its exact contribution is 0
  if (s.special) return false;
  kernel_steps(cx, l, s, dout, w);
  const Mp rdx = exact_row(cx, l, s, dout, w);
  const std::size_t d = cx.d;
  const std::size_t row = static_cast<std::size_t>(gi * cx.c.sq + qi) * d;
  for (std::size_t j = 0; j < cx.nk; ++j) {
    if (!s.admissible[j]) continue;  // P = 0: no term of any output (the kernel's g and p are 0 too)
    const Mp g = w.ew.w[j] * (w.dpx[j] - rdx) * w.ew.cap[j] * Mp(cx.mk.scale);
    for (std::size_t x = 0; x < d; ++x) {
      w.add_product(z[row + x], g, l.k[j * d + x]);
      w.add_product(z[cx.dk_at(j, x)], g, l.q[x]);
      w.add_product(z[cx.dv_at(j, x)], w.ew.w[j], dout[x]);
      terms[cx.dv_at(j, x)].push_back(attention::term(cx.st, w.p_t[j], w.p[j], dout[x]));
    }
    const auto [g_t, gs] = kernel_g(cx, s, w, j);
    for (std::size_t x = 0; x < d; ++x) {
      terms[row + x].push_back(attention::term(cx.st, g_t, gs, l.k[j * d + x]));
      terms[cx.dk_at(j, x)].push_back(attention::term(cx.st, g_t, gs, l.q[x]));
    }
  }
  return true;
}

// The exact outputs under the other reading of the parameters (their
// values as given, not narrowed to f32 and T), where it differs; left
// empty where a score overflows under it.
void exact_as_given(const Row& in, CellGrades& cg) {
  if (std::exchange(cg.given_done, true)) return;
  const DType t = in.ctx.dtype;
  const Cell c = Cell::of(in.a);
  const Mask mk = Mask::of(*in.ctx.params, t).as_given(*in.ctx.params);
  const replay::InT a{t};
  Stages st(t);
  const CellCtx cx{c, mk, t, a, st, static_cast<std::size_t>(c.d), static_cast<std::size_t>(c.sk), c.dq_count(),
                   a.div(1.0, mk.softcap), st.div(Stages::exact(1), Stages::exact(mk.softcap))};
  std::vector<std::vector<Stage>> terms(c.outputs());  // (unused: the bound is the first reading's)
  RowWork w(cx.nk);
  cg.z_given.assign(c.outputs(), Mp(0));
  for (std::int64_t gi = 0; gi < c.g; ++gi)
    for (std::int64_t qi = 0; qi < c.sq; ++qi)
      if (!grade_row(cx, gi, qi, w, terms, cg.z_given)) {
        cg.z_given.clear();
        return;
      }
}

void grade_cell(const Row& in, CellGrades& cg) {
  const DType t = in.ctx.dtype;
  const Cell c = Cell::of(in.a);
  const Mask mk = Mask::of(*in.ctx.params, t);
  const replay::InT a{t};
  Stages st(t);
  const auto d = static_cast<std::size_t>(c.d), nk = static_cast<std::size_t>(c.sk), dq = c.dq_count();
  const std::size_t n = c.outputs();
  cg.special = !all_finite(c.q) || !all_finite(c.dout) || !all_finite(c.k) || !all_finite(c.v) ||
               (c.has_slope && !all_finite(c.slopes));
  cg.inputs_finite = !cg.special;
  std::vector<std::vector<Stage>> terms(n);
  cg.z.assign(n, Mp(0));
  const double cinv_t = a.div(1.0, mk.softcap);
  const Stage cinv = st.div(Stages::exact(1), Stages::exact(mk.softcap));
  const CellCtx cx{c, mk, t, a, st, d, nk, dq, cinv_t, cinv};
  RowWork w(nk);
  for (std::int64_t gi = 0; gi < c.g && !cg.special; ++gi)
    for (std::int64_t qi = 0; qi < c.sq && !cg.special; ++qi)
      if (!grade_row(cx, gi, qi, w, terms, cg.z)) cg.special = true;  // a score overflowed: the replay's
  cg.nan_ok = masked_row_nans(c, mk);
  if (cg.special) {
    cg.replay = replay::flash_backward_cell(t, *in.ctx.params, in.a);
    return;
  }
  cg.bound.resize(n);
  cg.rms.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Stage out = st.fold(terms[i]);
    cg.bound[i] = out.e, cg.rms[i] = out.rms();
  }
  cg.overflow = st.overflow;
}

}  // namespace

void attention_flash_backward(const Row& in, Exact& out) {
  static thread_local rows::RowKey key;
  static thread_local CellGrades cg;  // (the cell of the element being graded: other_reading's too)
  if (!key.same_or_set(in)) {
    cg = CellGrades{};
    grade_cell(in, cg);
  }
  if (cg.special) {
    // Non-finite inputs: which outputs become inf or NaN is the
    // reference's definition (its skips), graded in both profiles; a finite
    // output there, and every output of a cell whose scores overflow in T,
    // has no bound derived here: the reference profile grades its bits.
    out.value = Mp(cg.replay.at(in.i));
    out.replayed = true;
    out.unbounded = cg.inputs_finite || std::isfinite(cg.replay.at(in.i));
    if (!cg.nan_ok.empty() && cg.nan_ok.at(in.i)) out.alternatives.push_back(Mp(NAN));
    return;
  }
  out.value = cg.z.at(in.i);
  if (!cg.nan_ok.empty() && cg.nan_ok.at(in.i)) out.alternatives.push_back(Mp(NAN));
  const Mask mk = Mask::of(*in.ctx.params, in.ctx.dtype);
  if (!(mk.as_given(*in.ctx.params) == mk))
    out.other_reading = [&in]() -> std::optional<Mp> {
      exact_as_given(in, cg);
      return cg.z_given.empty() ? std::nullopt : std::optional<Mp>(cg.z_given.at(in.i));
    };
  const B bound = cg.bound.at(in.i);
  if (std::isfinite(bound)) rows::set_bound(out, in.ctx.dtype, bound, cg.rms.at(in.i));
  // (a non-finite replay raises the overflow flag first: only then can the
  // reference's steps leave the finite range)
  if (cg.overflow) rows::settle_overflow(in, replay::attention_flash_backward, bound, true, out);
}

}  // namespace kc::oracle
