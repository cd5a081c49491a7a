// Check "case statistics" (TOSA-style, for sums with many output cells), on
// the dedicated statistics case (drivers' statistics_case): over the case's
// outputs, the mean of the signed normalized errors must be zero within 6
// standard errors, and their mean square must not exceed the mean of the
// oracle's expected mean square (Exact::error_variance, normalized by each
// element's bound) by more than 6 of its own standard errors
// (docs/accuracy-bounds.md, "Statistics of a case").
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class CaseStatistics final : public Check {
 public:
  static constexpr std::size_t kMinOutputs = 32;  // of the 128 the statistics case has
  bool needs_grades(const CaseView& v) const override { return v.statistics_case; }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    if (!v.statistics_case) return;
    std::vector<double> e, bound;
    for (const engine::Grade& g : v.grades) {
      if (g.special || g.replayed || !g.signed_ratio || !std::isfinite(*g.signed_ratio) || !g.error_variance) continue;
      e.push_back(*g.signed_ratio);
      bound.push_back(*g.error_variance / (g.bound_abs * g.bound_abs));
    }
    auto& tally = acc.tally("statistics: mean and mean square of normalized errors per case", engine::CheckKind::statistics);
    if (e.size() < kMinOutputs) {
      acc.not_graded(tally, fmt::format("only {} outputs with a statistic, the test needs {}", e.size(), kMinOutputs));
      return;
    }
    const double n = static_cast<double>(e.size());
    double sum = 0, sq = 0, b = 0, q = 0;
    for (std::size_t i = 0; i < e.size(); ++i) sum += e[i], sq += e[i] * e[i], b += bound[i], q += (e[i] * e[i]) * (e[i] * e[i]);  // (not pow: glibc's pow rounds per CPU)
    const double mean = sum / n, ms = sq / n;
    const double se = std::sqrt(std::max(0.0, ms - mean * mean) / n);
    // One-sided test of E[e^2] <= mean bound: the sample mean square may
    // exceed it by 6 of its own standard errors.
    const double se_ms = std::sqrt(std::max(0.0, q / n - ms * ms) / n);
    const double ms_bound = b / n + 6 * se_ms;
    const bool ok = std::fabs(mean) <= 6 * se + 1e-300 && ms <= ms_bound;
    // The figure: the mean's |z| when the mean is off, else the mean square
    // against its limit; the tally keeps the case furthest over (or nearest
    // to) its limit, so a failing run shows a failing case's figure.
    const bool mean_off = std::fabs(mean) > 6 * se + 1e-300;
    const double figure = mean_off ? std::fabs(mean) / se : ms, limit = mean_off ? 6.0 : ms_bound;
    if (tally.further_over(figure, limit)) {
      tally.metric = mean_off ? "|z| of the mean" : "mean square";
      tally.figure = figure;
      tally.bound = limit;
      tally.detail = fmt::format("worst case {}: mean {:.3g} (s.e. {:.3g}), mean square {:.3g} (limit {:.3g})",
                                 v.case_id, mean, se, ms, ms_bound);
    }
    acc.record(v.c, tally, ok, fmt::format("case {}", v.case_id), [&] {
      return engine::case_report(
          v.c, tally.name, v.case_id, v.path, v.cs,
          fmt::format("over {} outputs: mean {:.4g} (limit 6 s.e. = {:.4g}), mean square {:.4g} (limit {:.4g})",
                      e.size(), mean, 6 * se, ms, ms_bound));
    });
  }
};

}  // namespace

void register_case_statistics(Registry& r) {
  r.push_back({.name = "case_statistics",
               .of_contract_model = true,
               .applies = [](const contract::KernelSpec& k, DType t) {
                 const contract::Accuracy* a = k.accuracy_for(t);
                 return a && a->check_case_statistics;
               },
               .make = [](const contract::Property*) { return std::make_unique<CaseStatistics>(); }});
}

}  // namespace kc::checks
