// Planted defects of convolution and pooling.
#include <cmath>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

struct Dims4 {
  std::int64_t n, c, h, w;
  explicit Dims4(const Dims& d) : n(d[0]), c(d[1]), h(d[2]), w(d[3]) {}
};

// conv2d recomputed through doubles (each product and sum rounded to the
// f32 result of that step) with the taps read at (oh sh + ky - top, ow sw
// + kx - left), the bias added first (bias_first) or last; groups honoured.
Outputs conv2d_variant(std::string_view kernel, std::span<const Tensor> in, const Params& p, std::int64_t top_scale,
                       bool bias_first) {
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return out;
  const Dims4 x(in[0].dims()), y(out[0].dims());
  const Dims& wd = in[1].dims();
  const auto& s = p.shape("stride");
  const auto& pad = p.shape("padding");
  const std::int64_t groups = p.integer("groups"), cin_g = x.c / groups, cout_g = y.c / groups;
  const bool bias = in.size() > 2;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::int64_t ow = o % y.w, oh = (o / y.w) % y.h, co = (o / (y.w * y.h)) % y.c, b = o / (y.w * y.h * y.c);
    const std::int64_t g = co / cout_g;
    double acc = bias && bias_first ? in[2].value_at(co) : 0.0;
    for (std::int64_t ci = 0; ci < cin_g; ++ci)
      for (std::int64_t ky = 0; ky < wd[2]; ++ky)
        for (std::int64_t kx = 0; kx < wd[3]; ++kx) {
          const std::int64_t ih = oh * s[0] + ky - top_scale * pad[0], iw = ow * s[1] + kx - top_scale * pad[1];
          if (ih < 0 || ih >= x.h || iw < 0 || iw >= x.w) continue;
          const double xv = in[0].value_at(((b * x.c + g * cin_g + ci) * x.h + ih) * x.w + iw);
          const double wv = in[1].value_at(((co * cin_g + ci) * wd[2] + ky) * wd[3] + kx);
          acc = rn(DType::f32, acc + rn(DType::f32, xv * wv));
        }
    if (bias && !bias_first) acc = rn(DType::f32, acc + in[2].value_at(co));
    out[0].set_bits(o, bits(DType::f32, acc));
  }
  return out;
}

Outputs conv2d_pad_one_side(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The padding put on the bottom and right only: the windows read from
  // (oh sh + ky, ow sw + kx), shifted by the padding where it is not 0.
  return conv2d_variant(kernel, in, p, 0, false);
}

Outputs conv2d_bias_first(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The accumulator starts at the bias: the same sum in another order,
  // within the bound, not the reference's bits.
  return conv2d_variant(kernel, in, p, 1, true);
}

Outputs conv_transpose2d_flipped(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The kernel flipped (the signal-processing convention, not PyTorch's):
  // w[c, oc, Kh - 1 - ki, Kw - 1 - kj] where the reference reads w[c, oc, ki, kj].
  if (in.size() != 2 || in[1].rank() != 4 || in[0].dtype() != DType::f32) return ref::execute(kernel, in, p);
  const Dims& d = in[1].dims();
  Tensor flipped(in[1].dtype(), d);
  for (std::int64_t i = 0; i < flipped.numel(); ++i) {
    const std::int64_t kj = i % d[3], ki = (i / d[3]) % d[2], rest = i / (d[3] * d[2]);
    flipped.set_bits(i, in[1].bits_at((rest * d[2] + (d[2] - 1 - ki)) * d[3] + (d[3] - 1 - kj)));
  }
  const std::vector<Tensor> args{in[0], flipped};
  return ref::execute(kernel, args, p);
}

Outputs conv2d_simple_drops_last_tap(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The kernel's last column of taps never read (an off-by-one in kx).
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32 || in[1].dims()[3] < 2) return out;
  Tensor k = in[1];
  Tensor cut(k.dtype(), k.dims());
  for (std::int64_t i = 0; i < k.numel(); ++i) cut.set_bits(i, i % k.dims()[3] == k.dims()[3] - 1 ? 0 : k.bits_at(i));
  const std::vector<Tensor> args{in[0], cut};
  return ref::execute(kernel, args, p);
}

Outputs max_pool2d_nan_propagates(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // PyTorch's rule: a window holding a NaN gives NaN.
  Outputs out = ref::execute(kernel, in, p);
  const Dims4 x(in[0].dims()), y(out[0].dims());
  const std::int64_t k = p.integer("kernel_size"), s = p.integer("stride");
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::int64_t ow = o % y.w, oh = (o / y.w) % y.h, plane = o / (y.w * y.h);
    for (std::int64_t ky = 0; ky < k; ++ky)
      for (std::int64_t kx = 0; kx < k; ++kx) {
        const std::int64_t at = (plane * x.h + oh * s + ky) * x.w + ow * s + kx;
        if (std::isnan(in[0].value_at(at))) {
          out[0].set_bits(o, in[0].bits_at(at));
          ky = k;
          break;
        }
      }
  }
  return out;
}

}  // namespace

void register_conv(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"conv2d_pad_one_side", {"conv2d"}, {DType::f32}, "accuracy",
       "f32 conv2d pads only the bottom and right (the windows shift by the padding)", conv2d_pad_one_side},
      {"conv2d_bias_first", {"conv2d"}, {DType::f32}, "semantics",
       "f32 conv2d starts its accumulator at the bias instead of adding it last", conv2d_bias_first, "reference", true},
      {"conv_transpose2d_flipped", {"conv_transpose2d"}, {DType::f32}, "accuracy",
       "f32 conv_transpose2d flips the kernel", conv_transpose2d_flipped},
      {"conv2d_simple_drops_last_tap", {"conv2d_simple"}, {DType::f32}, "accuracy",
       "f32 conv2d_simple never reads the kernel's last column", conv2d_simple_drops_last_tap},
      {"max_pool2d_nan_propagates", {"max_pool2d"}, kFloatSet, "reference-choice",
       "max_pool2d returns NaN for a window holding one (PyTorch's rule, not the reference's)", max_pool2d_nan_propagates,
       "reference", true},
  });
}

}  // namespace kc::mutants
