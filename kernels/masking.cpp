// Masking of the reference (ops.rs:2847-2965; reference-semantics.md §13):
// triu and tril keep x[..., i, j] where j >= i + diagonal (j <= i +
// diagonal) and put T::default() (+0, 0u32) elsewhere; masked_fill puts
// T(value) where the u8 mask is non-zero. Bit patterns are copied.
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

constexpr DTypeSet kDataTypes{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};
constexpr DTypeSet kDataAndMask{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32, DType::u8};

// keep(i, j) decides each element of the last two dims; the others are +0.
// (j - i compared with the diagonal: the reference's i + diagonal in i64,
// without its overflow for a diagonal near the i64 ends.)
template <class Keep>
Tensor triangle(std::string_view op, const Tensor& x, Keep keep) {
  if (x.rank() < 2)
    throw KernelError(std::string(op), "x", Rule::rank_min, fmt::format("{}: input rank must be >= 2, got {}", op, x.rank()));
  const std::size_t r = x.dims().size();
  const std::int64_t rows = x.dims()[r - 2], cols = x.dims()[r - 1];
  std::int64_t batch = 1;
  for (std::size_t a = 0; a + 2 < r; ++a) batch *= x.dims()[a];
  if (batch == 0 && rows * cols > 0)
    throw KernelError(std::string(op), "x", Rule::batch_empty,
                      fmt::format("{}: a zero-sized batch dim with non-empty matrices {} (the reference indexes out of "
                                  "bounds)", op, dims_to_string(x.dims())));
  Tensor y(x.dtype(), x.dims());  // zero-filled: T::default()
  const std::size_t w = dtype_size(x.dtype());
  for (std::int64_t o = 0; o < x.numel(); ++o) {
    const std::int64_t j = o % cols, i = (o / cols) % rows;
    if (keep(j - i))
      std::memcpy(y.mutable_bytes() + static_cast<std::size_t>(o) * w, x.bytes() + static_cast<std::size_t>(o) * w, w);
  }
  return y;
}

// T(value): NumCast for the floats (double rounding for halves, §0.3); an
// integer in range for u32 data.
std::uint64_t fill_bits(DType t, double value) {
  if (t == DType::u32) {
    if (!(value >= 0 && value <= 4294967295.0) || value != std::trunc(value))
      throw KernelError("masked_fill", "value", Rule::param_domain,
                        fmt::format("masked_fill: {} is not a u32 value (u32 data takes an integer in [0, 2^32))", value));
    return static_cast<std::uint64_t>(value);
  }
  std::uint64_t bits = 0;
  by_dtype(t, [&]<class T>() {
    const T v = cst<T>(value);
    std::memcpy(&bits, &v, sizeof v);
  });
  return bits;
}

Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  if (mask.dtype() != DType::u8)
    throw KernelError("masked_fill", "mask", Rule::dtype_unsupported,
                      fmt::format("masked_fill: the mask must be U8, got {}", dtype_name(mask.dtype())));
  if (!kDataTypes.contains(x.dtype()))
    throw KernelError("masked_fill", "x", Rule::dtype_unsupported,
                      fmt::format("masked_fill is not supported on {} data", dtype_name(x.dtype())));
  if (mask.dims() != x.dims())
    throw KernelError("masked_fill", "mask", Rule::shape_mismatch,
                      fmt::format("masked_fill: shape mismatch: x {} vs mask {}", dims_to_string(x.dims()),
                                  dims_to_string(mask.dims())));
  const std::uint64_t fill = fill_bits(x.dtype(), value);
  Tensor y(x.dtype(), x.dims());
  const auto m = mask.as<std::uint8_t>();
  for (std::int64_t o = 0; o < x.numel(); ++o) y.set_bits(o, m[static_cast<std::size_t>(o)] != 0 ? fill : x.bits_at(o));
  return y;
}

}  // namespace

void register_masking(Arms& table) {
  const ParamDecl diagonal{"diagonal", ParamKind::integer};
  table.push_back(Arm{.op = "triu", .dtypes = kDataTypes, .arity = 1, .params = {diagonal},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        const std::int64_t d = p.integer("diagonal");
                        return std::vector<Tensor>{triangle("triu", in[0], [d](std::int64_t j_minus_i) { return j_minus_i >= d; })};
                      }});
  table.push_back(Arm{.op = "tril", .dtypes = kDataTypes, .arity = 1, .params = {diagonal},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        const std::int64_t d = p.integer("diagonal");
                        return std::vector<Tensor>{triangle("tril", in[0], [d](std::int64_t j_minus_i) { return j_minus_i <= d; })};
                      }});
  // Not exec-wired (the executor has no U8 tensors, exec.rs:463): the
  // kernel itself, with its u8 mask (the kernel checks the dtypes).
  table.push_back(Arm{.op = "masked_fill", .dtypes = kDataAndMask, .arity = 2, .params = {{"value", ParamKind::real}},
                      .eval = [](std::span<const Tensor> in, const Params& p) {
                        return std::vector<Tensor>{masked_fill(in[0], in[1], p.real("value"))};
                      },
                      .operands = {"x", "mask"}, .same_dtype = false});
}

}  // namespace kc::kern
