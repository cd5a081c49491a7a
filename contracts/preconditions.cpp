#include "contracts/preconditions.h"

#include <string>

namespace kc::contract {

std::vector<Precondition> tensor_rules(std::string_view arity, std::string_view operand, std::string_view dtypes,
                                       std::vector<Precondition> extra) {
  std::vector<Precondition> v{{Rule::arity, "inputs", std::string(arity)},
                              {Rule::shape_negative_dim, operand, "every dimension is >= 0"},
                              {Rule::buffer_size, operand, "the buffer holds exactly numel x dtype-size bytes"},
                              {Rule::dtype_unsupported, operand, std::string(dtypes)}};
  v.insert(v.end(), extra.begin(), extra.end());
  return v;
}

std::vector<Precondition> with(std::vector<Precondition> a, const std::vector<Precondition>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Precondition> param_rules(std::string_view name, std::string_view kind) {
  return {{Rule::param_missing, name, std::string(name) + " is given"},
          {Rule::param_type, name, std::string(name) + " is " + std::string(kind)}};
}

}  // namespace kc::contract
