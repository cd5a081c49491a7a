// Planted defects of the softmax family, and one correct variant.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

float row_max(const std::vector<float>& x) {
  float m = -INFINITY;
  for (float v : x)
    if (v > m) m = v;
  return m;
}

Outputs softmax_no_max(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // exp(x_i) / sum exp(x_j): the max subtraction dropped (overflows past ln max).
  return f32_rows(kernel, in, p, [](const std::vector<float>& x, const std::vector<float>&, std::vector<float>& y) {
    float s = 0;
    for (float v : x) s += std::exp(v);
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = std::exp(x[j]) / s;
  });
}

Outputs softmax_reciprocal(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // A correct variant: e_i (1 / s), as attention normalizes: one rounding more.
  return f32_rows(kernel, in, p, [](const std::vector<float>& x, const std::vector<float>&, std::vector<float>& y) {
    const float m = row_max(x);
    float s = 0;
    for (float v : x) s += std::exp(v - m);
    const float r = 1.0f / s;
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = std::exp(x[j] - m) * r;
  });
}

Outputs softmax_exp_via_exp2(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // exp(d) as exp2(d log2 e), a fast-math rewrite: the product's rounding
  // adds u |d| to each exponential's relative error, as much again as the
  // subtraction's, which the bound counts once (a defect the size of the
  // bound: it shows the bound tight).
  return f32_rows(kernel, in, p, [](const std::vector<float>& x, const std::vector<float>&, std::vector<float>& y) {
    const float m = row_max(x), log2e = 1.44269504f;
    float s = 0;
    for (std::size_t j = 0; j < x.size(); ++j) s += (y[j] = std::exp2((x[j] - m) * log2e));
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = y[j] / s;
  });
}

Outputs log_softmax_max_plus_log(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // x_i - (m + ln s): the shift added to the log first, whose rounding
  // (u |m|) the stable form avoids.
  return f32_rows(kernel, in, p, [](const std::vector<float>& x, const std::vector<float>&, std::vector<float>& y) {
    const float m = row_max(x);
    float s = 0;
    for (float v : x) s += std::exp(v - m);
    const float lse = m + std::log(s);
    for (std::size_t j = 0; j < x.size(); ++j) y[j] = x[j] - lse;
  });
}

Outputs softmax_backward_drops_last(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // sum y_j g_j over all but the last j.
  return f32_rows(kernel, in, p, [](const std::vector<float>& yv, const std::vector<float>& g, std::vector<float>& dx) {
    float d = 0;
    for (std::size_t j = 0; j + 1 < yv.size(); ++j) d += yv[j] * g[j];
    for (std::size_t j = 0; j < yv.size(); ++j) dx[j] = yv[j] * (g[j] - d);
  });
}

Outputs log_softmax_backward_no_exp(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // g_i - y_i sum g: exp(y) forgotten (softmax's y taken for log_softmax's).
  return f32_rows(kernel, in, p, [](const std::vector<float>& yv, const std::vector<float>& g, std::vector<float>& dx) {
    float s = 0;
    for (float v : g) s += v;
    for (std::size_t j = 0; j < yv.size(); ++j) dx[j] = g[j] - yv[j] * s;
  });
}

}  // namespace

// softmax of the halves as the reference computes it (each step an f32
// operation rounded into T: d = x - m, e = exp(d), the fold of e from +0,
// e / s) but with each partial sum narrowed by `narrow` instead of RN_T.
template <class Narrow>
Outputs half_softmax_with_sum(DType t, std::string_view kernel, std::span<const Tensor> in, const Params& p, Narrow narrow) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != t || in[0].rank() == 0 || in[0].dims().back() == 0) return y;
  const std::int64_t n = in[0].dims().back();
  const auto f = [t](double v) { return rn(t, static_cast<double>(static_cast<float>(v))); };
  std::vector<double> e(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r * n < in[0].numel(); ++r) {
    double m = -INFINITY;
    for (std::int64_t j = 0; j < n; ++j) m = std::max(m, in[0].value_at(r * n + j));
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      e[static_cast<std::size_t>(j)] = f(std::exp(static_cast<float>(f(in[0].value_at(r * n + j) - m))));
      sum = narrow(static_cast<float>(sum + e[static_cast<std::size_t>(j)]));
    }
    for (std::int64_t j = 0; j < n; ++j) y[0].set_bits(r * n + j, bits(t, f(e[static_cast<std::size_t>(j)] / sum)));
  }
  return y;
}

