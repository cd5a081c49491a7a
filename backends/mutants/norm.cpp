// Planted defects of the norms, and one correct variant. Each recomputes
// the f32 rows (backends/mutants/support.h f32_rows) with eps as given,
// read once the reference has accepted the call (bad input raises its
// error first).
#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

using Row = std::vector<float>;

float eps_of(const Params& p) { return static_cast<float>(p.real("eps")); }

float mean(const Row& x) {
  float s = 0;
  for (float v : x) s += v;
  return s / static_cast<float>(x.size());
}

// y = (x - mu) r with the variance `var` computes from the row and its mean.
template <class Var, class Rstd>
Outputs layer_norm_with(std::string_view kernel, std::span<const Tensor> in, const Params& p, Var var, Rstd rstd) {
  return f32_rows(kernel, in, p, [&](const Row& x, const Row&, Row& y) {
    const float mu = mean(x), r = rstd(var(x, mu), eps_of(p));
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = (x[j] - mu) * r;
  });
}
float biased(const Row& x, float mu) {
  float q = 0;
  for (float v : x) q += (v - mu) * (v - mu);
  return q / static_cast<float>(x.size());
}
float rstd_inside(float v, float eps) { return 1.0f / std::sqrt(v + eps); }

Outputs layer_norm_unbiased(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The variance over n - 1 (torch.var's default), not n.
  return layer_norm_with(kernel, in, p, [](const Row& x, float mu) {
    float q = 0;
    for (float v : x) q += (v - mu) * (v - mu);
    return x.size() > 1 ? q / static_cast<float>(x.size() - 1) : q;
  }, rstd_inside);
}

Outputs layer_norm_eps_outside(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // 1 / (sqrt(v) + eps): eps outside the square root.
  return layer_norm_with(kernel, in, p, biased, [](float v, float eps) { return 1.0f / (std::sqrt(v) + eps); });
}

Outputs layer_norm_one_pass(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // v = mean(x^2) - mu^2: the one-pass formula, which cancels for rows
  // far from 0 (numerically unstable, not a different definition).
  return layer_norm_with(kernel, in, p, [](const Row& x, float mu) {
    float q = 0;
    for (float v : x) q += v * v;
    return q / static_cast<float>(x.size()) - mu * mu;
  }, rstd_inside);
}

// 1/sqrt(v + eps) as an optimised kernel takes it: a 12-bit estimate (an
// rsqrtps-class approximation, here 1/sqrt truncated to 12 bits) and one
// Newton step r (3/2 - a r^2 / 2) in f32: about 2 to 4 ulps off, where the
// reference's sqrt and division are two correct roundings. It stays within
// the bound (0.50, 0.50 and 0.38 of it at seeds 1 to 3, where the
// reference reaches 0.50): the bound sums every stage's worst case, and a
// few ulps in r stay inside it. Correct by the contract, not the
// reference's bits.
float rstd_fast(float v, float eps) {
  const float a = v + eps;
  float r0 = 1.0f / std::sqrt(a);
  if (!std::isfinite(r0) || !std::isfinite(a) || r0 == 0) return r0;  // (the special values as the reference)
  std::uint32_t b;
  std::memcpy(&b, &r0, 4);
  b &= 0xFFFFF800u;  // 12 significant bits
  std::memcpy(&r0, &b, 4);
  return r0 * (1.5f - 0.5f * a * r0 * r0);
}

Outputs layer_norm_fast_rsqrt(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return layer_norm_with(kernel, in, p, biased, rstd_fast);
}

// The toward-zero mutants: the reference's steps, in its order, with every
// operation rounded toward zero (a kernel run in that mode: each step
// within 2u where the bound counts u); sqrt too (the correctly rounded
// root's neighbour toward zero where inexact). Rows holding a non-finite
// or huge value (1e15 and above) keep the reference's outputs (f32_rows):
// the defect is in the rounding only.
float z32(double v) { return static_cast<float>(rz32(v)); }
float sqrt_toward_zero(float a) {
  const float r = std::sqrt(a);
  return static_cast<double>(r) * r > a ? std::nextafter(r, 0.0f) : r;
}
bool ordinary(const Row& v) {
  for (float e : v)
    if (!std::isfinite(e) || !(std::fabs(e) < 1e15f)) return false;
  return true;
}
// r = 1 / sqrt(q / n + eps).
float rstd_toward_zero(float q, double n, float eps) {
  return z32(1.0 / sqrt_toward_zero(z32(static_cast<double>(z32(q / n)) + eps)));
}
// layer_norm's mu and r: mu = fold(x) / n, q = fold((x - mu)^2).
std::pair<float, float> mean_rstd_toward_zero(const Row& x, float eps) {
  const auto n = static_cast<double>(x.size());
  float s = 0, q = 0;
  for (float v : x) s = z32(static_cast<double>(s) + v);
  const float mu = z32(s / n);
  for (float v : x) {
    const float d = z32(static_cast<double>(v) - mu);
    q = z32(static_cast<double>(q) + z32(static_cast<double>(d) * d));
  }
  return {mu, rstd_toward_zero(q, n, eps)};
}
float times(float a, float b) { return z32(static_cast<double>(a) * b); }
float minus(float a, float b) { return z32(static_cast<double>(a) - b); }
float plus(float a, float b) { return z32(static_cast<double>(a) + b); }

Outputs rms_norm_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return f32_rows(kernel, in, p, [&](const Row& x, const Row&, Row& y) {
    if (!ordinary(x)) return;
    float q = 0;
    for (float v : x) q = plus(q, times(v, v));
    const float r = rstd_toward_zero(q, static_cast<double>(x.size()), eps_of(p));
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = times(x[j], r);
  });
}

