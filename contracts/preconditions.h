// Precondition lists the contracts share: the rules every call's tensors
// obey, and a parameter's presence and type. Each rule is a KernelError rule
// the backend must raise, with the operand it must name.
#pragma once

#include <string_view>
#include <vector>

#include "contracts/contract.h"

namespace kc::contract {

std::vector<Precondition> tensor_rules(std::string_view arity, std::string_view operand, std::string_view dtypes,
                                       std::vector<Precondition> extra = {});
// param.missing and param.type of a parameter: "<name> is given", "<name> is <kind>"
// (kind: "a real (f64)", "an integer", "a shape").
std::vector<Precondition> param_rules(std::string_view name, std::string_view kind);
// a followed by b.
std::vector<Precondition> with(std::vector<Precondition> a, const std::vector<Precondition>& b);

}  // namespace kc::contract
