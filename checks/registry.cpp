// The check table and the checks of one run.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/linalg.h"

namespace kc::checks {

const Registry& kinds() {
  static const Registry r = [] {
    Registry v;
    register_all(v);
    return v;
  }();
  return r;
}

const Kind* find(std::string_view name) {
  for (const Kind& k : kinds())
    if (k.name == name) return &k;
  return nullptr;
}

std::vector<std::unique_ptr<Check>> for_run(const contract::KernelSpec& k, DType t, std::optional<std::string_view> only) {
  std::vector<std::unique_ptr<Check>> v;
  for (const Kind& kind : kinds())
    if (!kind.per_property && kind.applies(k, t) && (!only || kind.name == *only)) v.push_back(kind.make(nullptr));
  if (only) return v;
  for (const auto& p : k.properties)
    if (const Kind* kind = find(p.check); kind && kind->per_property) v.push_back(kind->make(&p));
  return v;
}

bool same_bits_or_nan(const Tensor& a, std::int64_t i, const Tensor& b, std::int64_t j) {
  const double av = a.value_at(i), bv = b.value_at(j);
  return (std::isnan(av) && std::isnan(bv)) || a.bits_at(i) == b.bits_at(j);
}

std::string agrees_as_dot(const CaseView& v, const Tensor& g, std::string_view composed,
                          const std::function<void(std::int64_t, std::vector<double>&)>& pairs_of) {
  const bool bits = v.c.opts.profile == engine::Profile::reference;
  std::vector<double> pairs;
  for (std::int64_t o = 0; o < v.y.numel(); ++o) {
    const double f = v.y.value_at(o), h = g.value_at(o);
    if (bits) {
      if (!same_bits_or_nan(v.y, o, g, o))
        return fmt::format("output {}: {} gives {}, {} gives {}: not the same bits", o, v.c.k.name, engine::fmt_value(f),
                           composed, engine::fmt_value(h));
      continue;
    }
    pairs.clear();
    pairs_of(o, pairs);
    bool finite = std::isfinite(f) && std::isfinite(h);
    for (double x : pairs) finite &= std::isfinite(x);
    if (!finite) continue;
    const double bound = 2 * oracle::dot_bound_upper(v.c.t, pairs);
    if (!(std::fabs(f - h) <= bound))  // (the difference of two T values is exact in double, or far beyond any bound)
      return fmt::format("output {}: {} gives {}, {} gives {}, {} apart (bound {})", o, v.c.k.name, engine::fmt_value(f),
                         composed, engine::fmt_value(h), engine::fmt_value(std::fabs(f - h)), engine::fmt_value(bound));
  }
  return "";
}

std::vector<std::string> validate_properties(const contract::KernelSpec& k) {
  std::vector<std::string> problems;
  for (const auto& p : k.properties) {
    const Kind* kind = find(p.check);
    if (!kind || !kind->per_property) {
      problems.push_back(fmt::format("kernel '{}': property '{}' names check '{}', which is not a property check",
                                     k.name, p.name, p.check));
      continue;
    }
    if (kind->validate)
      if (std::string why = kind->validate(k, p); !why.empty())
        problems.push_back(fmt::format("kernel '{}': property '{}' ({}): {}", k.name, p.name, p.check, why));
  }
  return problems;
}

}  // namespace kc::checks
