#include "core/params.h"

#include <cstdlib>

#include <fmt/format.h>

#include "core/error.h"

namespace kc {

std::string Params::to_string() const {
  std::string s;
  for (const auto& [k, v] : values_) {
    if (!s.empty()) s += ',';
    if (const auto* i = std::get_if<std::int64_t>(&v))
      s += fmt::format("{}={}", k, *i);
    else
      s += fmt::format("{}={}r", k, std::get<double>(v));  // trailing r marks a real
  }
  return s;
}

Params Params::parse(const std::string& text) {
  Params p;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? text.size() : comma + 1;
    std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("parameter '" + item + "' is not of the form name=value");
    std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (value.empty()) throw UsageError("parameter '" + name + "' has no value");
    char* end = nullptr;
    if (value.back() == 'r') {
      value.pop_back();
      double d = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end) throw UsageError("parameter '" + name + "': not a real: " + value);
      p.set(name, d);
    } else {
      long long i = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end) throw UsageError("parameter '" + name + "': not an integer: " + value);
      p.set(name, static_cast<std::int64_t>(i));
    }
  }
  return p;
}

}  // namespace kc
