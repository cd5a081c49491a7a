// Matmul, transposes and permute of the reference (ops.rs:578-684,
// 2363-2473; reference-semantics.md §8, §18), and their exec arms,
// including eval_matmul's mixed-precision arm (exec.rs:1283: f32 x bf16).
//
// matmul: out[b, i, j] = fold over kk = 0..k-1, ascending, of the rounded
// product a[b, i, kk] * b[b, kk, j] into an accumulator of T starting at +0;
// no FMA (the build has -ffp-contract=off), no wider accumulator: halves do
// each product and each addition in f32 and round back (kernels/scalar.h).
// The data movers copy element bit patterns, so NaN payloads and signalling
// NaNs travel unchanged, as the reference's clones do.
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

std::int64_t product_of(const Dims& d, std::size_t from, std::size_t to) {
  std::int64_t n = 1;
  for (std::size_t i = from; i < to; ++i) n *= d[i];
  return n;
}

// The reference takes the batch count as max(product, 1) and then indexes
// into empty buffers when a batch dim is 0 while the matrices are not
// empty (§8): a panic there, a typed error here.
void check_batch_not_empty(std::string_view op, std::string_view operand, const Dims& d, std::int64_t matrix_elems) {
  if (product_of(d, 0, d.size() - 2) == 0 && matrix_elems > 0)
    throw KernelError(std::string(op), std::string(operand), Rule::batch_empty,
                      fmt::format("a zero-sized batch dim with non-empty matrices {} (the reference indexes out of "
                                  "bounds)", dims_to_string(d)));
}

template <class T>
void matmul_into(const Tensor& a, const Tensor& b, Tensor& y, std::int64_t batches, std::int64_t m, std::int64_t k,
                 std::int64_t n) {
  const auto as = a.as<T>();
  const auto bs = b.as<T>();
  auto ys = y.as_mutable<T>();
  for (std::int64_t p = 0; p < batches; ++p)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        T acc = cst<T>(0.0);
        for (std::int64_t kk = 0; kk < k; ++kk)
          acc = acc + as[static_cast<std::size_t>((p * m + i) * k + kk)] * bs[static_cast<std::size_t>((p * k + kk) * n + j)];
        ys[static_cast<std::size_t>((p * m + i) * n + j)] = acc;
      }
}

Tensor matmul_2d(const Tensor& a, const Tensor& b) {
  constexpr std::string_view op = "matmul_2d";
  if (a.rank() != 2)
    throw KernelError(std::string(op), "a", Rule::rank_exact, fmt::format("reference matmul_2d: lhs must be rank 2, got {}", a.rank()));
  if (b.rank() != 2)
    throw KernelError(std::string(op), "b", Rule::rank_exact, fmt::format("reference matmul_2d: rhs must be rank 2, got {}", b.rank()));
  const std::int64_t m = a.dims()[0], k = a.dims()[1], n = b.dims()[1];
  if (b.dims()[0] != k)
    throw KernelError(std::string(op), "b", Rule::inner_mismatch,
                      fmt::format("reference matmul_2d: inner dim mismatch: lhs k={}, rhs k={}", k, b.dims()[0]));
  Tensor y(a.dtype(), {m, n});
  by_dtype(a.dtype(), [&]<class T>() { matmul_into<T>(a, b, y, 1, m, k, n); });
  return y;
}

Tensor matmul(std::string_view op, const Tensor& a, const Tensor& b) {
  if (a.rank() < 2 || b.rank() < 2)
    throw KernelError(std::string(op), a.rank() < 2 ? "a" : "b", Rule::rank_min,
                      fmt::format("matmul: both operands must be rank >= 2, got {} and {}", a.rank(), b.rank()));
  if (a.rank() != b.rank())
    throw KernelError(std::string(op), "b", Rule::rank_mismatch,
                      fmt::format("matmul: operands must have the same rank, got {} and {}", a.rank(), b.rank()));
  const std::size_t r = a.dims().size();
  for (std::size_t i = 0; i + 2 < r; ++i)
    if (a.dims()[i] != b.dims()[i])
      throw KernelError(std::string(op), "b", Rule::batch_mismatch,
                        fmt::format("matmul: batch dim mismatch at axis {}: {} vs {}", i, a.dims()[i], b.dims()[i]));
  const std::int64_t m = a.dims()[r - 2], k = a.dims()[r - 1], n = b.dims()[r - 1];
  if (b.dims()[r - 2] != k)
    throw KernelError(std::string(op), "b", Rule::inner_mismatch,
                      fmt::format("matmul: inner dim mismatch (lhs k={}, rhs k={})", k, b.dims()[r - 2]));
  if (r == 2) return matmul_2d(a, b);  // ops.rs:612
  check_batch_not_empty(op, "a", a.dims(), m * n);
  Dims out(a.dims().begin(), a.dims().end() - 2);
  out.push_back(m);
  out.push_back(n);
  Tensor y(a.dtype(), out);
  const std::int64_t batches = product_of(a.dims(), 0, r - 2);
  by_dtype(a.dtype(), [&]<class T>() { matmul_into<T>(a, b, y, batches, m, k, n); });
  return y;
}

