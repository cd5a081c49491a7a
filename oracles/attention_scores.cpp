#include "oracles/attention_scores.h"

#include <cmath>

#include "oracles/exact_sum.h"

namespace kc::oracle::attention {

using rows::Stage;
using rows::Stages;
using D1 = double (*)(double);

Scores scores(const Layout& l, const Mask& mk, DType t, Stages& st) {
  Scores s;
  const replay::InT a{t};
  const auto n = static_cast<std::size_t>(l.sk), d = static_cast<std::size_t>(l.d);
  s.t.assign(n, -INFINITY);
  s.st.assign(n, Stage{});
  s.pre_t.assign(n, -INFINITY);
  s.pre.assign(n, Stage{});
  s.admissible.assign(n, false);
  for (double x : l.q) s.special |= !std::isfinite(x);
  s.special |= l.has_slope && !std::isfinite(l.slope);
  const double cinv_t = a.div(1.0, mk.softcap);
  const Stage cinv = st.div(Stages::exact(1), Stages::exact(mk.softcap));
  std::vector<Stage> terms;
  for (std::size_t j = 0; j < n; ++j) {
    if (!mk.admissible(l.qi, static_cast<std::int64_t>(j))) continue;
    s.admissible[j] = s.any = true;
    for (std::size_t x = 0; x < d; ++x) s.special |= !std::isfinite(l.k[j * d + x]);
    double dot = 0.0;
    terms.clear();
    for (std::size_t x = 0; x < d; ++x) {
      dot = a.add(dot, a.mul(l.q[x], l.k[j * d + x]));
      terms.push_back(st.mul(Stages::exact(l.q[x]), Stages::exact(l.k[j * d + x])));
    }
    double v = a.mul(dot, mk.scale);
    Stage sv = st.mul(st.fold(terms), Stages::exact(mk.scale));
    s.pre_t[j] = v, s.pre[j] = sv;
    if (mk.softcap != 0) {
      v = a.mul(a.call(::tanhf, static_cast<D1>(::tanh), a.mul(v, cinv_t)), mk.softcap);
      sv = st.mul(st.tanh(st.mul(sv, cinv)), Stages::exact(mk.softcap));
    }
    if (l.has_slope) {
      const double delta = static_cast<double>(static_cast<float>(j) - static_cast<float>(l.qi));
      v = a.add(v, a.mul(l.slope, delta));
      sv = st.add(sv, st.mul(Stages::exact(l.slope), Stages::exact(delta)));
    }
    s.t[j] = v, s.st[j] = sv;
    s.special |= !std::isfinite(v);
  }
  s.special |= !s.any;
  return s;
}

void exact_weights(const Layout& l, const Mask& mk, const Scores& s, ExactWeights& out) {
  static thread_local ExactSum dot;
  const auto n = static_cast<std::size_t>(l.sk), d = static_cast<std::size_t>(l.d);
  // New values at the scope's precision (an Mp keeps the one it was made at).
  out.w.assign(n, Mp(0));
  out.cap.assign(n, Mp(1));
  Mp zmax;
  bool any = false;
  for (std::size_t j = 0; j < n; ++j) {
    if (!s.admissible[j]) continue;
    dot.clear();
    for (std::size_t x = 0; x < d; ++x) dot.add_product(l.q[x], l.k[j * d + x]);
    Mp& z = out.w[j];
    dot.round_into(raw(z), MPFR_RNDN);
    z *= Mp(mk.scale);
    out.cap[j] = Mp(1);
    if (mk.softcap != 0) {
      z /= Mp(mk.softcap);
      mpfr_tanh(raw(z), raw(z), MPFR_RNDN);
      out.cap[j] -= z * z;
      z *= Mp(mk.softcap);
    }
    if (l.has_slope) z += Mp(l.slope) * (Mp(static_cast<double>(j)) - Mp(static_cast<double>(l.qi)));
    if (!any || z > zmax) zmax = z, any = true;
  }
  out.sum = Mp(0);
  for (std::size_t j = 0; j < n; ++j) {
    if (!s.admissible[j]) continue;
    out.w[j] -= zmax;
    mpfr_exp(raw(out.w[j]), raw(out.w[j]), MPFR_RNDN);
    out.sum += out.w[j];
  }
}

double exp_t(const replay::InT& a, double x, double m) { return a.call(::expf, static_cast<D1>(::exp), a.sub(x, m)); }

Stage term(Stages& st, double p_t, const Stage& p, double v) {
  if (p_t == 0) return std::isfinite(v) ? Stage{p.v * v, std::fabs(p.v * v) + p.e * std::fabs(v)} : Stage{0, 0};
  return st.mul(p, Stages::exact(v));
}


double exp_t(const replay::InT& a, double x) { return a.call(::expf, static_cast<D1>(::exp), x); }

std::vector<double> scores_t(const replay::InT& a, const Layout& l, const Mask& mk, std::vector<double>* pre) {
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

}  // namespace kc::oracle::attention
