#include "generators/problems.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "generators/builtin_problems.h"

namespace kc::gen {

std::string Problem::where() const {
  std::string w = label.empty() ? fmt::format("{}:{}", file, line) : fmt::format("{}:{} ({})", file, line, label);
  for (const std::string& a : also) w += "; also " + a;
  return w;
}

bool Problem::applies_to(DType t) const {
  return dtypes.empty() || std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}

namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::int64_t size_of(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE || v < 0)
    throw UsageError(fmt::format("{}: '{}' is not a size (a whole number >= 0)", what, text));
  return v;
}

// "4096x11008" -> {4096, 11008}; "scalar" -> {} (rank 0).
Dims dims_of(const std::string& text, const std::string& what) {
  if (text == "scalar") return {};
  Dims d;
  std::size_t at = 0;
  while (true) {
    const std::size_t x = text.find('x', at);
    d.push_back(size_of(text.substr(at, x == std::string::npos ? std::string::npos : x - at), what));
    if (x == std::string::npos) return d;
    at = x + 1;
  }
}

ParamValue param_value(const contract::Param& p, const std::string& text) {
  const std::string what = fmt::format("parameter '{}'", p.name);
  if (p.kind == contract::ParamKind::shape) return dims_of(text, what);
  errno = 0;
  char* end = nullptr;
  if (p.kind == contract::ParamKind::real) {
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || (errno == ERANGE && std::isinf(v)))
      throw UsageError(fmt::format("{}: '{}' is not a real number", what, text));
    return v;
  }
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end || errno == ERANGE) throw UsageError(fmt::format("{}: '{}' is not an integer", what, text));
  if (v < p.min || v > p.max)
    throw UsageError(fmt::format("{}: {} is outside its domain ({})", what, v, p.domain));
  return static_cast<std::int64_t>(v);
}

std::vector<DType> dtypes_of(const contract::KernelSpec& k, const std::string& text) {
  std::vector<DType> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    const std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto t = parse_dtype(name);
    if (!t) throw UsageError(fmt::format("dtype '{}' is not a dtype", name));
    if (!k.accuracy_for(*t)) throw UsageError(fmt::format("kernel '{}' is not graded in {}", k.name, name));
    out.push_back(*t);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

// One NAME=VALUE word of a problem: an operand's shape, a parameter, the dtypes.
void assign(const contract::KernelSpec& k, Problem& p, const std::string& word) {
  const std::size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == word.size())
    throw UsageError(fmt::format("'{}' is not NAME=VALUE", word));
  const std::string name = word.substr(0, eq), value = word.substr(eq + 1);
  if (name == "dtype") {
    if (!p.dtypes.empty()) throw UsageError("dtype is given twice");
    p.dtypes = dtypes_of(k, value);
    return;
  }
  for (std::size_t i = 0; i < k.inputs.size(); ++i) {
    const contract::Operand& o = k.inputs[i];
    if (o.name != name) continue;
    if (p.given[i]) throw UsageError(fmt::format("operand '{}' is given twice", name));
    p.dims[i] = dims_of(value, fmt::format("operand '{}'", name));
    const auto rank = static_cast<int>(p.dims[i].size());
    if (rank < o.min_rank || rank > o.max_rank)
      throw UsageError(fmt::format("operand '{}' of {} has rank {}; {} takes rank {} to {}", name, k.name, rank, k.name,
                                   o.min_rank, o.max_rank));
    p.given[i] = true;
    return;
  }
  for (const contract::Param& q : k.params) {
    if (q.name != name) continue;
    if (p.params.has(name)) throw UsageError(fmt::format("parameter '{}' is given twice", name));
    p.params.set(name, param_value(q, value));
    return;
  }
  std::string known;
  for (const auto& o : k.inputs) known += fmt::format("{}{}", known.empty() ? "" : ", ", o.name);
  for (const auto& q : k.params) known += fmt::format(", {}", q.name);
  throw UsageError(fmt::format("'{}' is not an operand or parameter of {} (it takes {}, dtype)", name, k.name, known));
}

