// What the mutants of the reduction and binary families share: one
// rounding into T, and the cells along a dim (written here, for the
// mutants alone: they plant defects, they are not graded against it).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "backends/mutants/mutants.h"

namespace kc::mutants {

// The data movers' dtypes: the floats and u32.
inline constexpr DTypeSet kFloatAndU32Set{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};

inline double rn(DType t, double v) { return round_to_format(v, t); }
inline std::uint64_t bits(DType t, double v) { return double_to_bits(t, rn(t, v)); }
inline bool valid_unary(std::span<const Tensor> in) { return in.size() == 1 && in[0].consistent(); }
// s narrowed to bf16 by truncation (its low 16 bits dropped; NaN kept): a biased rounding.
inline double truncate_to_bf16(float s) {
  if (std::isnan(s)) return static_cast<double>(s);
  std::uint32_t b;
  std::memcpy(&b, &s, 4);
  b &= 0xFFFF0000u;
  float t;
  std::memcpy(&t, &b, 4);
  return static_cast<double>(t);
}

// v (a sum or product of f32 values: exact in double unless they lie 29
// binades apart) rounded to f32 toward zero, as a kernel run in that mode
// rounds; overflow still to infinity (only the finite steps move).
inline double rz32(double v) {
  const double r = rn(DType::f32, v);
  return std::isfinite(r) && std::fabs(r) > std::fabs(v) ? static_cast<double>(std::nextafter(static_cast<float>(r), 0.0f)) : r;
}

// a + b in f32 rounded upward where inexact (the double sum of two floats
// is exact unless they lie 29 binades apart: then the float sum is the
// larger one, rounded up too): a biased accumulation step.
inline float add_rounding_up(float a, float b) {
  const float s = a + b;
  return static_cast<double>(s) < static_cast<double>(a) + static_cast<double>(b) ? std::nextafter(s, INFINITY) : s;
}

// f(o, base, stride, len) for each output cell o of a reduction of x along
// `dim`: its elements are x[base + k * stride], k < len.
template <class F>
void for_each_cell_along(const Tensor& x, std::size_t dim, F f) {
  std::int64_t inner = 1, outer_cells = 1;
  for (std::size_t d = dim + 1; d < x.dims().size(); ++d) inner *= x.dims()[d];
  for (std::size_t d = 0; d < x.dims().size(); ++d)
    if (d != dim) outer_cells *= x.dims()[d];
  const std::int64_t len = x.dims()[dim];
  for (std::int64_t o = 0; o < outer_cells; ++o) f(o, (o / inner) * inner * len + o % inner, inner, len);
}

// The reference's result with every f32 row of the last axis recomputed
// by row(inputs' rows, output row); other dtypes and invalid calls as the
// reference. The output row arrives holding the reference's row, so a
// defect that leaves some rows alone need not recompute them.
template <class RowFn>
inline Outputs f32_rows(std::string_view kernel, std::span<const Tensor> in, const Params& p, RowFn row) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32 || in[0].rank() == 0) return y;
  const std::int64_t n = in[0].dims().back();
  if (n == 0) return y;
  std::vector<float> a(static_cast<std::size_t>(n)), b(a.size()), out(a.size());
  for (std::int64_t r = 0; r * n < in[0].numel(); ++r) {
    for (std::int64_t j = 0; j < n; ++j) {
      a[static_cast<std::size_t>(j)] = static_cast<float>(in[0].value_at(r * n + j));
      if (in.size() > 1) b[static_cast<std::size_t>(j)] = static_cast<float>(in[1].value_at(r * n + j));
      out[static_cast<std::size_t>(j)] = static_cast<float>(y[0].value_at(r * n + j));
    }
    row(a, b, out);
    for (std::int64_t j = 0; j < n; ++j) y[0].set_bits(r * n + j, double_to_bits(DType::f32, out[static_cast<std::size_t>(j)]));
  }
  return y;
}

}  // namespace kc::mutants