// Rows of one value (variance 0: 0 / sqrt(eps), or NaN with eps = 0) as the reference too.
Outputs layer_norm_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return f32_rows(kernel, in, p, [&](const Row& x, const Row&, Row& y) {
    bool spread = false;
    for (float v : x) spread |= v != x[0];
    if (!ordinary(x) || !spread) return;
    const auto [mu, r] = mean_rstd_toward_zero(x, eps_of(p));
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = times(minus(x[j], mu), r);
  });
}

// The backwards likewise. Random rows do not align their folds' errors
// (0.51 of layer_norm backward's bound at seeds 1 to 3); the driver's
// fold-adversarial rows (g = G, then values between u G and 2u G, each
// lost whole by a fold toward zero) do: 1.5 times the folds' gamma_(n-1)
// allowance.
Outputs layer_norm_backward_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return f32_rows(kernel, in, p, [&](const Row& x, const Row& g, Row& dx) {
    if (!ordinary(x) || !ordinary(g)) return;
    const auto n = static_cast<double>(x.size());
    const auto [mu, r] = mean_rstd_toward_zero(x, eps_of(p));
    Row yh(x.size());
    float sg = 0, sgy = 0;
    for (std::size_t j = 0; j < x.size(); ++j) {  // one loop, two folds
      yh[j] = times(minus(x[j], mu), r);
      sg = plus(sg, g[j]);
      sgy = plus(sgy, times(g[j], yh[j]));
    }
    const float mg = z32(sg / n), mgy = z32(sgy / n);
    for (std::size_t j = 0; j < x.size(); ++j) dx[j] = times(r, minus(minus(g[j], mg), times(yh[j], mgy)));
  });
}

Outputs rms_norm_backward_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return f32_rows(kernel, in, p, [&](const Row& x, const Row& g, Row& dx) {
    if (!ordinary(x) || !ordinary(g)) return;
    const auto n = static_cast<double>(x.size());
    float s2 = 0, sgx = 0;
    for (std::size_t j = 0; j < x.size(); ++j) s2 = plus(s2, times(x[j], x[j])), sgx = plus(sgx, times(g[j], x[j]));
    const float d = plus(z32(s2 / n), eps_of(p)), r = z32(1.0 / sqrt_toward_zero(d)), c = z32(sgx / static_cast<double>(z32(n * d)));
    for (std::size_t j = 0; j < x.size(); ++j) dx[j] = times(r, minus(g[j], times(x[j], c)));
  });
}

Outputs rms_norm_no_mean(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // sum x^2, not divided by n.
  return f32_rows(kernel, in, p, [&](const Row& x, const Row&, Row& y) {
    const float eps = eps_of(p);
    float s = 0;
    for (float v : x) s += v * v;
    const float r = 1.0f / std::sqrt(s + eps);
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] * r;
  });
}

Outputs rms_norm_divides(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // A correct variant: x / sqrt(q + eps), one rounding fewer than x (1/sqrt).
  return f32_rows(kernel, in, p, [&](const Row& x, const Row&, Row& y) {
    const float eps = eps_of(p);
    float s = 0;
    for (float v : x) s += v * v;
    const float d = std::sqrt(s / static_cast<float>(x.size()) + eps);
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] / d;
  });
}