Problem problem_of(std::string_view text, const std::string& file, int line) {
  Problem p{.file = file, .line = line, .text = std::string(text)};
  std::vector<std::string> w = words(text);
  std::size_t at = 0;
  if (!w.empty() && w[0].size() > 1 && w[0].back() == ':') p.label = w[at++].substr(0, w[0].size() - 1);
  if (at == w.size()) throw UsageError("a label and no kernel");
  p.kernel = w[at++];
  const contract::KernelSpec* k = contract::find_kernel(p.kernel);
  if (!k) throw UsageError(fmt::format("'{}' is not a kernel (kconform list names them)", p.kernel));
  p.dims.assign(k->inputs.size(), {});
  p.given.assign(k->inputs.size(), false);
  for (; at < w.size(); ++at) assign(*k, p, w[at]);
  for (std::size_t i = 0; i < k->inputs.size(); ++i)
    if (!p.given[i] && !k->inputs[i].optional)
      throw UsageError(fmt::format("operand '{}' of {} is not given (write {}=DIMS)", k->inputs[i].name, k->name,
                                   k->inputs[i].name));
  return p;
}

}  // namespace

std::vector<Problem> parse_problems(std::string_view text, const std::string& file) {
  std::vector<Problem> out;
  int line = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    std::string_view l = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line;
    l = l.substr(0, l.find('#'));
    if (words(l).empty()) continue;
    try {
      out.push_back(problem_of(l, file, line));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}:{}: {}", file, line, e.what()));
    }
  }
  return out;
}

std::vector<Problem> read_problems(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("--shapes: cannot read the problem file '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  std::vector<Problem> out = parse_problems(text.str(), path);
  if (out.empty()) throw UsageError(fmt::format("{}: no problem line in the file", path));
  return out;
}

const std::vector<std::int64_t>& tail_sizes() {
  static const std::vector<std::int64_t> sizes = [] {
    std::vector<std::int64_t> v;
    for (int k = 1; k <= 13; ++k)
      for (std::int64_t n : {(std::int64_t{1} << k) - 1, std::int64_t{1} << k, (std::int64_t{1} << k) + 1})
        if (v.empty() || n > v.back()) v.push_back(n);
    return v;
  }();
  return sizes;
}

ShapeSelection shape_selection(const std::string& value) {
  ShapeSelection s;
  s.name = value;
  if (value == "tiny") return s;
  if (value == "tails") {
    s.tails = true;
    return s;
  }
  const bool all = value == "all";
  if (value == "production" || all) {
    s.random = all;
    s.tails = all;
    // A problem two files share (LLaMA-2's and Mistral's q projection) is
    // graded once, the kept line naming the other.
    std::map<std::string, std::size_t> seen;
    for (const BuiltinText& f : builtin_problems())
      for (Problem& p : parse_problems(f.text, std::string(f.name) + ".problems")) {
        std::string key = p.kernel + ' ' + p.params.to_string();
        for (std::size_t i = 0; i < p.dims.size(); ++i) key += ' ' + (p.given[i] ? dims_to_string(p.dims[i]) : "-");
        for (DType t : p.dtypes) key += ' ' + std::string(dtype_name(t));
        if (const auto at = seen.find(key); at != seen.end()) {
          s.problems[at->second].also.push_back(p.where());
          continue;
        }
        seen.emplace(std::move(key), s.problems.size());
        s.problems.push_back(std::move(p));
      }
    return s;
  }
  for (const BuiltinText& f : builtin_problems())
    if (f.name == value) {
      s.random = false;
      s.problems = parse_problems(f.text, value + ".problems");
      return s;
    }
  s.tails = true;
  s.problems = read_problems(value);
  return s;
}

}  // namespace kc::gen
