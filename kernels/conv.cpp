// Convolution and pooling of the reference (ops.rs:704, 751, 2209, 2301;
// fuel-conv's conv2d_direct; reference-semantics.md §9). Every output of a
// convolution is a fold from +0 in T of rounded products x * w (taps
// outside the input skipped, never multiplied by zero), in the reference's
// order; conv2d adds its bias last (one more rounding). max_pool2d starts
// each window at -inf and replaces on strict > (NaN ignored).
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {

void require_rank4(std::string_view op, std::string_view operand, const Tensor& t, std::string_view what) {
  if (t.rank() != 4)
    throw KernelError(std::string(op), std::string(operand), Rule::rank_exact,
                      fmt::format("{}: {} must be rank 4, got {}", op, what, dims_to_string(t.dims())));
}

// A pair parameter ([h, w]) of two entries each >= lo.
std::pair<std::int64_t, std::int64_t> pair_of(std::string_view op, const Params& p, const char* name, std::int64_t lo) {
  const auto& v = p.shape(name);
  if (v.size() != 2 || v[0] < lo || v[1] < lo)
    throw KernelError(std::string(op), name, Rule::param_domain,
                      fmt::format("{}: {} must be two entries [h, w], each >= {}, got {}", op, name, lo, dims_to_string(v)));
  return {v[0], v[1]};
}

// conv2d (fuel-conv conv2d_direct): ih = oh sh + ky - ph, iw = ow sw + kx - pw;
// per output: acc = +0, then for ci_in_g, ky, kx (taps inside) acc + x w; then + bias.
template <class T>
void conv2d_into(const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y, std::int64_t sh, std::int64_t sw,
                 std::int64_t ph, std::int64_t pw, std::int64_t groups) {
  const auto xs = x.as<T>(), ws = w.as<T>();
  auto ys = y.as_mutable<T>();
  const std::int64_t n = x.dims()[0], cin = x.dims()[1], h = x.dims()[2], wd = x.dims()[3];
  const std::int64_t cout = w.dims()[0], kh = w.dims()[2], kw = w.dims()[3];
  const std::int64_t ho = y.dims()[2], wo = y.dims()[3], cin_g = cin / groups, cout_g = cout / groups;
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t co = 0; co < cout; ++co) {
      const std::int64_t g = co / cout_g;
      for (std::int64_t oh = 0; oh < ho; ++oh)
        for (std::int64_t ow = 0; ow < wo; ++ow) {
          T acc = cst<T>(0.0);
          for (std::int64_t ci = 0; ci < cin_g; ++ci)
            for (std::int64_t ky = 0; ky < kh; ++ky) {
              const std::int64_t ih = oh * sh + ky - ph;
              if (ih < 0 || ih >= h) continue;
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t iw = ow * sw + kx - pw;
                if (iw < 0 || iw >= wd) continue;
                const T xv = xs[static_cast<std::size_t>(((b * cin + g * cin_g + ci) * h + ih) * wd + iw)];
                const T wv = ws[static_cast<std::size_t>(((co * cin_g + ci) * kh + ky) * kw + kx)];
                acc = acc_add(acc, xv * wv);
              }
            }
          if (bias) acc = acc_add(acc, bias->as<T>()[static_cast<std::size_t>(co)]);
          ys[static_cast<std::size_t>(((b * cout + co) * ho + oh) * wo + ow)] = acc;
        }
    }
}

