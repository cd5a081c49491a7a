// Sequence and shape movement of the reference (ops.rs:829, 1398-1470,
// 1696-1768; reference-semantics.md §15) and the executor's shape arms
// (exec.rs:1103-1160: Contiguize, Squeeze, Unsqueeze reshape): reshape and
// its arms share the input's storage (metadata only); cumsum folds in T
// from +0 along the dim; flip, roll, concat and slice copy bit patterns.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

constexpr DTypeSet kDataTypes{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};

// `dim` < rank (or <= rank where an axis may be added); the reference's
// panic "<op>: dim D out of range" as a typed error.
std::size_t checked_dim(std::string_view op, const Tensor& x, std::int64_t dim, bool may_append = false) {
  const auto rank = static_cast<std::int64_t>(x.rank());
  if (dim < 0 || dim > rank || (dim == rank && !may_append))
    throw KernelError(std::string(op), "dim", Rule::dim_out_of_range,
                      fmt::format("{}: dim {} out of range for rank {} ({})", op, dim, rank, dims_to_string(x.dims())));
  return static_cast<std::size_t>(dim);
}

// reshape (ops.rs:829): the same storage under new dims; the element
// counts must match.
Tensor reshape(std::string_view op, const Tensor& x, const Dims& target) {
  if (checked_numel(target) != x.numel())
    throw KernelError(std::string(op), "shape", Rule::numel_mismatch,
                      fmt::format("reshape: element count mismatch: source {} vs target {}", x.numel(),
                                  dims_to_string(target)));
  return x.reshaped(target);
}

Tensor squeeze(const Tensor& x, std::int64_t dim) {
  const std::size_t d = checked_dim("squeeze", x, dim);
  if (x.dims()[d] != 1)
    throw KernelError("squeeze", "dim", Rule::dim_not_one,
                      fmt::format("squeeze: dim {} has size {}, expected 1", dim, x.dims()[d]));
  Dims out = x.dims();
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
  return reshape("squeeze", x, out);
}

Tensor unsqueeze(const Tensor& x, std::int64_t dim) {
  const std::size_t d = checked_dim("unsqueeze", x, dim, true);
  Dims out = x.dims();
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(d), 1);
  return reshape("unsqueeze", x, out);
}

// cumsum (ops.rs:1696): per (outer, inner) column, acc = +0, then acc =
// acc + x_j and out_j = acc for j ascending, in T.
template <class T>
void cumsum_into(const Tensor& x, Tensor& y, const AlongDim& a) {
  const auto xs = x.as<T>();
  auto ys = y.as_mutable<T>();
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t i = 0; i < a.inner; ++i) {
      T acc = cst<T>(0.0);
      for (std::int64_t j = 0; j < a.d; ++j) {
        const auto at = static_cast<std::size_t>(a.at(o, j, i));
        acc = acc_add(acc, xs[at]);
        ys[at] = acc;
      }
    }
}

Tensor cumsum(const Tensor& x, std::int64_t dim) {
  const std::size_t d = checked_dim("cumsum", x, dim);
  Tensor y(x.dtype(), x.dims());
  const AlongDim a(x.dims(), d);
  by_dtype(x.dtype(), [&]<class T>() { cumsum_into<T>(x, y, a); });
  return y;
}

// flip (ops.rs:1720): out[j] = in[d - 1 - j] along dim.
Tensor flip(const Tensor& x, std::int64_t dim) {
  const AlongDim a(x.dims(), checked_dim("flip", x, dim));
  return copy_from(x, x.dims(), [&a](std::int64_t o) {
    const std::int64_t i = o % a.inner, j = (o / a.inner) % a.d, outer = o / (a.inner * a.d);
    return a.at(outer, a.d - 1 - j, i);
  });
}

// roll (ops.rs:1742): s = ((shift mod d) + d) mod d, out[j] = in[(j - s)
// mod d]; a positive shift moves elements to higher indices (torch.roll).
Tensor roll(const Tensor& x, std::int64_t dim, std::int64_t shift) {
  const AlongDim a(x.dims(), checked_dim("roll", x, dim));
  if (x.numel() == 0) return Tensor(x.dtype(), x.dims());
  const std::int64_t s = ((shift % a.d) + a.d) % a.d;
  return copy_from(x, x.dims(), [&a, s](std::int64_t o) {
    const std::int64_t i = o % a.inner, j = (o / a.inner) % a.d, outer = o / (a.inner * a.d);
    return a.at(outer, ((j - s) % a.d + a.d) % a.d, i);
  });
}

