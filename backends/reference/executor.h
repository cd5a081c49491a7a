// The dtype-erased entry point of the reference backend, mirroring the
// reference's exec bridge (`exec.rs`): op name + input tensors + parameters
// -> output tensors. Each arm declares the dtypes it accepts (the per-op
// dtype support table), its arity and its parameters; the bridge validates a
// call against the arm before any kernel runs and raises KernelError with
// the kernel, the operand and the rule, never a crash.
#pragma once

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "core/tensor.h"

namespace kc::ref {

enum class ParamKind { integer, real, shape };

struct ParamDecl {
  std::string_view name;
  ParamKind kind;
  std::int64_t min = INT64_MIN, max = INT64_MAX;  // integer range (powi: i32)
};

struct ExecArm {
  std::string_view op;
  DTypeSet dtypes;                 // accepted input dtypes (exec.rs's `unary!` arms etc.)
  int arity;
  std::vector<ParamDecl> params;
  std::function<std::vector<Tensor>(std::span<const Tensor>, const Params&)> eval;
  // Operand names, for errors ("x", or "a"/"b", or "x"/"up"); empty: "x" / "input<i>".
  std::vector<std::string_view> operands = {};
  bool same_dtype = true;  // all inputs must share one dtype
};

// The whole table (one arm per op); families register theirs in their own file.
const std::vector<ExecArm>& exec_table();
const ExecArm* find_arm(std::string_view op);

// Validate and run. Throws KernelError (rules: "kernel.unknown", "arity",
// "shape.negative_dim", "buffer.size", "dtype.unsupported", "param.missing",
// "param.type", "param.domain").
std::vector<Tensor> execute(std::string_view op, std::span<const Tensor> inputs, const Params& params);

// Rules shared by every arm, usable by other backends that wrap this one.
void validate_tensor(std::string_view op, std::string_view operand, const Tensor& t);

// Family registration (defined in the family's exec_*.cpp).
void register_unary_arms(std::vector<ExecArm>& table);
void register_binary_arms(std::vector<ExecArm>& table);
void register_reduce_arms(std::vector<ExecArm>& table);
void register_cast_arms(std::vector<ExecArm>& table);

// Typed accessors for validated parameters.
std::int64_t int_param(const Params& p, std::string_view name);
double real_param(const Params& p, std::string_view name);
const Dims& shape_param(const Params& p, std::string_view name);

}  // namespace kc::ref
