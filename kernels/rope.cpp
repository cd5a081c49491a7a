// Rotary position embedding of the reference (ops.rs:2801;
// reference-semantics.md §11): half-split (rotate_half, GPT-NeoX / HF).
// With h = D/2 and s the row's position (x's second-to-last axis):
//   out[i]     = x[i] cos[s, i]         - x[i + h] sin[s, i]
//   out[i + h] = x[i + h] cos[s, i + h] + x[i] sin[s, i + h]
// each two rounded products and one rounded sum or difference in T (the
// halves through f32, §0.2). The tables are full width [S, D], no offset.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

namespace {

template <class T>
void rope_into(const Tensor& x, const Tensor& cos_t, const Tensor& sin_t, Tensor& y) {
  const auto xs = x.as<T>(), cs = cos_t.as<T>(), ss = sin_t.as<T>();
  auto ys = y.as_mutable<T>();
  const std::size_t r = x.dims().size();
  const std::int64_t seq = x.dims()[r - 2], d = x.dims()[r - 1], h = d / 2;
  const std::int64_t outer = seq * d == 0 ? 0 : x.numel() / (seq * d);
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t s = 0; s < seq; ++s) {
      const std::int64_t row = (o * seq + s) * d;
      for (std::int64_t i = 0; i < h; ++i) {
        const auto lo = static_cast<std::size_t>(row + i), hi = static_cast<std::size_t>(row + i + h);
        const auto c_lo = static_cast<std::size_t>(s * d + i), c_hi = static_cast<std::size_t>(s * d + i + h);
        const T a = xs[lo], b = xs[hi];
        // (every step keeps its first operand's NaN as x86 does: through
        // in_order, which a compiler may not commute or rewrite)
        const auto mul = [](T u, T v) { return u * v; };
        ys[lo] = in_order(in_order(a, cs[c_lo], mul), in_order(b, ss[c_lo], mul), [](T u, T v) { return u - v; });
        ys[hi] = in_order(in_order(b, cs[c_hi], mul), in_order(a, ss[c_hi], mul), [](T u, T v) { return u + v; });
      }
    }
}

Tensor rope(const Tensor& x, const Tensor& cos_t, const Tensor& sin_t) {
  if (x.rank() < 2)
    throw KernelError("rope", "x", Rule::rank_min, fmt::format("rope: input rank must be >= 2, got {}", dims_to_string(x.dims())));
  const std::size_t r = x.dims().size();
  const std::int64_t seq = x.dims()[r - 2], d = x.dims()[r - 1];
  if (d % 2 != 0) throw KernelError("rope", "x", Rule::head_dim_odd, fmt::format("rope: head_dim must be even, got {}", d));
  for (const auto& [t, name] : {std::pair<const Tensor*, const char*>{&cos_t, "cos"}, {&sin_t, "sin"}})
    if (t->dims() != Dims{seq, d})
      throw KernelError("rope", name, Rule::shape_mismatch,
                        fmt::format("rope: {} shape mismatch: {} is {}, x needs [{}, {}] ([seq, head_dim])", name, name,
                                    dims_to_string(t->dims()), seq, d));
  Tensor y(x.dtype(), x.dims());
  by_dtype(x.dtype(), [&]<class T>() { rope_into<T>(x, cos_t, sin_t, y); });
  return y;
}

}  // namespace

void register_rope(Arms& table) {
  // Exec: x, cos and sin of one dtype, f32/f64/bf16/f16 (`rope: dtype mismatch`).
  table.push_back(Arm{.op = "rope", .dtypes = kFloatSet, .arity = 3,
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return std::vector<Tensor>{rope(in[0], in[1], in[2])};
                      },
                      .operands = {"x", "cos", "sin"}});
}

}  // namespace kc::kern
