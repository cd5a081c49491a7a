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

// How an element failed its accuracy (or special-value) check: each way is
// counted apart and has its own figure (engine/tally.cpp, findings).
enum class Failure : std::uint8_t {
  none,
  special_rule,           // a contract special-value rule broken
  nan_result,             // NaN where the exact result is a number
  missing_nan,            // a number where the exact result is NaN
  missed_overflow,        // finite (or the other infinity) where RN_T(z) overflows
  spurious_inf,           // an infinity where RN_T(z) is finite
  zero_sign,              // a zero of the wrong sign
  not_exact,              // error above 0 where the result is exact
  not_correctly_rounded,  // distance above 0 where one rounding is the contract
  frac_bound,             // fractional error above the bound
  distance_bound,         // integer distance above the bound
  normalized_bound,       // condition-aware: normalized error above 1
  replay_mismatch,        // not the bits of the reference's replayed steps (graded as exact there)
  wrong_integer,          // an integer result that is not the exact one
};
inline constexpr int kFailureKinds = 14;
std::string_view failure_name(Failure f);  // "spurious_inf", ...: results JSON findings[].failure

struct Grade {
  bool pass = true;
  Failure failure = Failure::none;
  bool special = false;     // decided by a contract special-value rule
  bool replayed = false;    // graded against a replay of the reference
  bool overflow = false;    // RN_T(z) is infinite for a finite input
  int escalations = 0;      // Ziv re-evaluations
  unsigned precision = 0;   // working bits of the evaluation that decided the grade
  std::string rule;         // special rule name, "NaN->+0"
  double frac = 0;          // fractional ulp error (inf on a special mismatch)
  double abs_err = NAN, rel_err = NAN;  // |y - z| and |y - z| / |z| (finite y and z; rel: z != 0)
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
  // Passed only as another correct implementation would, not as the
  // reference does (a SpecialRule's `also`, an Exact alternative, another
  // evaluation order): the choice, in words. The reference profile fails it.
  std::string reference_choice;
  // The semantics check (the entry's native replay of the reference's
  // steps, oracles/replay.h): nullopt when the entry has none; else whether
  // y has the replay's bits.
  std::optional<bool> semantics_ok;
  double replay = 0;
  std::uint64_t replay_bits = 0;
  // The oracle's expected mean square of the rounding error, where it states one.
  std::optional<double> error_variance;
  // Decided by the oracle's fast path (oracles/fast.h): the figures are
  // within these of the exact ones (fractional ulp, absolute error); 0 for
  // an MPFR grade. The verdict, the distance and RN_T(z) are exact either way.
  double uncertainty = 0, abs_uncertainty = 0, rel_uncertainty = 0;
  bool approximate = false;
};

// y: the kernel's output value (of k.out_dtype(t)) at the element, y_bits
// its bit pattern.
// Whether a fractional error known to within +-delta could fall in another
// bin of the fractional-ulp histogram (engine/tally.cpp; then the fast path
// defers to MPFR).
bool near_histogram_edge(double frac, double delta);

// exact_only: never the fast path (an element whose figures a report shows).
Grade grade_element(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits, const Params& params,
                    bool exact_only = false);


// The exact value the grade was decided against, in decimal (25 significant
// digits; "NaN", "inf", the outcome of a special-value rule), re-evaluated
// at the grade's precision: only failures and worst cases are shown, so the
// grading loop never formats it.
std::string exact_text(const Context& c, const drivers::Element& e, const Params& params, const Grade& g);

// Names of special rules, "NaN->+0", as check names use them.
std::string special_rule_name(const contract::SpecialRule& r);

}  // namespace kc::engine
