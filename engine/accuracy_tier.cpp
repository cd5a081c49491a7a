#include "engine/accuracy_tier.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "engine/builtin_tiers.h"
#include "engine/conformance.h"

namespace kc::engine {

const contract::Accuracy* AccuracyTier::find(std::string_view kernel, DType t) const {
  const auto it = bounds.find({std::string(kernel), t});
  return it == bounds.end() ? nullptr : &it->second;
}

namespace {

// A bound in one of the project's metrics: frac_ulp B (fractional ulps of
// the exact value), distance N (integer distance from the correctly
// rounded value; fractional ulps then at most N + 1/2), correctly_rounded,
// exact. nullopt for another metric.
std::optional<contract::Accuracy> bound_of(std::string_view metric, double value) {
  using contract::AccuracyKind;
  if (metric == "correctly_rounded") return contract::Accuracy{.kind = AccuracyKind::correctly_rounded};
  if (metric == "exact") return contract::Accuracy{.kind = AccuracyKind::exact};
  if (!(value >= 0) || !std::isfinite(value)) return std::nullopt;
  if (metric == "frac_ulp") return contract::Accuracy{.kind = AccuracyKind::ulp_bound, .max_frac_ulp = value};
  if (metric == "distance" && value == std::floor(value) && value <= 0x1p62)
    return contract::Accuracy{.kind = AccuracyKind::ulp_bound, .max_frac_ulp = value + 0.5,
                              .max_distance = static_cast<std::int64_t>(value)};
  return std::nullopt;
}

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

}  // namespace

AccuracyTier parse_tier(std::string_view text, std::string_view file) {
  AccuracyTier tier;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    const auto fail = [&](const std::string& why) {
      return UsageError(fmt::format("tier file {}, line {}: {}", file, no, why));
    };
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.starts_with("name:") || line.starts_with("source:")) {
      const bool is_name = line.starts_with("name:");
      (is_name ? tier.name : tier.source) = trim(std::string_view(line).substr(is_name ? 5 : 7));
      continue;
    }
    std::istringstream words(line);
    std::string kernel, dtype, metric, value, extra;
    words >> kernel >> dtype >> metric;
    const bool has_value = metric != "correctly_rounded" && metric != "exact";
    if (has_value) words >> value;
    if (metric.empty() || (has_value && value.empty()) || (words >> extra))
      throw fail(fmt::format("'{}' is not 'KERNEL DTYPE METRIC [BOUND]' (metrics: frac_ulp B, distance N, "
                             "correctly_rounded, exact)", line));
    const contract::KernelSpec* k = contract::find_kernel(kernel);
    if (!k) throw fail(fmt::format("unknown kernel '{}' (kconform list)", kernel));
    const std::optional<DType> t = parse_dtype(dtype);
    if (!t || !k->accuracy_for(*t))
      throw fail(fmt::format("kernel '{}' does not take '{}' (its contract lists {})", kernel, dtype, k->dtypes().to_string()));
    double v = 0;
    if (has_value) {
      char* end = nullptr;
      v = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0') throw fail(fmt::format("bound '{}' is not a number", value));
    }
    const std::optional<contract::Accuracy> a = bound_of(metric, v);
    if (!a) throw fail(fmt::format("'{} {}' is not a bound (frac_ulp >= 0, distance a whole number from 0 to 2^62)", metric, value));
    if (!tier.bounds.emplace(std::pair{kernel, *t}, *a).second) throw fail(fmt::format("{} {} listed twice", kernel, dtype));
  }
  if (tier.name.empty()) throw UsageError(fmt::format("tier file {}: no 'name:' line", file));
  if (tier.source.empty()) throw UsageError(fmt::format("tier file {}: no 'source:' line", file));
  if (tier.bounds.empty()) throw UsageError(fmt::format("tier file {}: no bound", file));
  return tier;
}

const contract::Accuracy* graded_accuracy(const RunOptions& opts, const contract::KernelSpec& k, DType t) {
  if (const contract::Accuracy* a = opts.tier ? opts.tier->find(k.name, t) : nullptr) return a;
  return k.accuracy_for(t);
}

bool tier_covers(const RunOptions& opts, const contract::KernelSpec& k, DType t) {
  return opts.tier && opts.tier->find(k.name, t);
}

std::vector<std::string> builtin_tier_names() {
  std::vector<std::string> v;
  for (const BuiltinText& b : builtin_tiers()) v.emplace_back(b.name);
  return v;
}

std::optional<AccuracyTier> load_tier(std::string_view what, const Backend& backend,
                                      const std::vector<const contract::KernelSpec*>& kernels) {
  if (what == "reference") return std::nullopt;
  if (what == "claimed") {
    AccuracyTier tier{.name = "claimed", .source = fmt::format("the accuracy claims {} declares", backend.name())};
    for (const contract::KernelSpec* k : kernels)
      for (const auto& a : k->accuracy) {
        const Backend::Declared d = backend.declared(k->name, a.dtype);
        if (const auto b = bound_of(d.claim_metric, d.claim_bound)) tier.bounds.emplace(std::pair{k->name, a.dtype}, *b);
      }
    return tier;
  }
  for (const BuiltinText& b : builtin_tiers())
    if (what == b.name) return parse_tier(b.text, fmt::format("{} (built in)", b.name));
  std::ifstream f{std::string(what)};
  if (!f)
    throw UsageError(fmt::format("--accuracy {}: not 'reference', 'claimed', a built-in tier ({}) or a readable tier file",
                                 what, fmt::join(builtin_tier_names(), ", ")));
  std::stringstream text;
  text << f.rdbuf();
  return parse_tier(text.str(), what);
}

}  // namespace kc::engine
