// Scalar parameters of a kernel call (powi's exponent, clamp's bounds...).
// The reference passes them as i32/f64 (inventory, "Scalar passed as f64");
// values are kept in those carrier types and converted by each kernel.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kc {

// Integers (i32/usize parameters), reals (f64 parameters) and shapes
// (broadcast_to's and reduce_*_to's target).
using ParamValue = std::variant<std::int64_t, double, std::vector<std::int64_t>>;

class Params {
 public:
  Params& set(const std::string& name, ParamValue v) {
    values_[name] = v;
    return *this;
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const ParamValue* find(const std::string& name) const {
    auto it = values_.find(name);
    return it == values_.end() ? nullptr : &it->second;
  }
  // Typed reads of a parameter a contract declares (the engine has checked
  // its presence and kind before any oracle reads it); throw
  // std::invalid_argument naming the parameter otherwise.
  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  const std::vector<std::int64_t>& shape(const std::string& name) const;
  const std::map<std::string, ParamValue>& values() const { return values_; }
  bool empty() const { return values_.empty(); }
  // "n=3" / "min=-1.5r,max=2r" / "target=s2.1.3" (reals end in r, shapes
  // start with s and join dims with '.'; a rank-0 shape is "s").
  std::string to_string() const;
  // Inverse of to_string; throws UsageError on malformed text, a name
  // given twice, or a number beyond its type's range.
  static Params parse(const std::string& text);

 private:
  std::map<std::string, ParamValue> values_;
};

}  // namespace kc
