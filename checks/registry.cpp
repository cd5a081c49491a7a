// The check table a run is handed, the checked contract table, and the
// helpers of the relational checks.
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/linalg.h"

namespace kc::checks {

const Registry& registry() {
  static const Registry r = [] {
    Registry v;
    register_all(v);
    return v;
  }();
  return r;
}

const std::vector<contract::KernelSpec>& checked_kernels() {
  static const std::vector<contract::KernelSpec>& table = []() -> const std::vector<contract::KernelSpec>& {
    const auto& t = contract::all_kernels();
    const auto problems = engine::check_table(t, registry());
    if (!problems.empty())
      throw std::logic_error(fmt::format("the contract table is inconsistent:\n  {}", fmt::join(problems, "\n  ")));
    return t;
  }();
  return table;
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

}  // namespace kc::checks
