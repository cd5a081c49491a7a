// Replays of attention_naive and attention_flash (reference-semantics.md
// §12): the element's query row redone in T, scores then the naive or the
// tiled online softmax, and the output column d (oracles/attention_layout.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "oracles/attention_layout.h"
#include "oracles/replay.h"
#include "oracles/row_support.h"

namespace kc::oracle::replay {

namespace {

using D1 = double (*)(double);
using attention::Layout;
using attention::Mask;

double exp_t(const InT& a, double x) { return a.call(::expf, static_cast<D1>(::exp), x); }

// The row's scores; `pre`, where given, gets them after the scale (before
// softcap and ALiBi), -inf where masked.
std::vector<double> scores_t(const InT& a, const Layout& l, const Mask& mk, std::vector<double>* pre = nullptr) {
  std::vector<double> s(static_cast<std::size_t>(l.sk), -INFINITY);
  if (pre) pre->assign(s.size(), -INFINITY);
  const double cinv = a.div(1.0, mk.softcap);
  for (std::int64_t kj = 0; kj < l.sk; ++kj) {
    if (!mk.admissible(l.qi, kj)) continue;
    double dot = 0.0;
    for (std::int64_t x = 0; x < l.d; ++x) dot = a.add(dot, a.mul(l.q[static_cast<std::size_t>(x)], l.k[static_cast<std::size_t>(kj * l.d + x)]));
    double v = a.mul(dot, mk.scale);
    if (pre) (*pre)[static_cast<std::size_t>(kj)] = v;
    if (mk.softcap != 0) v = a.mul(a.call(::tanhf, static_cast<D1>(::tanh), a.mul(v, cinv)), mk.softcap);
    if (l.has_slope) v = a.add(v, a.mul(l.slope, static_cast<double>(static_cast<float>(kj) - static_cast<float>(l.qi))));
    s[static_cast<std::size_t>(kj)] = v;
  }
  return s;
}

}  // namespace

double attention_naive(const Row& in) {
  const InT a{in.ctx.dtype};
  const Layout l = Layout::of(in.a);
  const std::vector<double> s = scores_t(a, l, Mask::of(*in.ctx.params, in.ctx.dtype));
  double m = -INFINITY;
  for (double x : s)
    if (x > m) m = x;
  if (!std::isfinite(m)) return 0.0;
  std::vector<double> e(s.size());
  double sum = 0.0;
  for (std::size_t j = 0; j < s.size(); ++j) sum = a.add(sum, e[j] = std::isfinite(s[j]) ? exp_t(a, a.sub(s[j], m)) : 0.0);
  const double inv = a.div(1.0, sum);
  double out = 0.0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double p = a.mul(e[j], inv);
    if (p != 0) out = a.add(out, a.mul(p, l.v[j * static_cast<std::size_t>(l.d) + in.i]));
  }
  return out;
}

double attention_flash(const Row& in) {
  const InT a{in.ctx.dtype};
  const Layout l = Layout::of(in.a);
  const std::vector<double> s = scores_t(a, l, Mask::of(*in.ctx.params, in.ctx.dtype));
  double sum = 0.0, o = 0.0;
  attention::each_tile(s, [&](std::size_t t0, std::size_t t1, double m, double m_new) {
    const double alpha = std::isfinite(m) ? exp_t(a, a.sub(m, m_new)) : 0.0;
    double r = 0.0;
    std::vector<double> p(t1 - t0);
    for (std::size_t j = t0; j < t1; ++j) r = a.add(r, p[j - t0] = std::isfinite(s[j]) ? exp_t(a, a.sub(s[j], m_new)) : 0.0);
    sum = a.add(a.mul(alpha, sum), r);
    o = a.mul(o, alpha);
    for (std::size_t j = t0; j < t1; ++j)
      if (p[j - t0] != 0) o = a.add(o, a.mul(p[j - t0], l.v[j * static_cast<std::size_t>(l.d) + in.i]));
  });
  return sum == 0 ? 0.0 : a.mul(o, a.div(1.0, sum));
}

}  // namespace kc::oracle::replay

namespace kc::oracle::replay {

// attention_paged_naive (§12): the element's args hold its context's rows
// gathered through the block table and its absolute position a as qi; the
// mask k > a is naive's top-left causal rule at a, with no window.
Params paged_as_naive(const Params& p) {
  return Params()
      .set("softmax_scale", p.real("softmax_scale"))
      .set("softcap", p.real("softcap"))
      .set("causal", std::int64_t{1})
      .set("window_left", std::int64_t{-1})
      .set("window_right", std::int64_t{-1});
}

double attention_paged(const Row& in) {
  const Params naive = paged_as_naive(*in.ctx.params);
  Row as_naive = in;
  as_naive.ctx.params = &naive;
  return attention_naive(as_naive);
}

}  // namespace kc::oracle::replay

namespace kc::oracle::replay {

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
  if (!key.same_or_set(in.ctx.dtype, 0, in.ctx.params, in.a, {})) out = flash_backward_cell(in.ctx.dtype, *in.ctx.params, in.a);
  return out.at(in.i);
}

}  // namespace kc::oracle::replay
