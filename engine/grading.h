// Grading one output element against the oracle under its contract's
// accuracy model (accuracy.md's two metrics, its special-value rules, and
// the condition-aware normalisation). The oracle is reached through the
// entry's driver, which builds the oracle's typed input from the element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "drivers/driver.h"
#include "engine/context.h"

namespace kc::engine {

struct Grade {
  bool pass = true;
  bool special = false;     // decided by a contract special-value rule
  bool replayed = false;    // graded against a replay of the reference
  bool overflow = false;    // RN_T(z) is infinite for a finite input
  int escalations = 0;      // Ziv re-evaluations
  unsigned precision = 0;   // working bits of the evaluation that decided the grade
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
  std::string why;          // why it failed, in words (only on failure)
  // The semantics check (where the oracle replays the reference's steps):
  // nullopt when there is no replay; else whether y has the replay's bits.
  std::optional<bool> semantics_ok;
  double replay = 0;
  // The oracle's expected mean square of the rounding error, where it states one.
  std::optional<double> error_variance;
};

// y: the kernel's output value (of k.out_dtype(t)) at the element.
Grade grade_element(const Context& c, const drivers::Element& e, double y, const Params& params);

// The exact value the grade was decided against, in decimal (25 significant
// digits; "NaN", "inf", the outcome of a special-value rule), re-evaluated
// at the grade's precision: only failures and worst cases are shown, so the
// grading loop never formats it.
std::string exact_text(const Context& c, const drivers::Element& e, const Params& params, const Grade& g);

// Names of special rules, "NaN->+0", as check names use them.
std::string special_rule_name(const contract::SpecialRule& r);

}  // namespace kc::engine