// The backwards of the halves as the reference computes them (each step
// an f32 operation rounded into T: d = the fold of y g (log_form: of g)
// from +0, then y (g - d) (log_form: g - exp(y) d)) but with each partial
// sum of d narrowed by `narrow` instead of RN_T.
template <class Narrow>
Outputs half_backward_with_sum(DType t, bool log_form, std::string_view kernel, std::span<const Tensor> in, const Params& p,
                               Narrow narrow) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != t || in[0].rank() == 0 || in[0].dims().back() == 0) return y;
  const std::int64_t n = in[0].dims().back();
  const auto f = [t](double v) { return rn(t, static_cast<double>(static_cast<float>(v))); };
  for (std::int64_t r = 0; r * n < in[0].numel(); ++r) {
    const auto yv = [&](std::int64_t j) { return in[0].value_at(r * n + j); };
    const auto gv = [&](std::int64_t j) { return in[1].value_at(r * n + j); };
    double d = 0;
    for (std::int64_t j = 0; j < n; ++j) d = narrow(static_cast<float>(d + (log_form ? gv(j) : f(yv(j) * gv(j)))));
    for (std::int64_t j = 0; j < n; ++j) {
      const double dx = log_form ? f(gv(j) - f(f(std::exp(static_cast<float>(yv(j)))) * d)) : f(yv(j) * f(gv(j) - d));
      y[0].set_bits(r * n + j, bits(t, dx));
    }
  }
  return y;
}

// f16 backwards whose path for rows of 32 or more sums d in a bf16
// register (errors 8 times those f16 rounding allows), short rows as the
// reference: as softmax_f16_long_rows_sum_in_bf16, for the mean square.
template <bool LogForm>
Outputs backward_f16_long_rows_sum_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  const bool long_rows = in.size() == 2 && in[0].rank() > 0 && in[0].dims().back() >= 32;
  if (!long_rows) return ref::execute(kernel, in, p);
  return half_backward_with_sum(DType::f16, LogForm, kernel, in, p, [](float s) { return rn(DType::bf16, s); });
}

Outputs softmax_f16_long_rows_sum_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // f16 softmax whose path for rows of 32 or more accumulates the sum in a
  // bf16 register (3 bits fewer per partial sum: errors 8 times those f16
  // rounding allows), short rows as the reference. Its worst case stays
  // inside the bound (gamma_(n-1) grows with n); its mean square does not.
  const bool long_rows = !in.empty() && in[0].rank() > 0 && in[0].dims().back() >= 32;
  if (!long_rows) return ref::execute(kernel, in, p);
  return half_softmax_with_sum(DType::f16, kernel, in, p, [](float s) { return rn(DType::bf16, s); });
}

Outputs softmax_bf16_sum_truncating(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // bf16 softmax narrowing each f32 partial sum by truncation (its low 16 bits dropped): biased low.
  return half_softmax_with_sum(DType::bf16, kernel, in, p, truncate_to_bf16);
}

void register_softmax(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"softmax_no_max_subtraction", {"softmax_last_dim"}, {DType::f32}, "accuracy",
       "f32 softmax without the max subtraction: exp(x) overflows past ln(max)", softmax_no_max},
      {"softmax_reciprocal", {"softmax_last_dim"}, {DType::f32}, "semantics",
       "f32 softmax multiplies by 1/s instead of dividing: correct, not the reference's bits", softmax_reciprocal,
       "reference", true},
      {"softmax_exp_via_exp2", {"softmax_last_dim"}, {DType::f32}, "accuracy",
       "f32 softmax takes exp(d) as exp2(d log2 e): one rounding more per exponential, scaled by |d|",
       softmax_exp_via_exp2},
      {"log_softmax_max_plus_log", {"log_softmax_last_dim"}, {DType::f32}, "accuracy",
       "f32 log_softmax subtracts m + ln s in one step (loses u|m|)", log_softmax_max_plus_log},
      {"softmax_backward_drops_last", {"softmax_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 softmax backward leaves the last term out of sum y g", softmax_backward_drops_last},
      {"softmax_f16_long_rows_sum_in_bf16", {"softmax_last_dim"}, {DType::f16}, "statistics",
       "f16 softmax sums rows of 32 or more in bf16: errors 8 times those f16 rounding allows",
       softmax_f16_long_rows_sum_in_bf16},
      {"softmax_bf16_sum_truncating", {"softmax_last_dim"}, {DType::bf16}, "statistics",
       "bf16 softmax truncates each partial sum (biased)", softmax_bf16_sum_truncating},
      {"softmax_backward_f16_long_rows_dot_in_bf16", {"softmax_last_dim_backward"}, {DType::f16}, "statistics",
       "f16 softmax backward sums y g over rows of 32 or more in bf16", backward_f16_long_rows_sum_in_bf16<false>},
      {"log_softmax_backward_f16_long_rows_sum_in_bf16", {"log_softmax_last_dim_backward"}, {DType::f16}, "statistics",
       "f16 log_softmax backward sums g over rows of 32 or more in bf16", backward_f16_long_rows_sum_in_bf16<true>},
      {"log_softmax_backward_no_exp", {"log_softmax_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 log_softmax backward uses y for exp(y)", log_softmax_backward_no_exp},
  });
}

}  // namespace kc::mutants
