#include "core/params.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace kc {

namespace {
template <class T>
const T& typed(const Params& p, const std::string& name, const char* kind) {
  const ParamValue* v = p.find(name);
  if (!v) throw std::invalid_argument("parameter '" + name + "' is not given");
  const T* t = std::get_if<T>(v);
  if (!t) throw std::invalid_argument("parameter '" + name + "' is not " + kind);
  return *t;
}
}  // namespace

std::int64_t Params::integer(const std::string& name) const { return typed<std::int64_t>(*this, name, "an integer"); }
double Params::real(const std::string& name) const { return typed<double>(*this, name, "a real"); }
const std::vector<std::int64_t>& Params::shape(const std::string& name) const {
  return typed<std::vector<std::int64_t>>(*this, name, "a shape");
}

std::string Params::to_string() const {
  std::string s;
  for (const auto& [k, v] : values_) {
    if (!s.empty()) s += ',';
    if (const auto* i = std::get_if<std::int64_t>(&v))
      s += fmt::format("{}={}", k, *i);
    else if (const auto* d = std::get_if<double>(&v))
      s += fmt::format("{}={}r", k, *d);  // trailing r marks a real
    else
      s += fmt::format("{}=s{}", k, fmt::join(std::get<std::vector<std::int64_t>>(v), "."));
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
    if (p.has(name)) throw UsageError("parameter '" + name + "' is given twice");
    char* end = nullptr;
    errno = 0;
    if (value.front() == 's') {
      std::vector<std::int64_t> dims;
      std::size_t q = 1;
      while (q < value.size()) {
        std::size_t dot = value.find('.', q);
        std::string d = value.substr(q, dot == std::string::npos ? std::string::npos : dot - q);
        long long x = std::strtoll(d.c_str(), &end, 10);
        if (d.empty() || *end || errno == ERANGE) throw UsageError("parameter '" + name + "': not a shape: " + value);
        dims.push_back(x);
        q = dot == std::string::npos ? value.size() : dot + 1;
      }
      p.set(name, dims);
    } else if (value.back() == 'r') {
      value.pop_back();
      double d = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end) throw UsageError("parameter '" + name + "': not a real: " + value);
      // An overflow is not an infinity the user asked for (write "inf" for that).
      if (errno == ERANGE && std::isinf(d))
        throw UsageError("parameter '" + name + "': " + value + " is beyond the range of f64 (write infr for infinity)");
      p.set(name, d);
    } else {
      long long i = std::strtoll(value.c_str(), &end, 10);
      if (end == value.c_str() || *end) throw UsageError("parameter '" + name + "': not an integer: " + value);
      if (errno == ERANGE) throw UsageError("parameter '" + name + "': " + value + " does not fit in 64 bits");
      p.set(name, static_cast<std::int64_t>(i));
    }
  }
  return p;
}

}  // namespace kc
