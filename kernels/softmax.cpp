// Softmax and log-softmax over the last axis, forward and backward, as the
// reference computes them (ops.rs:2484-2529, 2895-2949;
// reference-semantics.md §10). Every row of the last axis on its own (rows =
// the product of the leading dims); each reduction a fold in T from +0 in
// index order; the halves through f32, one rounding per operation (§0.2).
//   softmax:      m = running max (from -inf, strict >, NaN ignored);
//                 e_j = exp(x_j - m); s = fold e_j; y_i = e_i / s (a division)
//   log_softmax:  m; s = fold exp(x_j - m); L = ln s; y_i = (x_i - m) - L
//   softmax bwd:  d = fold y_j g_j; dx_i = y_i (g_i - d)
//   log_softmax bwd: G = fold g_j; dx_i = g_i - exp(y_i) G
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {

// The running maximum from -inf with a strict > (a NaN never replaces it).
template <class T>
T row_max(const T* x, std::int64_t n) {
  T m = cst<T>(-std::numeric_limits<double>::infinity());
  for (std::int64_t j = 0; j < n; ++j)
    if (x[j] > m) m = x[j];
  return m;
}

template <class T>
void softmax_row(const T* x, T* y, std::int64_t n, bool log_form) {
  const T m = row_max(x, n);
  T s = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) {
    const T e = m_exp(sub_in_order(x[j], m));
    if (!log_form) y[j] = e;  // stored for the division
    s = acc_add(s, e);
  }
  if (log_form) {
    const T l = m_log(s);
    for (std::int64_t j = 0; j < n; ++j) y[j] = sub_in_order(sub_in_order(x[j], m), l);
  } else {
    for (std::int64_t j = 0; j < n; ++j) y[j] = div_in_order(y[j], s);
  }
}

template <class T>
void softmax_backward_row(const T* y, const T* g, T* dx, std::int64_t n, bool log_form) {
  T d = cst<T>(0.0);
  for (std::int64_t j = 0; j < n; ++j) d = acc_add(d, log_form ? g[j] : mul_in_order(y[j], g[j]));
  for (std::int64_t j = 0; j < n; ++j) dx[j] = log_form ? sub_in_order(g[j], mul_in_order(m_exp(y[j]), d)) : mul_in_order(y[j], sub_in_order(g[j], d));
}

enum class Form { softmax, log_softmax };

void check_rank(std::string_view op, std::string_view operand, const Tensor& x) {
  if (x.rank() < 1)
    throw KernelError(std::string(op), std::string(operand), Rule::rank_min,
                      fmt::format("{}: input must be rank >= 1, got a scalar {}", op, dims_to_string(x.dims())));
}

// Calls row(offset of the row's first element, n) for every row of the last axis.
template <class Row>
void each_row(const Tensor& x, Row row) {
  const std::int64_t n = x.rank() == 0 ? 1 : x.dims().back();
  const std::int64_t rows = n == 0 ? 0 : x.numel() / n;
  for (std::int64_t r = 0; r < rows; ++r) row(static_cast<std::size_t>(r * n), n);
}

Tensor softmax(std::string_view op, const Tensor& x, Form f) {
  check_rank(op, "x", x);
  Tensor y(x.dtype(), x.dims());
  by_dtype(x.dtype(), [&]<class T>() {
    const T* xs = x.as<T>().data();
    T* ys = y.as_mutable<T>().data();
    each_row(x, [&](std::size_t at, std::int64_t n) { softmax_row(xs + at, ys + at, n, f == Form::log_softmax); });
  });
  return y;
}

Tensor softmax_backward(std::string_view op, const Tensor& y, const Tensor& g, Form f) {
  check_rank(op, "y", y);
  if (g.dims() != y.dims())
    throw KernelError(std::string(op), "g", Rule::shape_mismatch,
                      fmt::format("{}: shape mismatch: y is {}, g is {}", op, dims_to_string(y.dims()),
                                  dims_to_string(g.dims())));
  Tensor dx(y.dtype(), y.dims());
  by_dtype(y.dtype(), [&]<class T>() {
    const T *ys = y.as<T>().data(), *gs = g.as<T>().data();
    T* out = dx.as_mutable<T>().data();
    each_row(y, [&](std::size_t at, std::int64_t n) {
      softmax_backward_row(ys + at, gs + at, out + at, n, f == Form::log_softmax);
    });
  });
  return dx;
}

}  // namespace

void register_softmax(Arms& table) {
  // Exec: one float dtype (f32/f64/bf16/f16); the backward pairs share it
  // (`unsupported operand dtypes`), as the fused arms' dispatch requires.
  for (const auto& [name, f] : {std::pair{"softmax_last_dim", Form::softmax}, std::pair{"log_softmax_last_dim", Form::log_softmax}})
    table.push_back(Arm{.op = name, .dtypes = kFloatSet, .arity = 1,
                        .eval = [name = name, f = f](std::span<const Tensor> in, const Params&) {
                          return std::vector<Tensor>{softmax(name, in[0], f)};
                        }});
  for (const auto& [name, f] : {std::pair{"softmax_last_dim_backward", Form::softmax},
                                std::pair{"log_softmax_last_dim_backward", Form::log_softmax}})
    table.push_back(Arm{.op = name, .dtypes = kFloatSet, .arity = 2,
                        .eval = [name = name, f = f](std::span<const Tensor> in, const Params&) {
                          return std::vector<Tensor>{softmax_backward(name, in[0], in[1], f)};
                        },
                        .operands = {"y", "g"}});
}

}  // namespace kc::kern
