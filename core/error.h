// The one error type every precondition failure raises: it names the kernel,
// the operand (or parameter) and the rule broken, so that a person, a test
// and the CLI's exit code 2 all get the same facts.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "core/rules.h"

namespace kc {

// The rule is one of core/rules.h, listed in each contract's preconditions;
// the bad-input check compares it.
class KernelError : public std::runtime_error {
 public:
  KernelError(std::string kernel, std::string operand, Rule rule, std::string detail);
  // A rule given as text (a plug-in's kc_error.rule): a name of core/rules.h
  // is that rule; any other text is Rule::unknown, its text kept for the
  // messages (a plug-in's rule kconform does not know is its mismatch to
  // report, not a crash).
  static KernelError from_text(std::string kernel, std::string operand, std::string_view rule, std::string detail);
  const std::string& kernel() const { return kernel_; }
  const std::string& operand() const { return operand_; }
  Rule rule() const { return rule_; }
  // The rule's name, or for Rule::unknown the text it was raised with.
  const std::string& rule_text() const { return rule_text_; }
  const std::string& detail() const { return detail_; }

 private:
  KernelError(std::string kernel, std::string operand, Rule rule, std::string rule_text, std::string detail);
  std::string kernel_, operand_;
  Rule rule_;
  std::string rule_text_, detail_;
};

// A call that did not return normally: the kernel crashed (a signal),
// aborted, let an exception escape, ran past the per-call time limit, or
// wrote outside its output. Raised by the plug-in backend, whose worker
// process survives none of these; `kind` names what happened ("crash",
// "abort", "exception", "timeout", "out-of-bounds write", "out-of-bounds
// read", "input modified", "write after return", "unwritten output",
// "output request", "exit", "lost connection": backends/plugin/).
class KernelFault : public std::runtime_error {
 public:
  KernelFault(std::string kind, const std::string& what) : std::runtime_error(what), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// A call abandoned because the run was asked to stop (a signal): neither a
// pass nor a failure of the kernel; the engine records its case as
// interrupted and stops. Deliberately not a std::exception: the checks
// turn any std::exception from a call into a failure of the kernel, and
// this must pass through them to the case loop.
class Interrupted {
 public:
  explicit Interrupted(std::string what) : what_(std::move(what)) {}
  const char* what() const noexcept { return what_.c_str(); }

 private:
  std::string what_;
};

// Misuse of the tool itself (bad command line, unknown kernel): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kc
