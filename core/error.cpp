#include "core/error.h"

#include <fmt/format.h>

namespace kc {

KernelError::KernelError(std::string kernel, std::string operand, Rule rule, std::string detail)
    : KernelError(std::move(kernel), std::move(operand), rule, std::string(rule_name(rule)), std::move(detail)) {}

KernelError KernelError::from_text(std::string kernel, std::string operand, std::string_view rule,
                                   std::string detail) {
  return KernelError(std::move(kernel), std::move(operand), parse_rule(rule), std::string(rule), std::move(detail));
}

KernelError::KernelError(std::string kernel, std::string operand, Rule rule, std::string rule_text,
                         std::string detail)
    : std::runtime_error(fmt::format("{}: operand '{}' breaks rule '{}': {}", kernel, operand, rule_text, detail)),
      kernel_(std::move(kernel)),
      operand_(std::move(operand)),
      rule_(rule),
      rule_text_(std::move(rule_text)),
      detail_(std::move(detail)) {}

}  // namespace kc