Tensor conv2d(std::span<const Tensor> in, const Params& p) {
  constexpr std::string_view op = "conv2d";
  const Tensor &x = in[0], &w = in[1];
  const Tensor* bias = in.size() > 2 ? &in[2] : nullptr;
  const bool weight_off = w.dtype() != x.dtype(), bias_off = bias && bias->dtype() != x.dtype();
  if (weight_off || bias_off)
    throw KernelError(std::string(op), weight_off ? "weight" : "bias", Rule::dtype_mismatch,
                      fmt::format("conv2d: unsupported operand dtype combination x={} w={} bias={}", dtype_name(x.dtype()),
                                  dtype_name(w.dtype()), bias ? dtype_name(bias->dtype()) : "none"));
  require_rank4(op, "x", x, "x");
  require_rank4(op, "weight", w, "weight");
  const std::int64_t groups = p.integer("groups");
  const std::int64_t cin = x.dims()[1], cout = w.dims()[0], kh = w.dims()[2], kw = w.dims()[3];
  // ConvShape::validate, in its order.
  if (groups < 1) throw KernelError(std::string(op), "groups", Rule::param_domain, "conv2d shape validation: \"groups must be >= 1\"");
  if (cin % groups != 0)
    throw KernelError(std::string(op), "groups", Rule::groups_divisibility,
                      fmt::format("conv2d shape validation: \"c_in ({}) must be divisible by groups ({})\"", cin, groups));
  if (cout % groups != 0)
    throw KernelError(std::string(op), "groups", Rule::groups_divisibility,
                      fmt::format("conv2d shape validation: \"c_out ({}) must be divisible by groups ({})\"", cout, groups));
  const auto [sh, sw] = pair_of(op, p, "stride", 1);
  const auto [ph, pw] = pair_of(op, p, "padding", 0);
  if (kh < 1 || kw < 1) throw KernelError(std::string(op), "weight", Rule::kernel_empty, "conv2d shape validation: \"kernel dims must be >= 1\"");
  if (x.dims()[2] + 2 * ph < kh)
    throw KernelError(std::string(op), "weight", Rule::kernel_too_large, "conv2d shape validation: \"kernel taller than padded input\"");
  if (x.dims()[3] + 2 * pw < kw)
    throw KernelError(std::string(op), "weight", Rule::kernel_too_large, "conv2d shape validation: \"kernel wider than padded input\"");
  // Never checked by the reference (debug_asserts only, §9): rejected here.
  if (w.dims()[1] != cin / groups)
    throw KernelError(std::string(op), "weight", Rule::channels_mismatch,
                      fmt::format("conv2d: weight dim 1 is {}, c_in / groups is {}", w.dims()[1], cin / groups));
  if (bias && (bias->rank() != 1 || bias->dims()[0] != cout))
    throw KernelError(std::string(op), "bias", Rule::shape_mismatch,
                      fmt::format("conv2d: bias must be [{}], got {}", cout, dims_to_string(bias->dims())));
  Tensor y(x.dtype(), {x.dims()[0], cout, (x.dims()[2] + 2 * ph - kh) / sh + 1, (x.dims()[3] + 2 * pw - kw) / sw + 1});
  by_dtype(x.dtype(), [&]<class T>() { conv2d_into<T>(x, w, bias, y, sh, sw, ph, pw, groups); });
  return y;
}

// conv_transpose2d (ops.rs:751), scatter form: for n, g, ic, oc, h, w, ki, kj in
// that nesting, out[n, g Cout_g + oc, h sh + ki dh - ph, w sw + kj dw - pw] += x w.
template <class T>
void conv_t_into(const Tensor& x, const Tensor& w, Tensor& y, std::int64_t sh, std::int64_t sw, std::int64_t ph,
                 std::int64_t pw, std::int64_t dh, std::int64_t dw, std::int64_t groups) {
  const auto xs = x.as<T>(), ws = w.as<T>();
  auto ys = y.as_mutable<T>();
  const std::int64_t n = x.dims()[0], cin = x.dims()[1], h = x.dims()[2], wd = x.dims()[3];
  const std::int64_t cout_g = w.dims()[1], kh = w.dims()[2], kw = w.dims()[3], cin_g = cin / groups;
  const std::int64_t cout = y.dims()[1], ho = y.dims()[2], wo = y.dims()[3];
  for (auto& v : ys) v = cst<T>(0.0);
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t g = 0; g < groups; ++g)
      for (std::int64_t ic = 0; ic < cin_g; ++ic)
        for (std::int64_t oc = 0; oc < cout_g; ++oc)
          for (std::int64_t i = 0; i < h; ++i)
            for (std::int64_t j = 0; j < wd; ++j)
              for (std::int64_t ki = 0; ki < kh; ++ki) {
                const std::int64_t oh = i * sh + ki * dh - ph;
                if (oh < 0 || oh >= ho) continue;
                for (std::int64_t kj = 0; kj < kw; ++kj) {
                  const std::int64_t ow = j * sw + kj * dw - pw;
                  if (ow < 0 || ow >= wo) continue;
                  const std::int64_t c = g * cin_g + ic;
                  const T xv = xs[static_cast<std::size_t>(((b * cin + c) * h + i) * wd + j)];
                  const T wv = ws[static_cast<std::size_t>(((c * cout_g + oc) * kh + ki) * kw + kj)];
                  T& acc = ys[static_cast<std::size_t>(((b * cout + g * cout_g + oc) * ho + oh) * wo + ow)];
                  acc = acc_add(acc, xv * wv);
                }
              }
}

