// Replays of layer_norm and rms_norm over the last axis and of their
// backwards (reference-semantics.md §10): the element's row redone in T in
// the reference's order, with N = T(n) and E = T(eps) (NumCast, §0.3).
// Args: the row of x, then (the backwards) the row of g; form: the
// element's position in the row.
#include <cmath>
#include <vector>

#include "oracles/replay.h"

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
  const RowIn w = row_in(in, false);
  const auto [mu, r] = mu_r(w);
  return w.a.mul(w.a.sub(w.x[w.i], mu), r);
}

double layer_norm_backward(const Row& in) {
  const RowIn w = row_in(in, true);
  const auto [mu, r] = mu_r(w);
  double sg = 0.0, sgy = 0.0;
  for (std::size_t j = 0; j < w.n; ++j) {
    sg = w.a.add(sg, w.g[j]);
    sgy = w.a.add(sgy, w.a.mul(w.g[j], w.a.mul(w.a.sub(w.x[j], mu), r)));
  }
  const double mg = w.a.div(sg, w.count), mgy = w.a.div(sgy, w.count);
  const double yh = w.a.mul(w.a.sub(w.x[w.i], mu), r);
  return w.a.mul(r, w.a.sub(w.a.sub(w.g[w.i], mg), w.a.mul(yh, mgy)));
}

double rms_norm(const Row& in) {
  const RowIn w = row_in(in, false);
  double s = 0.0;
  for (double v : w.x) s = w.a.add(s, w.a.mul(v, v));
  const double r = w.a.div(1.0, w.a.sqrt(w.a.add(w.a.div(s, w.count), w.eps)));
  return w.a.mul(w.x[w.i], r);
}

double rms_norm_backward(const Row& in) {
  const RowIn w = row_in(in, true);
  double s2 = 0.0, sgx = 0.0;
  for (std::size_t j = 0; j < w.n; ++j) {
    s2 = w.a.add(s2, w.a.mul(w.x[j], w.x[j]));
    sgx = w.a.add(sgx, w.a.mul(w.g[j], w.x[j]));
  }
  const double d = w.a.add(w.a.div(s2, w.count), w.eps);
  const double r = w.a.div(1.0, w.a.sqrt(d));
  const double c = w.a.div(sgx, w.a.mul(w.count, d));
  return w.a.mul(r, w.a.sub(w.g[w.i], w.a.mul(w.x[w.i], c)));
}

}  // namespace kc::oracle::replay
