#include "engine/findings.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "core/saturating.h"

namespace kc::engine {

namespace {

std::string plural(std::int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

std::string figure_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  // A figure that is not an integer never reads as one: 1.0000003 beside a
  // bound of 1 would show "1 > 1" (SLEEF's tanhf against its 1-ulp claim).
  std::string s = fmt::format("{:.4g}", v);
  for (int digits = 5; digits <= 17 && s.find_first_of(".e") == std::string::npos; ++digits) s = fmt::format("{:.{}g}", v, digits);
  return s;
}

namespace {
const char* const kOrder[] = {"special_rule", "spurious_inf", "missed_overflow", "nan_result", "missing_nan",
                              "zero_sign", "wrong_integer", "replay_mismatch", "not_exact", "not_correctly_rounded",
                              "frac_bound", "distance_bound", "normalized_bound"};
}  // namespace

int accuracy_finding_rank(const std::string& failure) {
  for (int i = 0; i < static_cast<int>(std::size(kOrder)); ++i)
    if (failure == kOrder[i]) return i;
  return static_cast<int>(std::size(kOrder));
}

namespace {

std::string accuracy_words(const std::string& failure, std::int64_t n, double worst, const std::string& bound_text) {
  const std::string elements = plural(n, "element", "elements"), w = figure_text(worst);
  if (failure == "special_rule") return elements + " break a special-value rule";
  if (failure == "spurious_inf")
    return plural(n, "result overflows", "results overflow") + " to inf where the correctly rounded result is finite";
  if (failure == "missed_overflow")
    return plural(n, "result is finite", "results are finite") + " where the correctly rounded result overflows to inf";
  if (failure == "nan_result") return plural(n, "NaN", "NaNs") + " where the exact result is a number";
  if (failure == "missing_nan") return plural(n, "number", "numbers") + " where the exact result is NaN";
  if (failure == "zero_sign") return plural(n, "zero", "zeros") + " of the wrong sign";
  if (failure == "wrong_integer") return plural(n, "result is", "results are") + " not the exact integer result";
  if (failure == "replay_mismatch")
    return fmt::format("integer distance {} > 0 from the reference's replayed steps on {}", w, elements);
  if (failure == "not_exact") return fmt::format("error {} ulp > 0 on {} (the result is exact)", w, elements);
  if (failure == "not_correctly_rounded")
    return fmt::format("integer distance {} > 0 on {} (one correct rounding is the contract)", w, elements);
  if (failure == "frac_bound") return fmt::format("fractional error {} ulp > {} on {}", w, bound_text, elements);
  if (failure == "distance_bound") return fmt::format("integer distance {} > {} on {}", w, bound_text, elements);
  if (failure == "normalized_bound") return fmt::format("normalized error {} > {} on {}", w, bound_text, elements);
  return fmt::format("{} failed ({})", elements, failure);
}

}  // namespace

std::string accuracy_finding_text(const std::string& failure, std::int64_t n, double worst,
                                  const std::string& bound_text) {
  // Named by its check, as the terminal's FAIL line and the pages lead with it.
  return (failure == "special_rule" ? "special: " : "accuracy: ") + accuracy_words(failure, n, worst, bound_text);
}

Finding check_finding(const CheckTally& t) {
  Finding f{t.name, t.kind, t.metric.empty() ? "failures" : t.metric, static_cast<double>(t.failed), 0, t.failed, ""};
  if (t.figure && t.bound) {
    f.figure = *t.figure;
    f.bound = *t.bound;
    f.bound_text = figure_text(*t.bound);
    f.text = fmt::format("{}: {} {} > {}", t.name, t.metric, figure_text(*t.figure), figure_text(*t.bound));
  } else {
    f.text = fmt::format("{}: {} of {} failed", t.name, t.failed, saturating_add(t.failed, t.passed));
  }
  return f;
}

std::string pass_headline(const PassFigures& p) {
  if (!p.kind || p.graded == 0)
    return p.special > 0 ? fmt::format("{} special-value results as the rules say", p.special) : "";
  switch (*p.kind) {
    using enum contract::AccuracyKind;
    case exact: return "every result exact";
    case correctly_rounded: return "every result correctly rounded (distance 0)";
    case ulp_bound:
      return fmt::format("max {} ulp <= {}{}", figure_text(p.max_frac_ulp), p.frac_bound_text,
                         p.distance_bound >= 0 ? fmt::format(", distance {} <= {}", p.max_distance, p.distance_bound) : "");
    case condition_aware: return fmt::format("normalized error {} <= 1", figure_text(p.max_normalized.value_or(0)));
  }
  return "";
}

}  // namespace kc::engine