Tensor conv_transpose2d(std::span<const Tensor> in, const Params& p) {
  constexpr std::string_view op = "conv_transpose2d";
  const Tensor &x = in[0], &w = in[1];
  if (w.dtype() != x.dtype())
    throw KernelError(std::string(op), "weight", Rule::dtype_mismatch,
                      fmt::format("conv_transpose2d: unsupported operand dtype combination x={} w={}", dtype_name(x.dtype()),
                                  dtype_name(w.dtype())));
  require_rank4(op, "x", x, "x");
  require_rank4(op, "weight", w, "weight");
  const std::int64_t cin = x.dims()[1], groups = p.integer("groups");
  if (w.dims()[0] != cin)
    throw KernelError(std::string(op), "weight", Rule::channels_mismatch,
                      fmt::format("conv_transpose2d: x has {} in-channels but weight has {}", cin, w.dims()[0]));
  // groups = 0 divides by zero in the reference, K = 0 underflows K - 1: rejected here (§9).
  if (groups < 1) throw KernelError(std::string(op), "groups", Rule::param_domain, "conv_transpose2d: groups must be >= 1");
  if (cin % groups != 0)
    throw KernelError(std::string(op), "groups", Rule::groups_divisibility,
                      fmt::format("conv_transpose2d: c_in ({}) must be divisible by groups ({})", cin, groups));
  if (w.dims()[2] < 1 || w.dims()[3] < 1)
    throw KernelError(std::string(op), "weight", Rule::kernel_empty, "conv_transpose2d: kernel dims must be >= 1");
  // Stride 0 and dilation 0 are accepted, as the reference accepts them.
  const auto [sh, sw] = pair_of(op, p, "stride", 0);
  const auto [ph, pw] = pair_of(op, p, "padding", 0);
  const auto [oph, opw] = pair_of(op, p, "output_padding", 0);
  const auto [dh, dw] = pair_of(op, p, "dilation", 0);
  const std::int64_t full_h = std::max<std::int64_t>(x.dims()[2] - 1, 0) * sh + dh * (w.dims()[2] - 1) + oph + 1;
  const std::int64_t full_w = std::max<std::int64_t>(x.dims()[3] - 1, 0) * sw + dw * (w.dims()[3] - 1) + opw + 1;
  if (full_h <= 2 * ph || full_w <= 2 * pw)
    throw KernelError(std::string(op), "padding", Rule::padding_too_large,
                      "conv_transpose2d: padding larger than produced output dims");
  Tensor y(x.dtype(), {x.dims()[0], w.dims()[1] * groups, full_h - 2 * ph, full_w - 2 * pw});
  by_dtype(x.dtype(), [&]<class T>() { conv_t_into<T>(x, w, y, sh, sw, ph, pw, dh, dw, groups); });
  return y;
}

// conv2d_simple (ops.rs:2209): h_out = saturating(h + 2p - kH) / stride + 1
// (a kernel larger than the padded input gives one partial window).
template <class T>
void conv_simple_into(const Tensor& x, const Tensor& k, Tensor& y, std::int64_t stride, std::int64_t pad) {
  const auto xs = x.as<T>(), ks = k.as<T>();
  auto ys = y.as_mutable<T>();
  const std::int64_t n = x.dims()[0], cin = x.dims()[1], h = x.dims()[2], wd = x.dims()[3];
  const std::int64_t cout = k.dims()[0], kh = k.dims()[2], kw = k.dims()[3], ho = y.dims()[2], wo = y.dims()[3];
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t oc = 0; oc < cout; ++oc)
      for (std::int64_t oh = 0; oh < ho; ++oh)
        for (std::int64_t ow = 0; ow < wo; ++ow) {
          T acc = cst<T>(0.0);
          for (std::int64_t ic = 0; ic < cin; ++ic)
            for (std::int64_t ky = 0; ky < kh; ++ky)
              for (std::int64_t kx = 0; kx < kw; ++kx) {
                const std::int64_t ih = oh * stride + ky - pad, iw = ow * stride + kx - pad;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                acc = acc_add(acc, xs[static_cast<std::size_t>(((b * cin + ic) * h + ih) * wd + iw)] *
                                       ks[static_cast<std::size_t>(((oc * cin + ic) * kh + ky) * kw + kx)]);
              }
          ys[static_cast<std::size_t>(((b * cout + oc) * ho + oh) * wo + ow)] = acc;
        }
}

