// Grading one output element against the oracle under its contract's
// accuracy model (accuracy.md's two metrics, its special-value rules, and
// the condition-aware normalisation). The oracle is reached through the
// entry's driver, which builds the oracle's typed input from the element.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "core/vocabulary.h"
#include "drivers/driver.h"
#include "engine/context.h"
#include "oracles/fast.h"

namespace kc::engine {

// How an element failed its accuracy (or special-value) check: each way is
// counted apart and has its own figure (engine/tally.cpp, findings).
#define KC_FAILURES(X)                                                         \
  X(none, "none")                                                              \
  /* a contract special-value rule broken */                                   \
  X(special_rule, "special_rule")                                              \
  /* NaN where the exact result is a number */                                 \
  X(nan_result, "nan_result")                                                  \
  /* a number where the exact result is NaN */                                 \
  X(missing_nan, "missing_nan")                                                \
  /* finite (or the other infinity) where RN_T(z) overflows */                 \
  X(missed_overflow, "missed_overflow")                                        \
  /* an infinity where RN_T(z) is finite */                                    \
  X(spurious_inf, "spurious_inf")                                              \
  /* a zero of the wrong sign */                                               \
  X(zero_sign, "zero_sign")                                                    \
  /* error above 0 where the result is exact */                                \
  X(not_exact, "not_exact")                                                    \
  /* distance above 0 where one rounding is the contract */                    \
  X(not_correctly_rounded, "not_correctly_rounded")                            \
  /* fractional error above the bound */                                       \
  X(frac_bound, "frac_bound")                                                  \
  /* integer distance above the bound */                                       \
  X(distance_bound, "distance_bound")                                          \
  /* condition-aware: normalized error above 1 */                              \
  X(normalized_bound, "normalized_bound")                                      \
  /* not the bits of the reference's replayed steps (graded as exact there) */ \
  X(replay_mismatch, "replay_mismatch")                                        \
  /* an integer result that is not the exact one */                            \
  X(wrong_integer, "wrong_integer")
KC_VOCABULARY(Failure, std::uint8_t, kFailures, KC_FAILURES);
inline constexpr int kFailureKinds = static_cast<int>(kFailures.size());
inline std::string_view failure_name(Failure f) { return kFailures.name(f); }  // "spurious_inf", ...: results JSON findings[].failure

// The figures of a grade: everything the statistics read (plain data,
// cheap to copy). A fast-path element that passes is graded and tallied
// from these alone (engine/case_run.cpp); the words of a Grade are only
// built where the element is shown.
struct Figures {
  bool pass = true;
  Failure failure = Failure::none;
  bool special = false;     // decided by a contract special-value rule
  bool replayed = false;    // graded against a replay of the reference
  // ... where no finite bound exists (oracle::Exact::unbounded): the
  // reference profile's check only (engine/case_run.cpp)
  bool unbounded = false;
  bool overflow = false;    // RN_T(z) is infinite for a finite input
  bool bias_sample = false;
  // Decided by the oracle's fast path (oracles/fast.h): the figures are
  // within the uncertainties below of the exact ones (fractional ulp,
  // absolute, relative error); 0 for an MPFR grade. The verdict, the
  // distance and RN_T(z) are exact either way.
  bool approximate = false;
  int escalations = 0;      // Ziv re-evaluations
  unsigned precision = 0;   // working bits of the evaluation that decided the grade
  double frac = 0;          // fractional ulp error (inf on a special mismatch)
  double abs_err = NAN, rel_err = NAN;  // |y - z| and |y - z| / |z| (finite y and z; rel: z != 0)
  double signed_frac = 0;
  std::int64_t distance = 0;  // -1 if not applicable (NaN, infinities)
  std::optional<double> normalized;  // condition-aware: |y - z| / bound
  double signed_normalized = 0;      // signed ulp error for the bias statistic (when bias_sample)
  std::optional<double> signed_ratio;  // condition-aware: (y - z) / bound
  double bound_abs = 0;                // condition-aware: the bound itself
  double bound = 0;         // fractional ulp bound (or 1 for normalized)
  double rn = 0;            // RN_T(z)
  // The semantics check (the entry's native replay of the reference's
  // steps, oracles/replay.h): nullopt when the entry has none; else whether
  // y has the replay's bits.
  std::optional<bool> semantics_ok;
  bool semantics_failed() const { return semantics_ok && !*semantics_ok; }
  double replay = 0;
  std::uint64_t replay_bits = 0;
  // The oracle's expected mean square of the rounding error, where it states one.
  std::optional<double> error_variance;
  double uncertainty = 0, abs_uncertainty = 0, rel_uncertainty = 0;
};

// What the bulk lane (engine/case_run.cpp) keeps of a fast-path grade: the
// figures Tallies::block_candidates and Tallies::add_pass_run read, each as
// Figures has it (decide() fills either record the same way). A sweep
// writes one per input, so it is kept small: a third of Figures.
struct LaneFigures {
  bool pass = true;
  bool overflow = false;
  bool bias_sample = false;
  bool approximate = false;
  bool replayed_ok = true;  // the semantics replay's bits match (true where the entry has none)
  std::int64_t distance = 0;
  double frac = 0, signed_frac = 0, signed_normalized = 0, bound = 0, rn = 0;
  double abs_err = NAN, rel_err = NAN;
  double uncertainty = 0, abs_uncertainty = 0, rel_uncertainty = 0;
};

struct Grade : Figures {
  std::string rule;         // special rule name, "NaN->+0"
  std::string why;          // why it failed, in words (only on failure)
  // Passed only as another correct implementation would, not as the
  // reference does (a SpecialRule's `also`, an Exact alternative, another
  // evaluation order): the choice, in words. The reference profile fails it.
  std::string reference_choice;
  // The exact evaluation the grade was decided against, retained on this
  // thread until its next one (exact_text reads it): 0 for a grade no
  // exact evaluation decided (the fast path's, a special-value rule's).
  std::uint64_t evaluation = 0;
};

// y: the kernel's output value (of c.out_dtype(), the dtype of the output it is in) at the element, y_bits
// its bit pattern.
// Whether a fractional error known to within +-delta could fall in another
// bin of the fractional-ulp histogram (edges below, kept by engine/tally.cpp; the fast path
// then defers to MPFR). Inline: it runs per fast-path element.
inline constexpr double kFracEdgeList[] = {0,   1e-9, 0.5, 0.5001, 0.501, 0.51, 0.6,  1,       1.5,
                                           2,   4,    8,   16,     64,    256,  1024, INFINITY};
[[gnu::always_inline]] inline bool near_histogram_edge(double frac, double delta) {
  if (delta == 0) return false;
  // The first edge at or above frac - delta, scanned from the smallest (most
  // errors lie below the third edge); the first edge, 0, bounds nothing from
  // below: no error is negative.
  const double lo = frac - delta;
  for (auto it = std::begin(kFracEdgeList) + 1; it != std::end(kFracEdgeList); ++it)
    if (*it >= lo) return *it <= frac + delta;
  return false;
}

// How an element may be graded: `any` tries the double fast path, then
// MPFR at 64 bits where the oracle rounds once (KernelSpec::
// oracle_rounds_once), then MPFR at the working precision; `mpfr` skips
// the double fast path (--exact-oracle, or where it was tried already);
// `exact` grades at the working precision only (an element whose figures a
// report shows). Only `exact` grades are never approximate.
enum class GradeMode { any, mpfr, exact };
Grade grade_element(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits, const Params& params,
                    GradeMode mode = GradeMode::any);

// The fast path alone, with the semantics replay: true when it decided the
// element (then `out` holds its figures, `approximate` set); false when the
// element is MPFR's. What grade_element tries first.
bool grade_fast_figures(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits,
                        const Params& params, Figures& out);

// The bulk lane of a one-input elementwise case (engine/case_run.cpp),
// which grades straight from the tensors: the accuracy model when the
// double fast path may decide this kernel and dtype at all (nullptr:
// never), and one element graded from its input x, its result y and the
// semantics replay, as grade_fast_figures grades it. False: the element
// goes to the general loop (a zero or non-finite input, which may meet a
// special-value rule, a NaN result, or whatever the fast path leaves to MPFR).
const contract::Accuracy* fast_model(const Context& c);
bool grade_fast_scalar(const Context& c, const contract::Accuracy& acc, double x, double y, std::uint64_t y_bits,
                       const Params& params, LaneFigures& out);
// The elements lo .. lo + n - 1 of a case as grade_fast_scalar grades
// them, into out[k], and passed[k]: decided, passing, and with the
// replay's bits (a sweep's 4096 at a time: the per-element calls and
// look-ups hoisted out of the loop).
void grade_fast_block(const Context& c, const contract::Accuracy& acc, const ElementReader& x, const ElementReader& y,
                      std::int64_t lo, std::size_t n, const Params& params, LaneFigures* out, char* passed);

// The exact value the grade was decided against, in decimal (25 significant
// digits; "NaN", "inf", the outcome of a special-value rule), from the
// evaluation it retained: formatted only where a report shows it (failures,
// worst cases), never re-evaluated. std::logic_error for an approximate
// grade or one whose evaluation another has replaced (grade exactly, then
// describe, before the next element).
std::string exact_text(const Context& c, const drivers::Element& e, const Grade& g);
// The exact evaluation itself, under the same rule (the checks relating
// exact values read it, engine/check.h ElementExact): null for an
// approximate grade, a special-value rule's, or one another evaluation
// has replaced.
const oracle::Exact* retained_exact(const Grade& g);

// For tests/fast_oracle_test.cpp: the decision from an approximation, by its
// common-case path alone (nullopt where it does not apply) and by the
// general procedure alone; where the first answers, both must give the
// same answer and, where they decide, the same figures.
std::optional<bool> decide_common_for_test(const Context& c, const contract::Accuracy& acc, double y,
                                           const oracle::fast::Approx& a, Figures& g);
bool decide_general_for_test(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                             Figures& g);

// Names of special rules, "NaN->+0", as check names use them.
std::string special_rule_name(const contract::SpecialRule& r);

}  // namespace kc::engine
