// Indexing, gather and scatter of the reference (ops.rs:1254-1392,
// 1855-2087; reference-semantics.md §16): index tensors are u32. The
// selections copy bit patterns; index_add and scatter_add copy base, then
// add each src element into its target in src's flat order, in T, so that
// duplicate indices accumulate in that order.
#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

constexpr DTypeSet kDataTypes{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};
constexpr DTypeSet kFloatAndIndex{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};

std::size_t checked_dim(std::string_view op, const Tensor& x, std::int64_t dim) {
  if (dim < 0 || dim >= x.rank())
    throw KernelError(std::string(op), "dim", Rule::dim_out_of_range,
                      fmt::format("{}: dim {} out of bounds for shape {}", op, dim, dims_to_string(x.dims())));
  return static_cast<std::size_t>(dim);
}

void require_u32(std::string_view op, std::string_view operand, const Tensor& t) {
  if (t.dtype() != DType::u32)
    throw KernelError(std::string(op), std::string(operand), Rule::dtype_unsupported,
                      fmt::format("{}: the index tensor must be U32, got {}", op, dtype_name(t.dtype())));
}

void require_float(std::string_view op, std::string_view operand, const Tensor& t) {
  if (!kFloatSet.contains(t.dtype()))
    throw KernelError(std::string(op), std::string(operand), Rule::dtype_unsupported,
                      fmt::format("{}: base and src dtype mismatch: {} vs {} (float data only)", op,
                                  dtype_name(t.dtype()), dtype_name(t.dtype())));
}

std::vector<std::int64_t> u32_values(const Tensor& idx) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(idx.numel()));
  const auto s = idx.as<std::uint32_t>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = s[i];
  return v;
}

// out[.., k, ..] = x[.., idx[k], ..]; every index validated before any copy.
Tensor select(std::string_view op, std::string_view index_operand, const Tensor& x, std::size_t dim,
              const std::vector<std::int64_t>& idx) {
  const std::int64_t n = x.dims()[dim];
  for (std::size_t k = 0; k < idx.size(); ++k)
    if (idx[k] < 0 || idx[k] >= n)
      throw KernelError(std::string(op), std::string(index_operand), Rule::index_out_of_range,
                        fmt::format("{}: indices[{}] = {} out of bounds for dim size {}", op, k, idx[k], n));
  Dims out = x.dims();
  out[dim] = static_cast<std::int64_t>(idx.size());
  const AlongDim a(x.dims(), dim);
  const auto len = static_cast<std::int64_t>(idx.size());
  return copy_from(x, out, [&](std::int64_t o) {
    const std::int64_t i = o % a.inner, k = (o / a.inner) % len, outer = o / (a.inner * len);
    return a.at(outer, idx[static_cast<std::size_t>(k)], i);
  });
}

Tensor index_select_tensor(const Tensor& x, const Tensor& index, std::int64_t dim) {
  constexpr std::string_view op = "index_select_tensor";
  require_u32(op, "index", index);
  if (index.rank() != 1)
    throw KernelError(std::string(op), "index", Rule::index_rank,
                      fmt::format("index_select_tensor: index tensor must be rank 1, got {}", dims_to_string(index.dims())));
  return select(op, "index", x, checked_dim(op, x, dim), u32_values(index));
}

Tensor embedding(const Tensor& table, const std::vector<std::int64_t>& ids) {
  if (table.rank() != 2)
    throw KernelError("embedding", "table", Rule::rank_exact,
                      fmt::format("embedding: table must be rank 2, got {}", dims_to_string(table.dims())));
  for (std::size_t i = 0; i < ids.size(); ++i)  // (in order, as the reference checks them)
    if (ids[i] < 0 || ids[i] >= table.dims()[0])
      throw KernelError("embedding", "ids", Rule::index_out_of_range,
                        fmt::format("embedding: ids[{}] = {} out of bounds for vocab size {}", i, ids[i], table.dims()[0]));
  return select("embedding", "ids", table, 0, ids);
}

// Coordinates of flat index i of dims d, outermost first.
std::vector<std::int64_t> unflatten(const Dims& d, std::int64_t i) {
  std::vector<std::int64_t> c(d.size());
  for (std::size_t a = d.size(); a-- > 0;) {
    c[a] = d[a] ? i % d[a] : 0;
    i = d[a] ? i / d[a] : 0;
  }
  return c;
}
std::int64_t flatten(const Dims& d, const std::vector<std::int64_t>& c) {
  std::int64_t i = 0;
  for (std::size_t a = 0; a < d.size(); ++a) i = i * d[a] + c[a];
  return i;
}

