// The one error type every precondition failure raises: it names the kernel,
// the operand (or parameter) and the rule broken, so that a person, a test
// and the CLI's exit code 2 all get the same facts.
#pragma once

#include <stdexcept>
#include <string>

namespace kc {

// Rule identifiers are stable strings ("dtype.unsupported", "shape.negative_dim",
// ...) listed in each contract's preconditions; the bad-input check compares them.
class KernelError : public std::runtime_error {
 public:
  KernelError(std::string kernel, std::string operand, std::string rule, std::string detail);
  const std::string& kernel() const { return kernel_; }
  const std::string& operand() const { return operand_; }
  const std::string& rule() const { return rule_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string kernel_, operand_, rule_, detail_;
};

// Misuse of the tool itself (bad command line, unknown kernel): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kc
