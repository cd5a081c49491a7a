// The exec arms of the reference (exec.rs): for each op, the dtypes its
// dtype dispatch accepts, its arity, operand names and parameters, and the
// kernel call. Each family's kernels/<family>.cpp ends with its arms
// (`register_<file stem>`, collected by the generated register_all,
// cmake/Registry.cmake); backends/reference/executor.cpp validates every
// call against its arm before any kernel runs, and raises KernelError with
// the kernel, the operand and the rule, never a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "core/tensor.h"

namespace kc::kern {

enum class ParamKind { integer, real, shape };

struct ParamDecl {
  std::string_view name;
  ParamKind kind;
  std::int64_t min = INT64_MIN, max = INT64_MAX;  // integer range (powi: i32)
};

struct Arm {
  std::string_view op;
  DTypeSet dtypes;                 // accepted input dtypes (exec.rs's `unary!` arms etc.)
  int arity;
  std::vector<ParamDecl> params;
  // Runs after the shared validation (arity, tensors, dtypes, parameters);
  // checks the op's own preconditions and raises KernelError for them.
  std::function<std::vector<Tensor>(std::span<const Tensor>, const Params&)> eval;
  // Operand names, for errors ("x", or "a"/"b", or "x"/"up"); empty: "x" / "input<i>".
  std::vector<std::string_view> operands = {};
  bool same_dtype = true;  // all inputs must share one dtype
  // Fewer inputs the op accepts, where its last ones are optional (conv2d's
  // bias): -1 when every input is required.
  int min_arity = -1;
};

using Arms = std::vector<Arm>;
void register_all(Arms& arms);

}  // namespace kc::kern
