// LayerNorm and RMSNorm over the last axis, no affine, forward and
// backward, as the reference computes them (ops.rs:2577-2796;
// reference-semantics.md §10): every row of the last axis on its own, each
// reduction a fold in T from +0 in index order, the count and eps entering
// T through NumCast (cst: f64 -> f32 -> T for the halves, §0.3), the
// biased variance (/n), eps inside the square root, r = 1 / sqrt(.) (a
// division).
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {


// mu = fold(x)/N; v = fold((x - mu)^2)/N; r = 1/sqrt(v + E).
template <class T>
std::pair<T, T> mean_and_rstd(const T* x, std::int64_t n, T count, T eps) {
  T s = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) s = acc_add(s, x[j]);
  const T mu = div_in_order(s, count);
  T q = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    const T d = sub_in_order(x[j], mu);
    q = acc_add(q, mul_in_order(d, d));
  }
  return {mu, div_in_order(cst<T>(1.0), m_sqrt(acc_add(div_in_order(q, count), eps)))};
}

template <class T>
void layer_norm_row(const T* x, T* y, std::int64_t n, T count, T eps) {
  const auto [mu, r] = mean_and_rstd(x, n, count, eps);
  for (std::int64_t j = 0; j < n; ++j) y[j] = mul_in_order(sub_in_order(x[j], mu), r);
}

template <class T>
void layer_norm_backward_row(const T* x, const T* g, T* dx, std::int64_t n, T count, T eps) {
  const auto [mu, r] = mean_and_rstd(x, n, count, eps);
  T sg = cst<T>(0.0), sgy = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) {  // one loop, two folds
    sg = acc_add(sg, g[j]);
    sgy = acc_add(sgy, mul_in_order(g[j], mul_in_order(sub_in_order(x[j], mu), r)));
  }
  const T mg = div_in_order(sg, count), mgy = div_in_order(sgy, count);
  for (std::int64_t j = 0; j < n; ++j) dx[j] = mul_in_order(r, sub_in_order(sub_in_order(g[j], mg), mul_in_order(mul_in_order(sub_in_order(x[j], mu), r), mgy)));
}

template <class T>
void rms_norm_row(const T* x, T* y, std::int64_t n, T count, T eps) {
  T s = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) s = acc_add(s, mul_in_order(x[j], x[j]));
  const T r = div_in_order(cst<T>(1.0), m_sqrt(acc_add(div_in_order(s, count), eps)));
  for (std::int64_t j = 0; j < n; ++j) y[j] = mul_in_order(x[j], r);
}

template <class T>
void rms_norm_backward_row(const T* x, const T* g, T* dx, std::int64_t n, T count, T eps) {
  T s2 = cst<T>(0.0), sgx = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) {  // one loop, two folds
    s2 = acc_add(s2, mul_in_order(x[j], x[j]));
    sgx = acc_add(sgx, mul_in_order(g[j], x[j]));
  }
  const T d = acc_add(div_in_order(s2, count), eps);
  const T r = div_in_order(cst<T>(1.0), m_sqrt(d));
  const T c = div_in_order(sgx, mul_in_order(count, d));  // the product first
  for (std::int64_t j = 0; j < n; ++j) dx[j] = mul_in_order(r, sub_in_order(g[j], mul_in_order(x[j], c)));
}

enum class Norm { layer, rms };

void check_rank(std::string_view op, const Tensor& x) {
  if (x.rank() < 1)
    throw KernelError(std::string(op), "x", Rule::rank_min,
                      fmt::format("{}: input must be rank >= 1, got a scalar {}", op, dims_to_string(x.dims())));
}

Tensor norm(std::string_view op, Norm which, const Tensor& x, double eps) {
  check_rank(op, x);
  const std::int64_t n = x.dims().back();
  if (n == 0)
    throw KernelError(std::string(op), "x", Rule::last_dim_zero,
                      fmt::format("{}: last dim must be non-zero (x is {})", op, dims_to_string(x.dims())));
  Tensor y(x.dtype(), x.dims());
  by_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.as<T>().data();
    T* ys = y.as_mutable<T>().data();
    const T count = cst<T>(static_cast<double>(n)), e = cst<T>(eps);
    for (std::int64_t at = 0; at < x.numel(); at += n)
      which == Norm::layer ? layer_norm_row(xs + at, ys + at, n, count, e) : rms_norm_row(xs + at, ys + at, n, count, e);
  });
  return y;
}

// No last-dim assert in the backwards: an empty last axis has no rows.
Tensor norm_backward(std::string_view op, Norm which, const Tensor& x, const Tensor& g, double eps) {
  check_rank(op, x);
  if (g.dims() != x.dims())
    throw KernelError(std::string(op), "g", Rule::shape_mismatch,
                      fmt::format("{}: shape mismatch: x is {}, g is {}", op, dims_to_string(x.dims()),
                                  dims_to_string(g.dims())));
  Tensor dx(x.dtype(), x.dims());
  const std::int64_t n = x.dims().back();
  if (n == 0) return dx;
  by_dtype(x.dtype(), [&]<class T>() {
    const T *xs = x.as<T>().data(), *gs = g.as<T>().data();
    T* out = dx.as_mutable<T>().data();
    const T count = cst<T>(static_cast<double>(n)), e = cst<T>(eps);
    for (std::int64_t at = 0; at < x.numel(); at += n)
      which == Norm::layer ? layer_norm_backward_row(xs + at, gs + at, out + at, n, count, e)
                           : rms_norm_backward_row(xs + at, gs + at, out + at, n, count, e);
  });
  return dx;
}

}  // namespace

void register_norm(Arms& table) {
  // Exec: one float dtype; eps an f64 parameter (the fused arms' params).
  const ParamDecl eps{"eps", ParamKind::real};
  for (const auto& [name, which] : {std::pair{"layer_norm_last_dim", Norm::layer}, std::pair{"rms_norm_last_dim", Norm::rms}})
    table.push_back(Arm{.op = name, .dtypes = kFloatSet, .arity = 1, .params = {eps},
                        .eval = [name = name, which = which](std::span<const Tensor> in, const Params& p) {
                          return std::vector<Tensor>{norm(name, which, in[0], p.real("eps"))};
                        }});
  for (const auto& [name, which] : {std::pair{"layer_norm_last_dim_backward", Norm::layer},
                                    std::pair{"rms_norm_last_dim_backward", Norm::rms}})
    table.push_back(Arm{.op = name, .dtypes = kFloatSet, .arity = 2, .params = {eps},
                        .eval = [name = name, which = which](std::span<const Tensor> in, const Params& p) {
                          return std::vector<Tensor>{norm_backward(name, which, in[0], in[1], p.real("eps"))};
                        },
                        .operands = {"x", "g"}});
}

}  // namespace kc::kern
