#include "fkc/export.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "fkc/measured.h"

namespace kc::fkc {

using nlohmann::json;

namespace {

// A YAML double-quoted scalar.
std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string dtype_figures(const Measured& m) {
  if (!m.distance) return fmt::format("{} not graded against the oracle", m.dtype);
  std::string s = fmt::format("{} max distance {} ({} ulp), relative {}, absolute {}", m.dtype, figure(*m.distance),
                              figure(m.max_frac_ulp), m.relative ? figure(*m.relative) : "n/a", m.absolute ? figure(*m.absolute) : "n/a");
  if (m.model_kind == "condition-aware bound") s += " (condition-aware contract)";
  return s;
}

// The indentation of a block's keys: that of its first indented line.
std::string key_indent(const Document& d, const Block& b) {
  const std::size_t nl = d.text.find('\n', b.precision_begin);
  if (nl == std::string::npos || nl + 1 >= b.precision_end) return "  ";
  std::size_t i = nl + 1;
  while (i < b.precision_end && (d.text[i] == ' ' || d.text[i] == '\t')) ++i;
  return i > nl + 1 ? d.text.substr(nl + 1, i - nl - 1) : "  ";
}

}  // namespace

std::string measured_block(const Block& b, const json& results, const std::string& in) {
  std::vector<Measured> ms;
  for (auto& m : measured_of(results, b.kernel))
    if (b.dtypes.empty() || std::find(b.dtypes.begin(), b.dtypes.end(), m.dtype) != b.dtypes.end()) ms.push_back(std::move(m));
  if (ms.empty()) return "";
  std::optional<double> dist, rel, abs;
  bool graded_all = true, condition_aware = false;
  std::optional<bool> stable;
  for (const auto& m : ms) {
    condition_aware |= m.model_kind == "condition-aware bound";
    graded_all &= m.distance.has_value();
    if (m.distance) dist = std::max(dist.value_or(0), *m.distance);
    // A dtype without a figure leaves the kernel's figure unknown.
    if (m.relative) rel = std::max(rel.value_or(0), *m.relative);
    if (m.absolute) abs = std::max(abs.value_or(0), *m.absolute);
    if (m.bit_stable) stable = stable.value_or(true) && *m.bit_stable;
  }
  const bool ulp_bound = graded_all && dist && !condition_aware && *dist <= std::numeric_limits<std::uint32_t>::max();
  auto finite = [&](std::optional<double> v) { return graded_all && v && std::isfinite(*v) ? figure(*v) : std::string("~"); };
  std::vector<std::string> dtypes, figures;
  for (const auto& m : ms) {
    dtypes.push_back(m.dtype);
    figures.push_back(dtype_figures(m));
  }
  std::string notes = fmt::format("measured by {}; dtypes {}: {}", run_summary(results), fmt::join(dtypes, ", "), fmt::join(figures, "; "));
  if (!ulp_bound && graded_all && dist && !condition_aware) notes += "; no ulp bound holds (an element has no finite error)";
  if (!graded_all) notes += "; not every dtype was graded against the oracle, so no numeric claim is made";
  if (!stable) notes += "; the run made no determinism check";
  std::string s = "precision:\n";
  s += fmt::format("{}bit_stable_on_same_hardware: {}\n", in, stable ? (*stable ? "true" : "false") : "~");
  s += fmt::format("{}max_ulp: {}\n", in, ulp_bound ? fmt::format("{}", static_cast<std::uint64_t>(*dist)) : "~");
  s += fmt::format("{}max_relative: {}\n", in, ulp_bound ? "~" : finite(rel));
  s += fmt::format("{}max_absolute: {}\n", in, ulp_bound ? "~" : finite(abs));
  s += fmt::format("{}audited: true\n", in);
  s += fmt::format("{}notes: {}\n", in, yaml_quoted(notes));
  return s;
}

Exported export_document(const Document& d, const json& results) {
  Exported out;
  std::size_t at = 0;
  for (const auto& b : d.blocks) {
    const std::string block = measured_block(b, results, key_indent(d, b));
    if (block.empty()) {
      out.not_graded.push_back(b.kernel);
      continue;
    }
    out.text += d.text.substr(at, b.precision_begin - at) + block;
    at = b.precision_end;
    out.replaced.push_back(b.kernel);
  }
  out.text += d.text.substr(at);
  // Never write a file that does not read back as the same contracts: a
  // layout the byte ranges misjudge is refused, not corrupted.
  try {
    const Document back = parse_document(out.text, d.path);
    bool same = back.blocks.size() == d.blocks.size();
    for (std::size_t i = 0; same && i < back.blocks.size(); ++i) same = back.blocks[i].kernel == d.blocks[i].kernel;
    if (!same) throw UsageError("its blocks differ");
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: the precision blocks cannot be replaced without changing the file's other contents "
                                 "(the result would not read back: {})", d.path, e.what()));
  }
  return out;
}

}  // namespace kc::fkc