// The reference does not check index.size(d) <= x.size(d) off `dim`
// (larger dims read aliased elements or out of bounds, §16): rejected here,
// as PyTorch does.
void check_fits(std::string_view op, std::string_view operand, const Dims& small, const Dims& big, std::size_t dim) {
  for (std::size_t d = 0; d < small.size(); ++d)
    if (d != dim && small[d] > big[d])
      throw KernelError(std::string(op), std::string(operand), operand == "index" ? Rule::index_shape : Rule::shape_mismatch,
                        fmt::format("{}: {} dim {} is {}, beyond {} (the reference reads out of bounds)", op, operand, d,
                                    small[d], big[d]));
}

Tensor gather(const Tensor& x, const Tensor& index, std::int64_t dim) {
  constexpr std::string_view op = "gather";
  require_u32(op, "index", index);
  if (index.rank() != x.rank())
    throw KernelError(std::string(op), "index", Rule::rank_mismatch,
                      fmt::format("gather: data and index must have the same rank, got {} and {}", x.rank(), index.rank()));
  const std::size_t d = checked_dim(op, x, dim);
  check_fits(op, "index", index.dims(), x.dims(), d);
  const std::vector<std::int64_t> idx = u32_values(index);
  for (std::size_t p = 0; p < idx.size(); ++p)  // (checked in flat order)
    if (idx[p] >= x.dims()[d])
      throw KernelError(std::string(op), "index", Rule::index_out_of_range,
                        fmt::format("gather: index value {} out of bounds for data dim size {}", idx[p], x.dims()[d]));
  return copy_from(x, index.dims(), [&](std::int64_t o) {
    std::vector<std::int64_t> c = unflatten(index.dims(), o);
    c[d] = idx[static_cast<std::size_t>(o)];
    return flatten(x.dims(), c);
  });
}

// out = base, then out[target(p)] += src[p] for p in src's flat order, in T.
template <class T, class Target>
void accumulate(const Tensor& src, Tensor& out, Target target) {
  const auto s = src.as<T>();
  auto o = out.as_mutable<T>();
  for (std::int64_t p = 0; p < src.numel(); ++p) {
    const auto at = static_cast<std::size_t>(target(p));
    o[at] = acc_add(o[at], s[static_cast<std::size_t>(p)]);
  }
}

Tensor copy_of(const Tensor& base) {
  Tensor out(base.dtype(), base.dims());
  if (base.byte_size() > 0) std::memcpy(out.mutable_bytes(), base.bytes(), base.byte_size());
  return out;
}

void check_operands(std::string_view op, const Tensor& base, const Tensor& index, const Tensor& src) {
  require_float(op, "base", base);
  require_u32(op, "index", index);
  if (src.dtype() != base.dtype())
    throw KernelError(std::string(op), "src", Rule::dtype_mismatch,
                      fmt::format("{}: base and src dtype mismatch: {} vs {}", op, dtype_name(base.dtype()),
                                  dtype_name(src.dtype())));
  if (base.rank() != src.rank())
    throw KernelError(std::string(op), "src", Rule::rank_mismatch,
                      fmt::format("{}: base and src must have the same rank", op));
}

Tensor index_add(const Tensor& base, const Tensor& index, const Tensor& src, std::int64_t dim) {
  constexpr std::string_view op = "index_add";
  check_operands(op, base, index, src);
  const std::size_t d = checked_dim(op, base, dim);
  if (index.rank() != 1) throw KernelError(std::string(op), "index", Rule::index_rank, "index_add: index must be rank 1");
  if (src.dims()[d] != index.numel())
    throw KernelError(std::string(op), "src", Rule::shape_mismatch,
                      fmt::format("index_add: src dim {} must match index length ({} vs {})", d, src.dims()[d], index.numel()));
  for (std::size_t a = 0; a < base.dims().size(); ++a)
    if (a != d && base.dims()[a] != src.dims()[a])
      throw KernelError(std::string(op), "src", Rule::shape_mismatch,
                        fmt::format("index_add: non-dim shapes must match (dim {}: base {} vs src {})", a,
                                    base.dims()[a], src.dims()[a]));
  const std::vector<std::int64_t> idx = u32_values(index);
  for (std::size_t i = 0; i < idx.size(); ++i)  // (the reference finds a bad one lazily; the error is the same)
    if (idx[i] >= base.dims()[d])
      throw KernelError(std::string(op), "index", Rule::index_out_of_range,
                        fmt::format("index_add: indices[{}] = {} out of bounds for base dim {}", i, idx[i], base.dims()[d]));
  Tensor out = copy_of(base);
  by_dtype(base.dtype(), [&]<class T>() {
    accumulate<T>(src, out, [&](std::int64_t p) {
      std::vector<std::int64_t> c = unflatten(src.dims(), p);
      c[d] = idx[static_cast<std::size_t>(c[d])];
      return flatten(base.dims(), c);
    });
  });
  return out;
}

