#include "engine/declared.h"

#include <cmath>

#include <fmt/format.h>

#include "engine/findings.h"

namespace kc::engine {

namespace {

// The contract's bound in the claim's metric, where the model states one.
std::optional<double> contract_bound(const contract::Accuracy& a, const std::string& metric) {
  using K = contract::AccuracyKind;
  if (metric == "frac_ulp") {
    if (a.kind == K::exact) return 0.0;
    if (a.kind == K::correctly_rounded) return 0.5;
    if (a.kind == K::ulp_bound && !a.param_bound) return a.max_frac_ulp;
  }
  if (metric == "distance") {
    if (a.kind == K::exact || a.kind == K::correctly_rounded) return 0.0;
    if (a.kind == K::ulp_bound && a.max_distance >= 0) return static_cast<double>(a.max_distance);
  }
  return std::nullopt;
}

std::string_view metric_text(const std::string& m) {
  if (m == "frac_ulp") return "fractional ulp error";
  if (m == "distance") return "integer distance";
  if (m == "relative") return "relative error";
  return "absolute error";
}

}  // namespace

void judge_claim(const Context& c, double max_abs_err, double max_rel_err, KernelDTypeResult& res) {
  const Backend::Declared d = c.backend.declared(c.k.name, c.t);
  DeclaredResult& out = res.declared;
  out.expected_failure = d.expected_failure;
  out.metric = d.claim_metric;
  if (d.claim_metric.empty()) {
    out.verdict = ClaimVerdict::unclaimed;
    return;
  }
  const AccuracyStats& s = res.accuracy;
  out.claimed = d.claim_bound;
  if (const contract::Accuracy* a = c.k.accuracy_for(c.t)) out.contract_bound = contract_bound(*a, d.claim_metric);
  out.measured = d.claim_metric == "frac_ulp"   ? s.max_frac_ulp
                 : d.claim_metric == "distance" ? static_cast<double>(s.max_distance)
                 : d.claim_metric == "relative" ? max_rel_err
                                                : max_abs_err;
  const bool graded = s.graded > 0;
  out.verdict = !graded ? ClaimVerdict::unclaimed : out.measured <= out.claimed ? ClaimVerdict::confirmed : ClaimVerdict::refuted;
  if (out.verdict != ClaimVerdict::refuted) return;
  // figure_text: a measured 1.0000000178 must not read "1 > 1" (SLEEF's tanhf).
  const std::string text = fmt::format("claim: {} {} > {}, the backend's own claim", metric_text(d.claim_metric),
                                       figure_text(out.measured), figure_text(out.claimed));
  CheckTally t{.name = fmt::format("claim: {} <= {:.6g} (declared by the backend)", metric_text(d.claim_metric),
                                   out.claimed),
               .kind = CheckKind::claim,
               .failed = 1,
               .metric = std::string(metric_text(d.claim_metric)),
               .figure = out.measured,
               .bound = out.claimed};
  t.detail = text;
  res.checks.push_back(t);
  res.findings.push_back({t.name, CheckKind::claim, t.metric, out.measured, out.claimed, 1, text});
}

void judge_expected_failure(const Context&, KernelDTypeResult& res) {
  DeclaredResult& d = res.declared;
  if (d.expected_failure.empty() || res.verdict == Verdict::not_graded) return;
  d.expected_outcome = res.verdict == Verdict::fail ? "failed as expected" : "passed unexpectedly";
}

}  // namespace kc::engine
