#include "backends/reference/executor.h"

#include <fmt/format.h>

#include "core/error.h"

namespace kc::ref {

const kern::Arms& exec_table() {
  static const kern::Arms table = [] {
    kern::Arms t;
    kern::register_all(t);
    return t;
  }();
  return table;
}

const kern::Arm* find_arm(std::string_view op) {
  for (const kern::Arm& a : exec_table())
    if (a.op == op) return &a;
  return nullptr;
}

void validate_tensor(std::string_view op, std::string_view operand, const Tensor& t) {
  for (std::int64_t d : t.dims())
    if (d < 0)
      throw KernelError(std::string(op), std::string(operand), Rule::shape_negative_dim,
                        fmt::format("dimension {} in shape {} is negative", d, dims_to_string(t.dims())));
  if (checked_numel(t.dims()) < 0)
    throw KernelError(std::string(op), std::string(operand), Rule::shape_negative_dim,
                      "element count of " + dims_to_string(t.dims()) + " overflows");
  if (!t.consistent())
    throw KernelError(std::string(op), std::string(operand), Rule::buffer_size,
                      fmt::format("buffer holds {} bytes but shape {} of {} needs {}", t.byte_size(),
                                  dims_to_string(t.dims()), dtype_name(t.dtype()),
                                  t.numel() * static_cast<std::int64_t>(dtype_size(t.dtype()))));
}

namespace {

void validate_params(const kern::Arm& arm, const Params& params) {
  const std::string op(arm.op);
  for (const kern::ParamDecl& d : arm.params) {
    const ParamValue* v = params.find(std::string(d.name));
    if (!v) throw KernelError(op, std::string(d.name), Rule::param_missing, "required parameter is not given");
    if (d.kind == kern::ParamKind::integer) {
      const auto* i = std::get_if<std::int64_t>(v);
      if (!i) throw KernelError(op, std::string(d.name), Rule::param_type, "expected an integer, got a real");
      if (*i < d.min || *i > d.max)
        throw KernelError(op, std::string(d.name), Rule::param_domain,
                          fmt::format("{} is outside [{}, {}]", *i, d.min, d.max));
    } else if (d.kind == kern::ParamKind::real && !std::holds_alternative<double>(*v)) {
      throw KernelError(op, std::string(d.name), Rule::param_type, "expected a real");
    } else if (d.kind == kern::ParamKind::shape) {
      const auto* dims = std::get_if<Dims>(v);
      if (!dims) throw KernelError(op, std::string(d.name), Rule::param_type, "expected a shape");
      for (std::int64_t x : *dims)
        if (x < 0) throw KernelError(op, std::string(d.name), Rule::shape_negative_dim, "target " + dims_to_string(*dims) + " has a negative dim");
    }
  }
}

}  // namespace

std::vector<Tensor> execute(std::string_view op, std::span<const Tensor> inputs, const Params& params) {
  const kern::Arm* arm = find_arm(op);
  if (!arm) throw KernelError(std::string(op), "op", Rule::kernel_unknown, "no exec arm for this op");
  const int least = arm->min_arity >= 0 ? arm->min_arity : arm->arity;
  if (static_cast<int>(inputs.size()) < least || static_cast<int>(inputs.size()) > arm->arity)
    throw KernelError(std::string(op), "inputs", Rule::arity,
                      least == arm->arity ? fmt::format("expected {} input(s), got {}", arm->arity, inputs.size())
                                          : fmt::format("expected {} to {} inputs, got {}", least, arm->arity, inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string operand = i < arm->operands.size() ? std::string(arm->operands[i])
                                : inputs.size() == 1     ? std::string("x")
                                                         : fmt::format("input{}", i);
    validate_tensor(op, operand, inputs[i]);
    if (!arm->dtypes.contains(inputs[i].dtype()))
      throw KernelError(std::string(op), operand, Rule::dtype_unsupported,
                        fmt::format("{} is not supported on {} tensors (accepted: {})", op,
                                    dtype_name(inputs[i].dtype()), arm->dtypes.to_string()));
    if (arm->same_dtype && i > 0 && inputs[i].dtype() != inputs[0].dtype())
      throw KernelError(std::string(op), operand, Rule::dtype_mismatch,
                        fmt::format("{}: unsupported operand dtypes ({} vs {})", op, dtype_name(inputs[0].dtype()),
                                    dtype_name(inputs[i].dtype())));
  }
  validate_params(*arm, params);
  return arm->eval(inputs, params);
}

}  // namespace kc::ref
