#include "core/error.h"

#include <fmt/format.h>

namespace kc {

KernelError::KernelError(std::string kernel, std::string operand, std::string rule,
                         std::string detail)
    : std::runtime_error(fmt::format("{}: operand '{}' breaks rule '{}': {}", kernel, operand,
                                     rule, detail)),
      kernel_(std::move(kernel)),
      operand_(std::move(operand)),
      rule_(std::move(rule)),
      detail_(std::move(detail)) {}

}  // namespace kc