Tensor scatter_add(const Tensor& base, const Tensor& index, const Tensor& src, std::int64_t dim) {
  constexpr std::string_view op = "scatter_add";
  check_operands(op, base, index, src);
  const std::size_t d = checked_dim(op, base, dim);
  if (index.dims() != src.dims())
    throw KernelError(std::string(op), "index", Rule::shape_mismatch,
                      fmt::format("scatter_add: indices and src must have the same shape ({} vs {})",
                                  dims_to_string(index.dims()), dims_to_string(src.dims())));
  check_fits(op, "src", src.dims(), base.dims(), d);
  const std::vector<std::int64_t> idx = u32_values(index);
  for (std::size_t p = 0; p < idx.size(); ++p)
    if (idx[p] >= base.dims()[d])
      throw KernelError(std::string(op), "index", Rule::index_out_of_range,
                        fmt::format("scatter_add: index value {} out of bounds for base dim {}", idx[p], base.dims()[d]));
  Tensor out = copy_of(base);
  by_dtype(base.dtype(), [&]<class T>() {
    accumulate<T>(src, out, [&](std::int64_t p) {
      std::vector<std::int64_t> c = unflatten(src.dims(), p);
      c[d] = idx[static_cast<std::size_t>(p)];
      return flatten(base.dims(), c);
    });
  });
  return out;
}

std::vector<Tensor> one(Tensor t) { return std::vector<Tensor>{std::move(t)}; }

}  // namespace

void register_indexing(Arms& table) {
  const ParamDecl dim{"dim", ParamKind::integer, 0, INT32_MAX};
  // Data of any mover dtype, a u32 index (the kernel checks the index's dtype: same_dtype = false).
  table.push_back(Arm{.op = "index_select_tensor", .dtypes = kDataTypes, .arity = 2, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(index_select_tensor(in[0], in[1], p.integer("dim")));
                      },
                      .operands = {"x", "index"}, .same_dtype = false});
  // index_select and embedding take T: Float and their indices as a list (&[usize]).
  table.push_back(Arm{.op = "index_select", .dtypes = kFloatSet, .arity = 1,
                      .params = {dim, {"indices", ParamKind::shape}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        const std::size_t d = checked_dim("index_select", in[0], p.integer("dim"));
                        return one(select("index_select", "indices", in[0], d, p.shape("indices")));
                      }});
  table.push_back(Arm{.op = "embedding", .dtypes = kFloatSet, .arity = 1, .params = {{"ids", ParamKind::shape}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(embedding(in[0], p.shape("ids")));
                      },
                      .operands = {"table"}});
  table.push_back(Arm{.op = "gather", .dtypes = kDataTypes, .arity = 2, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(gather(in[0], in[1], p.integer("dim")));
                      },
                      .operands = {"x", "index"}, .same_dtype = false});
  // Exec: float data only (a U32 base hits `index_add: base and src dtype mismatch: U32 vs U32`).
  table.push_back(Arm{.op = "index_add", .dtypes = kFloatAndIndex, .arity = 3, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(index_add(in[0], in[1], in[2], p.integer("dim")));
                      },
                      .operands = {"base", "index", "src"}, .same_dtype = false});
  table.push_back(Arm{.op = "scatter_add", .dtypes = kFloatAndIndex, .arity = 3, .params = {dim},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return one(scatter_add(in[0], in[1], in[2], p.integer("dim")));
                      },
                      .operands = {"base", "index", "src"}, .same_dtype = false});
}

}  // namespace kc::kern
