#include "checks/check.h"
#include "cli/arguments.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/utf8.h"
#include "engine/conformance.h"

namespace kc::cli {

namespace {

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> items;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    items.push_back(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) return items;
    pos = comma + 1;
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::optional<int> invalid_utf8_argument(int argc, char** argv) {
  for (int i = 0; i < argc; ++i)
    if (invalid_utf8_at(argv[i])) return i;
  return std::nullopt;
}

std::uint64_t parse_seed(const std::string& text, const char* option) {
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (!all_digits(text) || *end || errno == ERANGE)
    throw UsageError(fmt::format("{} '{}' is not a seed: a decimal integer from 0 to 18446744073709551615 is allowed",
                                 option, text));
  return v;
}

std::int64_t parse_case(const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (!all_digits(text) || *end || errno == ERANGE)
    throw UsageError(fmt::format("--case '{}' is not a case index: a decimal integer from 0 is allowed", text));
  return v;
}

std::vector<std::uint64_t> parse_bits(const std::string& text, DType t) {
  std::vector<std::uint64_t> bits;
  const unsigned width = static_cast<unsigned>(dtype_size(t) * 8);
  for (const std::string& item : split(text)) {
    const std::string digits = item.starts_with("0x") || item.starts_with("0X") ? item.substr(2) : item;
    errno = 0;
    char* end = nullptr;
    const unsigned long long b = std::strtoull(digits.c_str(), &end, 16);
    if (digits.empty() || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || *end ||
        errno == ERANGE)
      throw UsageError(fmt::format("--input '{}': '{}' is not a hex bit pattern", text, item));
    if (width < 64 && (b >> width) != 0)
      throw UsageError(fmt::format("--input '{}': {} is wider than {} ({} bits, at most 0x{:x})", text, item,
                                   dtype_name(t), width, (1ull << width) - 1));
    bits.push_back(b);
  }
  return bits;
}

std::vector<int> parse_path(const std::string& text) {
  std::vector<int> v;
  if (text.empty()) return v;
  for (const std::string& item : split(text)) {
    errno = 0;
    char* end = nullptr;
    const long x = std::strtol(item.c_str(), &end, 10);
    if (!all_digits(item) || *end || errno == ERANGE || x > 1000000)
      throw UsageError(fmt::format("--shrink '{}' is not a list of shrink steps (non-negative indices)", text));
    v.push_back(static_cast<int>(x));
  }
  return v;
}

Params parse_params_for(const contract::KernelSpec& k, const std::string& text) {
  const Params p = Params::parse(text);
  std::vector<std::string> takes;
  for (const auto& d : k.params) takes.push_back(fmt::format("{} ({})", d.name, contract::param_kind_name(d.kind)));
  const std::string allowed = takes.empty() ? "none" : fmt::format("{}", fmt::join(takes, ", "));
  for (const auto& [name, value] : p.values()) {
    const contract::Param* d = k.param(name);
    if (!d) throw UsageError(fmt::format("--params: {} has no parameter '{}' (it takes: {})", k.name, name, allowed));
    const bool ok = (d->kind == contract::ParamKind::integer && std::holds_alternative<std::int64_t>(value)) ||
                    (d->kind == contract::ParamKind::real && std::holds_alternative<double>(value)) ||
                    (d->kind == contract::ParamKind::shape && std::holds_alternative<std::vector<std::int64_t>>(value));
    if (!ok)
      throw UsageError(fmt::format("--params: {}'s '{}' is {} (reals end in r, e.g. {}=0.5r; shapes start with s)",
                                   k.name, name, contract::param_kind_name(d->kind) == std::string_view("integer")
                                                     ? "an integer" : "a " + std::string(contract::param_kind_name(d->kind)),
                                   name));
  }
  for (const auto& d : k.params)
    if (!p.has(std::string(d.name)))
      throw UsageError(fmt::format("--params: {} needs '{}' (it takes: {})", k.name, d.name, allowed));
  return p;
}

std::string kernel_names() {
  std::string s;
  for (const auto& k : checks::checked_kernels()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

std::vector<const contract::KernelSpec*> select_kernels(const std::vector<std::string>& names, const std::string& family) {
  std::vector<const contract::KernelSpec*> out;
  const auto& table = checks::checked_kernels();
  if (!family.empty()) {
    bool known = false;
    for (const auto& k : table) known |= k.family == family;
    if (!known) throw UsageError(fmt::format("unknown family '{}'", family));
  }
  if (names.empty()) {
    for (const auto& k : table)
      if (family.empty() || k.family == family) out.push_back(&k);
    return out;
  }
  for (const auto& n : names) {
    const contract::KernelSpec* k = contract::find_kernel(n);
    if (!k) throw UsageError(fmt::format("unknown kernel '{}'; known kernels: {}", n, kernel_names()));
    out.push_back(k);
  }
  return out;
}

std::vector<DType> parse_dtypes(const std::vector<std::string>& names) {
  std::vector<DType> v;
  for (const auto& n : names) {
    auto t = parse_dtype(n);
    if (!t) throw UsageError(fmt::format("unknown dtype '{}' (f32, f64, bf16, f16, u32, u8)", n));
    v.push_back(*t);
  }
  return v;
}

}  // namespace kc::cli
