#include "oracles/oracle.h"

#include <boost/core/demangle.hpp>

namespace kc::oracle {

std::string type_name(const std::type_info& pointer_to_input) {
  std::string s = boost::core::demangle(pointer_to_input.name());
  if (!s.empty() && s.back() == '*') s.pop_back();  // typeid(In*) -> "In"
  return s;
}

std::string OracleRef::input_name() const { return input_ ? type_name(*input_) : "(no oracle)"; }

}  // namespace kc::oracle
