// Padding of the reference (ops.rs:1532-1691; reference-semantics.md §14):
// `padding` lists (before, after) per axis as one flat shape parameter
// [b0, a0, b1, a1, ...]. pad_const fills T(value) and copies the interior;
// reflect (edge excluded, PyTorch's `reflect`) and replicate map each
// output coordinate i - before back into [0, n); pad_backward adds every
// grad_out element into the input position it was read from, in output
// row-major order, in an f64 accumulator, then narrows to T (NumCast).
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

enum class Mode : std::int64_t { constant = 0, reflect = 1, replicate = 2 };

struct Padding {
  std::vector<std::int64_t> before, after;
};

// The padding of a tensor of dims d, checked: 2 entries per axis; reflect
// and replicate read inside each axis (the reference leaves reflect's
// before, after <= n - 1 unchecked and reads another row, or panics on a
// usize underflow: rejected here, as the semantics note advises).
Padding checked_padding(std::string_view op, const Dims& d, const std::vector<std::int64_t>& flat, Mode m) {
  if (flat.size() != 2 * d.size())
    throw KernelError(std::string(op), "padding", Rule::padding_length,
                      fmt::format("pad: padding has {} entries, rank {} needs {} (a (before, after) pair per axis: "
                                  "the reference's padding.len() != input rank)", flat.size(), d.size(), 2 * d.size()));
  Padding p;
  for (std::size_t a = 0; a < d.size(); ++a) {
    const std::int64_t b = flat[2 * a], e = flat[2 * a + 1], n = d[a];
    const bool bad = m == Mode::reflect ? (n < 1 || b > n - 1 || e > n - 1) : m == Mode::replicate && n == 0 && (b > 0 || e > 0);
    if (bad)
      throw KernelError(std::string(op), "padding", Rule::padding_too_large,
                        fmt::format("{}: axis {} of size {} cannot be padded by ({}, {}) in {} mode", op, a, n, b, e,
                                    m == Mode::reflect ? "reflect (at most n - 1 each, n >= 1)" : "replicate (n >= 1)"));
    p.before.push_back(b);
    p.after.push_back(e);
  }
  return p;
}

Dims padded(const Dims& d, const Padding& p) {
  Dims out = d;
  for (std::size_t a = 0; a < d.size(); ++a) out[a] += p.before[a] + p.after[a];
  return out;
}

// The input coordinate output coordinate c of an axis of size n reads, or
// -1 outside it (constant mode).
std::int64_t source_coord(Mode m, std::int64_t c, std::int64_t before, std::int64_t n) {
  const std::int64_t i = c - before;
  if (i >= 0 && i < n) return i;
  if (m == Mode::constant) return -1;
  if (m == Mode::replicate) return i < 0 ? 0 : n - 1;
  return i < 0 ? -i : 2 * (n - 1) - i;
}

// Flat input index of output element o, or -1.
std::int64_t source_of(Mode m, const Dims& in, const Dims& out, const Padding& p, std::int64_t o) {
  std::int64_t src = 0, stride = 1;
  for (std::size_t a = in.size(); a-- > 0;) {
    const std::int64_t c = o % out[a];
    o /= out[a];
    const std::int64_t s = source_coord(m, c, p.before[a], in[a]);
    if (s < 0) return -1;
    src += s * stride;
    stride *= in[a];
  }
  return src;
}

Tensor pad(std::string_view op, const Tensor& x, const std::vector<std::int64_t>& flat, Mode m, double value) {
  const Padding p = checked_padding(op, x.dims(), flat, m);
  const Dims out = padded(x.dims(), p);
  Tensor y(x.dtype(), out);
  std::uint64_t fill = 0;
  by_dtype(x.dtype(), [&]<class T>() {
    const T v = cst<T>(value);
    std::memcpy(&fill, &v, sizeof v);
  });
  for (std::int64_t o = 0; o < y.numel(); ++o) {
    const std::int64_t s = source_of(m, x.dims(), out, p, o);
    y.set_bits(o, s < 0 ? fill : x.bits_at(s));
  }
  return y;
}

// pad_backward: walk grad_out in row-major order, add f64(g) into an f64
// accumulator at its source position (constant mode skips the border),
// then narrow: T(acc) (f64 -> f32 -> T for halves).
Tensor pad_backward(const Tensor& g, const Dims& in_shape, const std::vector<std::int64_t>& flat, std::int64_t mode) {
  constexpr std::string_view op = "pad_backward";
  for (std::int64_t d : in_shape)
    if (d < 0) throw KernelError(std::string(op), "in_shape", Rule::shape_negative_dim, "in_shape has a negative dim");
  const Mode m = static_cast<Mode>(mode);
  const Padding p = checked_padding(op, in_shape, flat, m);
  const Dims out = padded(in_shape, p);
  // Not checked by the reference (§14): a grad_out of other dims reads out of bounds there.
  if (g.dims() != out)
    throw KernelError(std::string(op), "grad_out", Rule::shape_mismatch,
                      fmt::format("pad_backward: grad_out is {}, the padded shape is {}", dims_to_string(g.dims()),
                                  dims_to_string(out)));
  std::vector<double> acc(static_cast<std::size_t>(checked_numel(in_shape)), 0.0);
  by_dtype(g.dtype(), [&]<class T>() {
    const auto gs = g.as<T>();
    for (std::int64_t o = 0; o < g.numel(); ++o) {
      const std::int64_t s = source_of(m, in_shape, out, p, o);
      if (s >= 0) {
        double& a = acc[static_cast<std::size_t>(s)];
        a = add_first_nan(a, to_f64(gs[static_cast<std::size_t>(o)]));
      }
    }
  });
  Tensor y(g.dtype(), in_shape);
  by_dtype(g.dtype(), [&]<class T>() {
    auto ys = y.as_mutable<T>();
    for (std::size_t i = 0; i < acc.size(); ++i) ys[i] = cst<T>(acc[i]);
  });
  return y;
}

std::vector<Tensor> one(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

}  // namespace

void register_padding(Arms& table) {
  const ParamDecl padding{"padding", ParamKind::shape};
  // Pad and PadBackward reject U32 (§14, §19).
  table.push_back(Arm{.op = "pad_const", .dtypes = kFloatSet, .arity = 1, .params = {padding, {"value", ParamKind::real}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(pad("pad_const", in[0], p.shape("padding"), Mode::constant, p.real("value")));
                      }});
  table.push_back(Arm{.op = "pad_reflect", .dtypes = kFloatSet, .arity = 1, .params = {padding},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(pad("pad_reflect", in[0], p.shape("padding"), Mode::reflect, 0.0));
                      }});
  table.push_back(Arm{.op = "pad_replicate", .dtypes = kFloatSet, .arity = 1, .params = {padding},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(pad("pad_replicate", in[0], p.shape("padding"), Mode::replicate, 0.0));
                      }});
  table.push_back(Arm{.op = "pad_backward", .dtypes = kFloatSet, .arity = 1,
                      .params = {{"in_shape", ParamKind::shape}, padding, {"mode", ParamKind::integer, 0, 2}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(pad_backward(in[0], p.shape("in_shape"), p.shape("padding"), p.integer("mode")));
                      },
                      .operands = {"grad_out"}});
}

}  // namespace kc::kern