Outputs layer_norm_backward_no_mean_g(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // dx = r (g - yh mean(g yh)): the mean of g left out.
  return f32_rows(kernel, in, p, [&](const Row& x, const Row& g, Row& dx) {
    const float eps = eps_of(p);
    const float mu = mean(x), r = rstd_inside(biased(x, mu), eps);
    float sgy = 0;
    for (std::size_t j = 0; j < x.size(); ++j) sgy += g[j] * ((x[j] - mu) * r);
    const float mgy = sgy / static_cast<float>(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) dx[j] = r * (g[j] - ((x[j] - mu) * r) * mgy);
  });
}

Outputs rms_norm_backward_c_without_n(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // c = sum(g x) / D: the count left out of the divisor.
  return f32_rows(kernel, in, p, [&](const Row& x, const Row& g, Row& dx) {
    const float eps = eps_of(p);
    float s2 = 0, sgx = 0;
    for (std::size_t j = 0; j < x.size(); ++j) s2 += x[j] * x[j], sgx += g[j] * x[j];
    const float d = s2 / static_cast<float>(x.size()) + eps, r = 1.0f / std::sqrt(d), c = sgx / d;
    for (std::size_t j = 0; j < x.size(); ++j) dx[j] = r * (g[j] - x[j] * c);
  });
}

}  // namespace

void register_norm(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"layer_norm_unbiased_variance", {"layer_norm_last_dim"}, {DType::f32}, "accuracy",
       "f32 layer_norm divides the variance by n - 1", layer_norm_unbiased},
      {"layer_norm_eps_outside_sqrt", {"layer_norm_last_dim"}, {DType::f32}, "accuracy",
       "f32 layer_norm adds eps outside the square root", layer_norm_eps_outside},
      {"layer_norm_one_pass_variance", {"layer_norm_last_dim"}, {DType::f32}, "accuracy",
       "f32 layer_norm takes the variance as mean(x^2) - mu^2 (cancels for rows far from 0)", layer_norm_one_pass},
      {"layer_norm_fast_rsqrt", {"layer_norm_last_dim"}, {DType::f32}, "semantics",
       "f32 layer_norm takes 1/sqrt(v + eps) as a 12-bit estimate and one Newton step (2 to 4 ulps off): within "
       "the bound, not the reference's bits",
       layer_norm_fast_rsqrt, "reference", true},
      {"layer_norm_toward_zero", {"layer_norm_last_dim"}, {DType::f32}, "statistics",
       "f32 layer_norm rounds every operation toward zero (each within 2u where the bound counts u)",
       layer_norm_toward_zero},
      {"rms_norm_toward_zero", {"rms_norm_last_dim"}, {DType::f32}, "statistics",
       "f32 rms_norm rounds every operation toward zero (each within 2u where the bound counts u; the errors' mean "
       "square three times its limit)",
       rms_norm_toward_zero},
      {"rms_norm_no_mean", {"rms_norm_last_dim"}, {DType::f32}, "accuracy",
       "f32 rms_norm forgets to divide sum x^2 by n", rms_norm_no_mean},
      {"rms_norm_divides", {"rms_norm_last_dim"}, {DType::f32}, "semantics",
       "f32 rms_norm divides by sqrt(q + eps) instead of multiplying by its reciprocal: correct, not the reference's "
       "bits", rms_norm_divides, "reference", true},
      {"layer_norm_backward_no_mean_g", {"layer_norm_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 layer_norm backward leaves mean(g) out", layer_norm_backward_no_mean_g},
      {"layer_norm_backward_toward_zero", {"layer_norm_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 layer_norm backward rounds every operation toward zero (a fold loses up to 2u per step where the bound "
       "counts u)",
       layer_norm_backward_toward_zero},
      {"rms_norm_backward_toward_zero", {"rms_norm_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 rms_norm backward rounds every operation toward zero (a fold loses up to 2u per step where the bound "
       "counts u)",
       rms_norm_backward_toward_zero},
      {"rms_norm_backward_c_without_n", {"rms_norm_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 rms_norm backward divides sum(g x) by D, not n D", rms_norm_backward_c_without_n},
  });
}

}  // namespace kc::mutants