// b widened exactly to f32 (every bf16 is an f32), then the f32 matmul.
Tensor widened_to_f32(const Tensor& b) {
  Tensor w(DType::f32, b.dims());
  auto ws = w.as_mutable<float>();
  const auto bs = b.as<bf16>();
  for (std::size_t i = 0; i < ws.size(); ++i) ws[i] = bf16_to_f32(bs[i]);
  return w;
}

// eval_matmul's dtype dispatch (exec.rs:1270-1290): equal float dtypes, or
// f32 lhs x bf16 rhs; every other mixture panics with this message.
Tensor eval_matmul(std::string_view op, const Tensor& a, const Tensor& b) {
  if (a.dtype() == DType::f32 && b.dtype() == DType::bf16) return matmul(op, a, widened_to_f32(b));
  if (a.dtype() != b.dtype())
    throw KernelError(std::string(op), "b", Rule::dtype_mismatch,
                      fmt::format("matmul: unsupported operand dtypes (lhs={}, rhs={})", dtype_name(a.dtype()),
                                  dtype_name(b.dtype())));
  return matmul(op, a, b);
}

// eval_fused_linear (exec.rs:1400, reference-semantics.md §18): mm =
// matmul(a, b) in T (f32 or f64; the arm checks the dtypes), the bias
// broadcast to mm's shape (any broadcastable shape), then mm + bias as one
// more rounding (not fused), mm's NaN first as in `mm + bias`.
Tensor fused_linear(const Tensor& a, const Tensor& b, const Tensor& bias) {
  Tensor mm = matmul("fused_linear", a, b);
  if (bias.rank() > mm.rank())
    throw KernelError("fused_linear", "bias", Rule::shape_broadcast,
                      fmt::format("fused_linear: bias of rank {} cannot broadcast to the matmul's {}", bias.rank(),
                                  dims_to_string(mm.dims())));
  if (auto why = target_incompatible(mm.dims(), bias.dims()))
    throw KernelError("fused_linear", "bias", Rule::shape_broadcast,
                      fmt::format("fused_linear: bias {} cannot broadcast to the matmul's {}: {}",
                                  dims_to_string(bias.dims()), dims_to_string(mm.dims()), *why));
  const BroadcastIndex src(bias.dims(), mm.dims());
  by_dtype(mm.dtype(), [&]<class T>() {
    auto ys = mm.as_mutable<T>();
    const auto bs = bias.as<T>();
    for (std::size_t o = 0; o < ys.size(); ++o)
      ys[o] = in_order(ys[o], bs[static_cast<std::size_t>(src(static_cast<std::int64_t>(o)))],
                       [](T u, T v) { return u + v; });
  });
  return mm;
}

// [..., m, n] -> [..., n, m]: out[p, j, i] = x[p, i, j].
Tensor swap_last_two(const Tensor& x) {
  const std::size_t r = x.dims().size();
  const std::int64_t m = x.dims()[r - 2], n = x.dims()[r - 1];
  Dims out = x.dims();
  std::swap(out[r - 2], out[r - 1]);
  return copy_from(x, out, [m, n](std::int64_t o) {
    const std::int64_t p = o / (m * n), rem = o % (m * n), j = rem / m, i = rem % m;
    return (p * m + i) * n + j;
  });
}

Tensor transpose_2d(const Tensor& x) {
  if (x.rank() != 2)
    throw KernelError("transpose_2d", "x", Rule::rank_exact, fmt::format("transpose_2d: input must be rank 2, got {}", x.rank()));
  return swap_last_two(x);
}

Tensor transpose_last_two(const Tensor& x) {
  if (x.rank() < 2)
    throw KernelError("transpose_last_two", "x", Rule::rank_min,
                      fmt::format("transpose_last_two: input must be rank >= 2, got {}", x.rank()));
  if (x.rank() == 2) return transpose_2d(x);  // ops.rs:2425
  const std::size_t r = x.dims().size();
  check_batch_not_empty("transpose_last_two", "x", x.dims(), x.dims()[r - 2] * x.dims()[r - 1]);
  return swap_last_two(x);
}

