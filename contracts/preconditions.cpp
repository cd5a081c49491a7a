#include "contracts/preconditions.h"

#include <string>

namespace kc::contract {

std::vector<Precondition> tensor_rules(std::string_view arity, std::string_view operand, std::string_view dtypes,
                                       std::vector<Precondition> extra) {
  std::vector<Precondition> v{{"arity", "inputs", std::string(arity)},
                              {"shape.negative_dim", operand, "every dimension is >= 0"},
                              {"buffer.size", operand, "the buffer holds exactly numel x dtype-size bytes"},
                              {"dtype.unsupported", operand, std::string(dtypes)}};
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

std::vector<Precondition> with(std::vector<Precondition> a, const std::vector<Precondition>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Precondition> param_rules(std::string_view name, std::string_view kind) {
  return {{"param.missing", name, std::string(name) + " is given"},
          {"param.type", name, std::string(name) + " is " + std::string(kind)}};
}

}  // namespace kc::contract
