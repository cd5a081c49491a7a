// The dtype-erased entry point of the reference backend, mirroring the
// reference's exec bridge (`exec.rs`): op name + input tensors + parameters
// -> output tensors, validated against the op's arm (kernels/arms.h).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"
#include "kernels/arms.h"

namespace kc::ref {

// The whole table (one arm per op), built from every family's arms.
const kern::Arms& exec_table();
const kern::Arm* find_arm(std::string_view op);

// Validate and run. Throws KernelError (rules: kernel_unknown, arity,
// shape_negative_dim, buffer_size, dtype_unsupported, dtype_mismatch,
// param_missing, param_type, param_domain, and each arm's own).
std::vector<Tensor> execute(std::string_view op, std::span<const Tensor> inputs, const Params& params);

// Rules shared by every arm, usable by other backends that wrap this one.
void validate_tensor(std::string_view op, std::string_view operand, const Tensor& t);

}  // namespace kc::ref