// concat (ops.rs:1398): a then b along dim; equal ranks and equal dims
// elsewhere.
Tensor concat(const Tensor& a, const Tensor& b, std::int64_t dim) {
  if (a.rank() != b.rank())
    throw KernelError("concat", "b", Rule::rank_mismatch, fmt::format("concat: rank mismatch ({} vs {})", a.rank(), b.rank()));
  const std::size_t d = checked_dim("concat", a, dim);
  for (std::size_t i = 0; i < a.dims().size(); ++i)
    if (i != d && a.dims()[i] != b.dims()[i])
      throw KernelError("concat", "b", Rule::shape_mismatch,
                        fmt::format("concat: non-dim shape mismatch at dim {}: {} vs {}", i, a.dims()[i], b.dims()[i]));
  Dims out = a.dims();
  out[d] += b.dims()[d];
  Tensor y(a.dtype(), out);
  const AlongDim pa(a.dims(), d), pb(b.dims(), d), po(out, d);
  const std::size_t w = dtype_size(a.dtype());
  if (po.inner == 0) return y;  // (no bytes to copy: and no memcpy from a null buffer)
  for (std::int64_t o = 0; o < po.outer; ++o)
    for (std::int64_t j = 0; j < po.d; ++j) {
      const bool from_a = j < pa.d;
      const Tensor& src = from_a ? a : b;
      const std::int64_t at = from_a ? pa.at(o, j, 0) : pb.at(o, j - pa.d, 0);
      std::memcpy(y.mutable_bytes() + static_cast<std::size_t>(po.at(o, j, 0)) * w,
                  src.bytes() + static_cast<std::size_t>(at) * w, static_cast<std::size_t>(po.inner) * w);
    }
  return y;
}

// slice (ops.rs:1453): in[start, start + len) along dim.
Tensor slice(const Tensor& x, std::int64_t dim, std::int64_t start, std::int64_t len) {
  const std::size_t d = checked_dim("slice", x, dim);
  const std::int64_t n = x.dims()[d];
  if (start > n || len > n - start)  // (start + len itself may overflow: the reference's usize sum)
    throw KernelError("slice", "len", Rule::range_out_of_bounds,
                      fmt::format("slice: [start={}, len={}) exceeds dim size {}", start, len, n));
  Dims out = x.dims();
  out[d] = len;
  const AlongDim a(x.dims(), d);
  return copy_from(x, out, [&a, start, len](std::int64_t o) {
    const std::int64_t i = o % a.inner, j = (o / a.inner) % len, outer = o / (a.inner * len);
    return a.at(outer, start + j, i);
  });
}

std::vector<Tensor> one(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

}  // namespace

void register_sequence(Arms& table) {
  const ParamDecl dim{"dim", ParamKind::integer, 0, INT32_MAX};
  table.push_back(Arm{.op = "reshape", .dtypes = kDataTypes, .arity = 1, .params = {{"shape", ParamKind::shape}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(reshape("reshape", in[0], p.shape("shape")));
                      }});
  // Contiguize reshapes to the node's own shape (exec.rs): a view of x.
  table.push_back(Arm{.op = "contiguize", .dtypes = kDataTypes, .arity = 1, .params = {},
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return one(reshape("contiguize", in[0], in[0].dims()));
                      }});
  table.push_back(Arm{.op = "squeeze", .dtypes = kDataTypes, .arity = 1, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(squeeze(in[0], p.integer("dim")));
                      }});
  table.push_back(Arm{.op = "unsqueeze", .dtypes = kDataTypes, .arity = 1, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(unsqueeze(in[0], p.integer("dim")));
                      }});
  // CumSum rejects U32 (§19).
  table.push_back(Arm{.op = "cumsum", .dtypes = kFloatSet, .arity = 1, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(cumsum(in[0], p.integer("dim")));
                      }});
  table.push_back(Arm{.op = "flip", .dtypes = kDataTypes, .arity = 1, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) { return one(flip(in[0], p.integer("dim"))); }});
  table.push_back(Arm{.op = "roll", .dtypes = kDataTypes, .arity = 1, .params = {dim, {"shift", ParamKind::integer}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(roll(in[0], p.integer("dim"), p.integer("shift")));
                      }});
  // Both inputs of one dtype (`concat: dtype mismatch`, exec); U32 pairs allowed.
  table.push_back(Arm{.op = "concat", .dtypes = kDataTypes, .arity = 2, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(concat(in[0], in[1], p.integer("dim")));
                      },
                      .operands = {"a", "b"}});
  table.push_back(Arm{.op = "slice", .dtypes = kDataTypes, .arity = 1,
                      .params = {dim, {"start", ParamKind::integer, 0, INT64_MAX}, {"len", ParamKind::integer, 0, INT64_MAX}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(slice(in[0], p.integer("dim"), p.integer("start"), p.integer("len")));
                      }});
}

}  // namespace kc::kern
