// The mutant table.
#include <algorithm>

#include "backends/mutants/mutants.h"

namespace kc::mutants {

bool Mutant::breaks(std::string_view kernel) const {
  return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

const std::vector<Mutant>& all() {
  static const std::vector<Mutant> table = [] {
    std::vector<Mutant> v;
    register_all(v);
    return v;
  }();
  return table;
}

const Mutant* find(std::string_view name) {
  for (const auto& m : all())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace kc::mutants
