// Planted defects of rope, and one correct variant (an FMA).
#include <cmath>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

// The reference's f32 rope with each output recomputed as
// out(x[o], cos[s, col], x[partner], sin[s, col], col, h) from the element
// `partner` pairs it with; other dtypes and invalid calls as the reference.
template <class Partner, class Out>
Outputs rope_f32(std::string_view kernel, std::span<const Tensor> in, const Params& p, Partner partner, Out out) {
  Outputs y = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return y;
  const Dims& d = in[0].dims();
  const std::int64_t cols = d.back(), seq = d[d.size() - 2], h = cols / 2;
  auto f = [](const Tensor& t, std::int64_t i) { return static_cast<float>(t.value_at(i)); };
  for (std::int64_t o = 0; o < y[0].numel(); ++o) {
    const std::int64_t col = o % cols, s = (o / cols) % seq, at = s * cols + col;
    const float r = out(f(in[0], o), f(in[1], at), f(in[0], o - col + partner(col, h)), f(in[2], at), col, h);
    y[0].set_bits(o, double_to_bits(DType::f32, r));
  }
  return y;
}

std::int64_t half_split(std::int64_t col, std::int64_t h) { return col < h ? col + h : col - h; }

Outputs rope_interleaved(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // GPT-J's pairing (2i, 2i + 1) in place of the half-split one: element i
  // rotates with its neighbour, the even one as the low half.
  return rope_f32(kernel, in, p, [](std::int64_t col, std::int64_t) { return col ^ 1; },
                  [](float a, float c, float b, float s, std::int64_t col, std::int64_t) {
                    return col % 2 == 0 ? a * c - b * s : a * c + b * s;
                  });
}

Outputs rope_high_half_minus(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The high half subtracts too: x[i + h] cos - x[i] sin (a sign error in rotate_half).
  return rope_f32(kernel, in, p, half_split,
                  [](float a, float c, float b, float s, std::int64_t, std::int64_t) { return a * c - b * s; });
}

Outputs rope_fma(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // A correct variant: fma(x_a, c, +-fl(x_b s)), one rounding fewer.
  return rope_f32(kernel, in, p, half_split, [](float a, float c, float b, float s, std::int64_t col, std::int64_t h) {
    const float q = b * s;
    return std::fma(a, c, col < h ? -q : q);
  });
}

Outputs rope_toward_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The two products and their difference or sum rounded toward zero (a
  // kernel run in that mode: each within 2u where the bound counts u).
  return rope_f32(kernel, in, p, half_split, [](float a, float c, float b, float s, std::int64_t col, std::int64_t h) {
    const double x = rz32(static_cast<double>(a) * c), q = rz32(static_cast<double>(b) * s);
    return static_cast<float>(rz32(col < h ? x - q : x + q));
  });
}

}  // namespace

void register_rope(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"rope_interleaved", {"rope"}, {DType::f32}, "accuracy",
       "f32 rope pairs neighbours (2i, 2i + 1) instead of i and i + D/2", rope_interleaved},
      {"rope_toward_zero", {"rope"}, {DType::f32}, "accuracy",
       "f32 rope rounds its products and their difference or sum toward zero (each within 2u where the bound counts u)",
       rope_toward_zero},
      {"rope_high_half_minus", {"rope"}, {DType::f32}, "accuracy",
       "f32 rope subtracts in the high half too (x[i + h] cos - x[i] sin)", rope_high_half_minus},
      {"rope_fma", {"rope"}, {DType::f32}, "semantics", "f32 rope fuses its first product into the sum (an FMA): correct, "
       "not the reference's bits", rope_fma, "reference", true},
  });
}

}  // namespace kc::mutants
