// Grading one element against the oracle under a contract's accuracy model
// (accuracy.md's two metrics, its special-value rules, and the
// condition-aware normalisation). Internal to engine/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "contracts/contract.h"
#include "core/params.h"

namespace kc::engine {

struct Grade {
  bool pass = true;
  bool special = false;     // decided by a contract special-value rule
  bool replayed = false;    // graded against a replay of the reference
  bool overflow = false;    // RN_T(z) is infinite for a finite input
  int escalations = 0;      // Ziv re-evaluations
  std::string rule;         // special rule name, "NaN->+0"
  double frac = 0;          // fractional ulp error (inf on a special mismatch)
  double signed_frac = 0;
  std::int64_t distance = 0;  // -1 if not applicable (NaN, infinities)
  std::optional<double> normalized;  // condition-aware: |y - z| / bound
  double signed_normalized = 0;      // signed ulp error for the bias statistic (when bias_sample)
  bool bias_sample = false;
  std::optional<double> signed_ratio;  // condition-aware: (y - z) / bound
  double bound_abs = 0;                // condition-aware: the bound itself
  double bound = 0;         // fractional ulp bound (or 1 for normalized)
  double rn = 0;            // RN_T(z)
  std::string exact;        // z in decimal
  std::string why;          // why it failed, in words
  // The semantics check (where the oracle replays the reference's steps):
  // nullopt when there is no replay; else whether y has the replay's bits.
  std::optional<bool> semantics_ok;
  double replay = 0;
};

// args: the exact inputs the element depends on (x; a, b; a reduced slice),
// of the kernel's dtype t; y: the kernel's output value, of k.out_dtype(t).
Grade grade_element(const contract::KernelSpec& k, DType t, std::span<const double> args, double y,
                    const Params& params, bool signaling_nan = false);
inline Grade grade_element(const contract::KernelSpec& k, DType t, double x, double y, const Params& params) {
  return grade_element(k, t, std::span<const double>(&x, 1), y, params);
}

// Names of special rules, "NaN->+0", as check names use them.
std::string special_rule_name(const contract::SpecialRule& r);

}  // namespace kc::engine