Tensor conv2d_simple(const Tensor& x, const Tensor& k, std::int64_t stride, std::int64_t pad) {
  constexpr std::string_view op = "conv2d_simple";
  require_rank4(op, "x", x, "input");
  require_rank4(op, "kernel", k, "kernel");
  if (k.dims()[1] != x.dims()[1])
    throw KernelError(std::string(op), "kernel", Rule::channels_mismatch,
                      fmt::format("conv2d: input C_in ({}) != kernel C_in ({})", x.dims()[1], k.dims()[1]));
  auto out_dim = [&](std::int64_t in, std::int64_t kd) { return std::max<std::int64_t>(in + 2 * pad - kd, 0) / stride + 1; };
  Tensor y(x.dtype(), {x.dims()[0], k.dims()[0], out_dim(x.dims()[2], k.dims()[2]), out_dim(x.dims()[3], k.dims()[3])});
  by_dtype(x.dtype(), [&]<class T>() { conv_simple_into<T>(x, k, y, stride, pad); });
  return y;
}

// max_pool2d (ops.rs:2301): square window, no padding, floor mode.
template <class T>
void pool_into(const Tensor& x, Tensor& y, std::int64_t k, std::int64_t stride) {
  const auto xs = x.as<T>();
  auto ys = y.as_mutable<T>();
  const std::int64_t planes = x.dims()[0] * x.dims()[1], h = x.dims()[2], wd = x.dims()[3], ho = y.dims()[2], wo = y.dims()[3];
  for (std::int64_t pl = 0; pl < planes; ++pl)
    for (std::int64_t oh = 0; oh < ho; ++oh)
      for (std::int64_t ow = 0; ow < wo; ++ow) {
        T best = cst<T>(-INFINITY);
        for (std::int64_t ky = 0; ky < k; ++ky)
          for (std::int64_t kx = 0; kx < k; ++kx) {
            const T v = xs[static_cast<std::size_t>((pl * h + oh * stride + ky) * wd + ow * stride + kx)];
            if (v > best) best = v;
          }
        ys[static_cast<std::size_t>((pl * ho + oh) * wo + ow)] = best;
      }
}

Tensor max_pool2d(const Tensor& x, std::int64_t k, std::int64_t stride) {
  require_rank4("max_pool2d", "x", x, "input");
  if (k > x.dims()[2] || k > x.dims()[3])
    throw KernelError("max_pool2d", "kernel_size", Rule::kernel_too_large,
                      fmt::format("max_pool2d: kernel larger than input ({} > {}x{})", k, x.dims()[2], x.dims()[3]));
  Tensor y(x.dtype(), {x.dims()[0], x.dims()[1], (x.dims()[2] - k) / stride + 1, (x.dims()[3] - k) / stride + 1});
  by_dtype(x.dtype(), [&]<class T>() { pool_into<T>(x, y, k, stride); });
  return y;
}

}  // namespace

void register_conv(Arms& table) {
  const ParamDecl stride{"stride", ParamKind::shape}, padding{"padding", ParamKind::shape};
  // Exec: F32/F64 only, x, weight and bias of one dtype; bias optional (input 2, exec.rs:1297).
  table.push_back(Arm{.op = "conv2d", .dtypes = {DType::f32, DType::f64}, .arity = 3,
                      .params = {stride, padding, {"groups", ParamKind::integer}},
                      .eval = [](std::span<const Tensor> in, const Params& p) { return std::vector<Tensor>{conv2d(in, p)}; },
                      .operands = {"x", "weight", "bias"}, .same_dtype = false, .min_arity = 2});
  table.push_back(Arm{.op = "conv_transpose2d", .dtypes = {DType::f32, DType::f64}, .arity = 2,
                      .params = {stride, padding, {"output_padding", ParamKind::shape}, {"dilation", ParamKind::shape},
                                 {"groups", ParamKind::integer}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{conv_transpose2d(in, p)};
                      },
                      .operands = {"x", "weight"}, .same_dtype = false});
  // Not exec-wired: the generic kernels (T: Float).
  table.push_back(Arm{.op = "conv2d_simple", .dtypes = kFloatSet, .arity = 2,
                      .params = {{"stride", ParamKind::integer, 1, INT32_MAX}, {"padding", ParamKind::integer, 0, INT32_MAX}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{conv2d_simple(in[0], in[1], p.integer("stride"), p.integer("padding"))};
                      },
                      .operands = {"x", "kernel"}});
  table.push_back(Arm{.op = "max_pool2d", .dtypes = kFloatSet, .arity = 1,
                      .params = {{"kernel_size", ParamKind::integer, 1, INT32_MAX}, {"stride", ParamKind::integer, 1, INT32_MAX}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{max_pool2d(in[0], p.integer("kernel_size"), p.integer("stride"))};
                      }});
}

}  // namespace kc::kern
