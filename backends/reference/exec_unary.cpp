// Exec arms of the unary family: the reference's `unary!` dispatch accepts
// f32, f64, bf16, f16 and rejects U32 (reference-semantics.md §19); the
// scalar ops take their parameter as f64 (powi as i32).
#include <cstdint>

#include "backends/reference/executor.h"
#include "kernels/unary.h"

namespace kc::ref {

void register_unary_arms(std::vector<ExecArm>& table) {
  const DTypeSet floats{DType::f32, DType::f64, DType::bf16, DType::f16};
  for (int i = 0; i <= static_cast<int>(kern::UnaryOp::clamp); ++i) {
    const auto op = static_cast<kern::UnaryOp>(i);
    std::vector<ParamDecl> params;
    switch (op) {
      case kern::UnaryOp::powi: params = {{"n", ParamKind::integer, INT32_MIN, INT32_MAX}}; break;
      case kern::UnaryOp::add_scalar:
      case kern::UnaryOp::mul_scalar: params = {{"c", ParamKind::real}}; break;
      case kern::UnaryOp::clamp: params = {{"min", ParamKind::real}, {"max", ParamKind::real}}; break;
      default: break;
    }
    table.push_back(ExecArm{
        .op = kern::unary_op_name(op),
        .dtypes = floats,
        .arity = 1,
        .params = std::move(params),
        .eval = [op](std::span<const Tensor> in, const Params& p) {
          kern::UnaryArgs a;
          if (op == kern::UnaryOp::powi) a.n = static_cast<std::int32_t>(int_param(p, "n"));
          if (op == kern::UnaryOp::add_scalar || op == kern::UnaryOp::mul_scalar) a.c = real_param(p, "c");
          if (op == kern::UnaryOp::clamp) {
            a.lo = real_param(p, "min");
            a.hi = real_param(p, "max");
          }
          return std::vector<Tensor>{kern::unary(op, in[0], a)};
        },
    });
  }
}

}  // namespace kc::ref
