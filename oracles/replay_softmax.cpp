// Replays of softmax and log_softmax over the last axis and of their
// backwards (reference-semantics.md §10): the element's whole row redone in
// T in the reference's order. Args: the row of the first input, then (the
// backwards) the row of g; form: the element's position in the row.
#include <cmath>
#include <limits>

#include "oracles/replay.h"

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
  const InT a{in.ctx.dtype};
  const auto [m, s] = max_and_sum(a, in.a);
  const double x = in.a[in.i];
  return a.div(a.call(::expf, static_cast<D1>(::exp), a.sub(x, m)), s);
}

double log_softmax(const Row& in) {
  const InT a{in.ctx.dtype};
  const auto [m, s] = max_and_sum(a, in.a);
  const double l = a.call(::logf, static_cast<D1>(::log), s);
  return a.sub(a.sub(in.a[in.i], m), l);
}

double softmax_backward(const Row& in) {
  const InT a{in.ctx.dtype};
  const std::size_t n = in.a.size(), i = in.i;
  double d = 0.0;
  for (std::size_t j = 0; j < n; ++j) d = a.add(d, a.mul(in.a[j], in.b[j]));
  return a.mul(in.a[i], a.sub(in.b[i], d));
}

double log_softmax_backward(const Row& in) {
  const InT a{in.ctx.dtype};
  const std::size_t n = in.a.size(), i = in.i;
  double g = 0.0;
  for (std::size_t j = 0; j < n; ++j) g = a.add(g, in.b[j]);
  return a.sub(in.b[i], a.mul(a.call(::expf, static_cast<D1>(::exp), in.a[i]), g));
}

}  // namespace kc::oracle::replay
