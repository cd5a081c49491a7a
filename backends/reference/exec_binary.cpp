// Exec arms of the binary families: `binary!` takes two tensors of one float
// dtype (reference-semantics.md §19). Same-shape ops need equal dims
// (assert_same_shape); the broadcast ops need NumPy-compatible shapes.
#include <fmt/format.h>

#include "backends/reference/executor.h"
#include "core/error.h"
#include "kernels/binary.h"
#include "kernels/shape_math.h"

namespace kc::ref {

void register_binary_arms(std::vector<ExecArm>& table) {
  const DTypeSet floats{DType::f32, DType::f64, DType::bf16, DType::f16};
  for (const char* name : {"add", "sub", "mul", "div", "maximum", "minimum", "rem", "pow"}) {
    const kern::BinaryOp op = *kern::parse_binary_op(name);
    table.push_back(ExecArm{
        .op = name, .dtypes = floats, .arity = 2, .params = {}, .eval =
            [op, name](std::span<const Tensor> in, const Params&) {
              if (in[0].dims() != in[1].dims())
                throw KernelError(name, "b", "shape.mismatch",
                                  fmt::format("shape mismatch: lhs={}, rhs={}", dims_to_string(in[0].dims()),
                                              dims_to_string(in[1].dims())));
              return std::vector<Tensor>{kern::binary_same_shape(op, in[0], in[1])};
            },
        .operands = {"a", "b"}});
  }
  for (const char* name : {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div"}) {
    const kern::BinaryOp op = *kern::parse_binary_op(name);
    table.push_back(ExecArm{
        .op = name, .dtypes = floats, .arity = 2, .params = {}, .eval =
            [op, name](std::span<const Tensor> in, const Params&) {
              std::string why;
              if (!kern::broadcast_shape(in[0].dims(), in[1].dims(), &why))
                throw KernelError(name, "b", "broadcast.incompatible", why);
              return std::vector<Tensor>{kern::binary_broadcast(op, in[0], in[1])};
            },
        .operands = {"a", "b"}});
  }
}

}  // namespace kc::ref
