// Planted defects of the softmax family, and one correct variant.
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
      {"log_softmax_backward_no_exp", {"log_softmax_last_dim_backward"}, {DType::f32}, "accuracy",
       "f32 log_softmax backward uses y for exp(y)", log_softmax_backward_no_exp},
  });
}

}  // namespace kc::mutants
