// The driver table and the helpers drivers share to check an entry.
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "drivers/driver.h"

namespace kc::drivers {

namespace {
const Registry& table() {
  static const Registry r = [] {
    Registry v;
    register_all(v);
    return v;
  }();
  return r;
}
}  // namespace

gen::Case Driver::sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int index) const {
  throw std::logic_error(fmt::format("driver '{}' has no sweep {} for {} {}", name(), index, k.name, dtype_name(t)));
}

std::string Element::where_text() const {
  if (!where_pattern) return where;
  return fmt::format(fmt::runtime(where_pattern), where_at[0], where_at[1], where_at[2], where_at[3]);
}

void Driver::each_element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t n,
                             const std::function<void(const Element&)>& f) const {
  Element e;
  for (std::int64_t o = 0; o < n; ++o) {
    element_at(k, c, o, e);
    f(e);
  }
}

oracle::Context context_of(const contract::KernelSpec& k, const gen::Case& c) {
  const DType t = c.inputs.at(0).dtype();
  return {.dtype = t, .out_dtype = k.out_dtype(t), .params = &c.params};
}

Expectation like_first_input(const contract::KernelSpec& k, const gen::Case& c) {
  return {c.inputs.at(0).dims(), k.out_dtype(c.inputs.at(0).dtype())};
}

Expectation entry_outputs(const contract::KernelSpec& k, DType t, std::vector<Dims> dims) {
  std::vector<Expectation::Part> parts;
  for (std::size_t i = 0; i < k.outputs.size(); ++i)
    parts.push_back({std::string(k.outputs[i].name), std::move(dims.at(i)), k.out_dtype(t, i)});
  return Expectation(std::move(parts));
}

std::int64_t Expectation::numel() const {
  std::int64_t n = 0;
  for (const Part& p : parts) n += checked_numel(p.dims);
  return n;
}

Expectation::At Expectation::locate_in_parts(std::int64_t out) const {
  std::size_t i = 0;
  for (; i + 1 < parts.size(); ++i) {
    const std::int64_t n = checked_numel(parts[i].dims);
    if (out < n) break;
    out -= n;
  }
  return {i, out};
}

const Driver* find(std::string_view name) {
  for (const auto& d : table())
    if (d->name() == name) return d.get();
  return nullptr;
}

const Driver& of(const contract::KernelSpec& k) {
  if (const Driver* d = find(k.driver)) return *d;
  throw std::logic_error(fmt::format("kernel '{}' names driver '{}', which does not exist (drivers: {})", k.name,
                                     k.driver, fmt::join(names(), ", ")));
}

std::vector<std::string_view> names() {
  std::vector<std::string_view> v;
  for (const auto& d : table()) v.push_back(d->name());
  return v;
}

std::string expects_inputs(const contract::KernelSpec& k, std::size_t n) {
  if (k.inputs.size() == n) return {};
  return fmt::format("the driver takes {} input operand(s), the entry declares {}", n, k.inputs.size());
}

std::string expects_param(const contract::KernelSpec& k, std::string_view name, contract::ParamKind kind) {
  const contract::Param* p = k.param(name);
  if (p && p->kind == kind) return {};
  return fmt::format("the driver needs a parameter '{}' of kind {}", name, contract::param_kind_name(kind));
}

}  // namespace kc::drivers