// out.shape[i] = x.shape[axes[i]], x_index[axes[i]] = out_index[i] (§8).
Tensor permute(const Tensor& x, const Dims& axes) {
  constexpr std::string_view op = "permute";
  const std::size_t r = x.dims().size();
  if (axes.size() != r)
    throw KernelError(std::string(op), "axes", Rule::axes_length,
                      fmt::format("permute: axes length {} must match tensor rank {}", axes.size(), r));
  std::vector<bool> seen(r, false);
  for (std::int64_t a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= r)
      throw KernelError(std::string(op), "axes", Rule::axes_out_of_range, fmt::format("permute: axis {} out of bounds", a));
    if (seen[static_cast<std::size_t>(a)])
      throw KernelError(std::string(op), "axes", Rule::axes_duplicate, fmt::format("permute: duplicate axis {}", a));
    seen[static_cast<std::size_t>(a)] = true;
  }
  const Dims in_strides = row_major_strides(x.dims());
  Dims out(r), stride_of_out(r);
  for (std::size_t i = 0; i < r; ++i) {
    out[i] = x.dims()[static_cast<std::size_t>(axes[i])];
    stride_of_out[i] = in_strides[static_cast<std::size_t>(axes[i])];
  }
  const Dims out_strides = row_major_strides(out);
  return copy_from(x, out, [&](std::int64_t o) {
    std::int64_t src = 0;
    for (std::size_t i = 0; i < r; ++i) src += (o / out_strides[i]) % out[i] * stride_of_out[i];
    return src;
  });
}

}  // namespace

void register_linalg(Arms& table) {
  // eval_matmul checks the dtype pair itself (same_dtype = false).
  // The mixed arm's operands are f32 and bf16 (the set covers both).
  for (const char* name : {"matmul", "matmul_f32_bf16"})
    table.push_back(Arm{.op = name,
                        .dtypes = std::string_view(name) == "matmul" ? kFloatSet : DTypeSet{DType::f32, DType::bf16},
                        .arity = 2, .params = {},
                        .eval = [name](std::span<const Tensor> in, const Params&) {
                          if (std::string_view(name) == "matmul_f32_bf16" && in[0].dtype() != DType::f32)
                            throw KernelError(name, "a", Rule::dtype_unsupported,
                                              fmt::format("the mixed-precision arm takes f32 activations, got {}",
                                                          dtype_name(in[0].dtype())));
                          if (std::string_view(name) == "matmul_f32_bf16" && in[1].dtype() != DType::bf16)
                            throw KernelError(name, "b", Rule::dtype_mismatch,
                                              fmt::format("the mixed-precision arm takes bf16 weights, got {}",
                                                          dtype_name(in[1].dtype())));
                          return std::vector<Tensor>{eval_matmul(name, in[0], in[1])};
                        },
                        .operands = {"a", "b"}, .same_dtype = false});
  // eval_fused_linear: f32 or f64, the three operands of one dtype.
  table.push_back(Arm{.op = "fused_linear", .dtypes = {DType::f32, DType::f64}, .arity = 3, .params = {},
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return std::vector<Tensor>{fused_linear(in[0], in[1], in[2])};
                      },
                      .operands = {"a", "b", "bias"}});
  table.push_back(Arm{.op = "matmul_2d", .dtypes = kFloatSet, .arity = 2, .params = {},
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return std::vector<Tensor>{matmul_2d(in[0], in[1])};
                      },
                      .operands = {"a", "b"}});
  // Transpose is a `unary!` op (float dtypes; U32 panics, §19).
  table.push_back(Arm{.op = "transpose_2d", .dtypes = kFloatSet, .arity = 1, .params = {},
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return std::vector<Tensor>{transpose_2d(in[0])};
                      }});
  table.push_back(Arm{.op = "transpose_last_two", .dtypes = kFloatSet, .arity = 1, .params = {},
                      .eval = [](std::span<const Tensor> in, const Params&) {
                        return std::vector<Tensor>{transpose_last_two(in[0])};
                      }});
  // Permute also takes U32 (§19).
  table.push_back(Arm{.op = "permute", .dtypes = {DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32}, .arity = 1,
                      .params = {{"axes", ParamKind::shape}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{permute(in[0], p.shape("axes"))};
                      }});
}

}  // namespace kc::kern
