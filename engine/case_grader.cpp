#include "engine/case_grader.h"

#include <cmath>
#include <functional>
#include <ostream>

#include "engine/failure_text.h"
#include "engine/sample.h"
#include "oracles/exact.h"

namespace kc::engine {

namespace {

// A failing element's figure: its normalized error where the bound is
// condition-aware, else its fractional ulp error.
double failure_figure(const Figures& g) { return g.normalized ? *g.normalized : g.frac; }

}  // namespace

CaseGrader::CaseGrader(const CaseView& view, Tallies& acc, const drivers::Expectation& want, bool full_stats, Keep keep)
    : v_(view),
      want_(want),
      acc_(acc),
      full_stats_(full_stats),
      keep_(keep),
      lane_(!keep.grades && !keep.exacts && !view.c.opts.dump) {
  if (keep.exacts) exacts_.resize(static_cast<std::size_t>(want.numel()));
  // One context per output: its elements are graded in its dtype.
  for (std::size_t i = 0; i < want.parts.size(); ++i) {
    outputs_.push_back(view.c);
    outputs_.back().output = i;
  }
  c_ = &outputs_.front();
}

void CaseGrader::grade_all() {
  // (Elements that each fold many terms exactly: the budget's work, 16
  // terms an element, over their terms; never below 256 elements.)
  const std::int64_t n = want_.numel(), terms = v_.cs.shaped ? c_->driver.element_terms(c_->k, v_.cs) : 1;
  const std::int64_t budget = terms <= 16 ? v_.c.opts.exact_budget
                                          : std::min(v_.c.opts.exact_budget, std::max<std::int64_t>(256, v_.c.opts.exact_budget * 16 / terms));
  if (v_.cs.shaped && budget > 0 && n > budget) {
    const Sample s = stratified_sample(
        want_, budget, gen::derive_seed(v_.c.opts.seed, v_.c.k.name, dtype_name(v_.c.t), "sample", static_cast<std::uint64_t>(v_.case_id)));
    if (full_stats_) note_sample(s, n);
    c_->driver.for_each_listed(c_->k, v_.cs, s.indices, [this](const drivers::Element& e) { element(e); });
    return;
  }
  if (!grade_lane()) c_->driver.for_each_element(c_->k, v_.cs, [this](const drivers::Element& e) { element(e); });
}

void CaseGrader::note_sample(const Sample& s, std::int64_t n) {
  ShapeReport& r = acc_.shapes;
  ++r.sampled_cases;
  r.sampled_of += n;
  r.sampled_graded += static_cast<std::int64_t>(s.indices.size());
  r.sample_edges += s.edges;
  r.sample_boundaries += s.boundaries;
  r.sample_random += s.random;
  r.sample_draws = r.sample_draws == 0 ? s.draws : std::min(r.sample_draws, s.draws);
}

CheckTally& CaseGrader::accuracy_tally() {
  return *(accuracy_ ? accuracy_ : (accuracy_ = &acc_.tally("accuracy", CheckKind::accuracy)));
}
CheckTally& CaseGrader::semantics_tally() {
  return *(semantics_ ? semantics_ : (semantics_ = &acc_.tally(kSemanticsCheck, CheckKind::semantics, Profile::reference)));
}

void CaseGrader::tally_pass(const Figures& f, std::span<const double> args, bool profiled, std::uint64_t x_bits,
                            double yv) {
  ++acc_.elements;
  acc_.record(*c_, accuracy_tally(), true);
  if (f.semantics_ok) acc_.record(*c_, semantics_tally(), true);
  if (!full_stats_) return;
  acc_.add_coverage(*c_, args, f, yv);
  acc_.add_error(*c_, f, profiled, x_bits, profiled ? args[0] : 0.0);
  acc_.add_normalized(f);
}

bool CaseGrader::grade(const drivers::Element& e, double yv, std::uint64_t yb, const Tallies::Place& place, Grade& g) {
  Figures f;
  const bool fast = grade_fast_figures(*c_, e, yv, yb, v_.cs.params, f);
  // A passing element decided by the fast path (most of a sweep), tallied
  // from its figures as record() tallies it: it keeps no report (it is
  // neither a failure, a worst case nor at a maximum: needs_exact says
  // its figures could be shown or move a maximum).
  if (fast && lane_ && f.pass && f.semantics_ok.value_or(true) && !acc_.needs_exact(f, place)) {
    const bool profiled = e.replayable && e.shown.size() == 1;
    double first[2];
    tally_pass(f, std::span<const double>(first, oracle::leading_values(e.in, first)), profiled,
               profiled ? e.shown[0] : 0, yv);
    return false;
  }
  if (fast) static_cast<Figures&>(g) = f;
  else g = grade_element(*c_, e, yv, yb, v_.cs.params, GradeMode::mpfr);
  // An approximate grade whose report will be kept (a failure, or a pass
  // that fails the semantics replay) is made exact first: its figures and
  // its exact value are then the ones shown, from one evaluation.
  // (The tallies are created in the order the run meets them: accuracy first.)
  const auto shown = [&] {
    return g.approximate && ((!g.pass && acc_.keeps(*c_, accuracy_tally())) ||
                             (g.pass && g.semantics_failed() && (accuracy_tally(), acc_.keeps(*c_, semantics_tally()))));
  };
  // (On a shaped case, a failure that would be its case's largest is made
  // exact too: the figure a problem line reports.)
  const auto case_worst = [&] {
    return v_.cs.shaped && !g.pass && g.approximate && failure_figure(g) > acc_.case_worst;
  };
  if (acc_.needs_exact(g, place) || shown() || case_worst())
    g = grade_element(*c_, e, yv, yb, v_.cs.params, GradeMode::exact);
  return true;
}

void CaseGrader::element(const drivers::Element& e) {
  const auto [part, at] = want_.locate(e.out);
  c_ = &outputs_[part];
  const Tensor& y = v_.outputs[part];
  const std::uint64_t yb = y.bits_at(at);
  const double yv = y.value_at(at);
  // (Its place: of equal figures in a case the earlier element is kept,
  // and the lane records a stretch's set-aside candidates last.)
  const Tallies::Place place{v_.case_id, e.out};
  Grade g;
  if (!grade(e, yv, yb, place, g)) return;
  if (keep_.exacts) keep_exact(e, yv, yb, g);
  ++acc_.elements;
  acc_.escalations += g.escalations;
  if (full_stats_) acc_.add_coverage(*c_, e, g, yv);
  record(e, g, yv, yb);
  if (full_stats_ && c_->opts.dump) dump(e, g, yb);  // (not a shrink's or a property's regrade)
  if (keep_.grades) grades_.push_back(g);
  if (g.special) {
    ++acc_.special;
    return;
  }
  if (g.replayed) ++acc_.replayed;
  if (full_stats_ && !g.replayed) record_statistics(e, g, yv, yb, place);
}

void CaseGrader::keep_exact(const drivers::Element& e, double yv, std::uint64_t yb, Grade& g) {
  if (g.special) return;
  if (!retained_exact(g)) g = grade_element(*c_, e, yv, yb, v_.cs.params, GradeMode::exact);
  const oracle::Exact* ex = retained_exact(g);
  if (!ex) return;  // (a special-value rule decided it after all)
  exacts_.at(static_cast<std::size_t>(e.out)) = ElementExact{ex->value, ex->magnitude, ex->replayed};
}

ElementReport CaseGrader::report_as(const std::string& check, const drivers::Element& e, const Grade& g, double yv,
                                    std::uint64_t yb) const {
  // `--input` replays a passing element; a failure replays with its case
  // (a defect in how a kernel indexes its inputs shows in the case, not
  // alone), its element alone offered beside it.
  const bool alone = g.pass && !g.semantics_failed() && e.replayable;
  return element_report(*c_, check, v_.case_id, v_.path, v_.cs, e, yv, yb, g, exact_text(*c_, e, g), alone,
                        e.replayable);
}

void CaseGrader::record(const drivers::Element& e, const Grade& g, double yv, std::uint64_t yb) {
  // An element with no finite bound (ill-conditioned past T's precision)
  // is held to the reference's bits in the reference profile only: the
  // conformance profile counts it ("differs from the reference") but no
  // correct result is closer than another there.
  const std::string check = g.special ? "special:" + g.rule : g.unbounded ? kUnboundedCheck : "accuracy";
  auto& tally = g.special     ? acc_.tally(check, CheckKind::special)
                : g.unbounded ? acc_.tally(check, CheckKind::semantics, Profile::reference)
                              : accuracy_tally();
  CheckTally* sem = g.semantics_ok ? &semantics_tally() : nullptr;
  // Formatted only where one is kept. (A semantics failure is reported
  // under its own check only where the accuracy passed.)
  const bool keyed =
      !(g.pass && !g.semantics_failed()) && (acc_.keeps(*c_, tally) || (g.pass && sem && acc_.keeps(*c_, *sem)));
  const std::string key = keyed ? element_key(*c_, e) : "";
  auto report = [&] { return report_as(check, e, g, yv, yb); };
  acc_.record(*c_, tally, g.pass, key, keyed ? std::function<ElementReport()>(report) : nullptr);
  if (full_stats_ && !g.pass && !g.unbounded) acc_.add_failure(g);  // (the unbounded: a semantics finding)
  if (v_.cs.shaped && !g.pass && !g.special && !g.unbounded && failure_figure(g) > acc_.case_worst) {
    acc_.case_worst = failure_figure(g);
    acc_.case_worst_normalized = g.normalized.has_value();
  }
  if (sem) {
    // An element that failed its accuracy too is reported once, there
    // (its error line names the reference's bits); here it is counted.
    acc_.record(*c_, *sem, *g.semantics_ok, key,
                g.pass && keyed ? std::function<ElementReport()>([&] { return report_as(sem->name, e, g, yv, yb); })
                                : nullptr);
  }
  if (!g.reference_choice.empty()) {
    // Correct, but not the reference's choice: fails only the reference profile.
    auto& choice = acc_.tally(kReferenceChoiceCheck, CheckKind::reference_choice, Profile::reference);
    acc_.record(*c_, choice, false, element_key(*c_, e), [&] {
      ElementReport r = report_as(choice.name, e, g, yv, yb);
      r.message += "\n  choice:            " + g.reference_choice;
      return r;
    });
  }
}

// One line per graded element (the format is the README's "--dump"): the
// first six fields name the element and its bits, the last two say how it
// was graded, so a reader recomputing the accuracy figures takes the
// `accuracy` lines and a reader looking at a failing case sees all of it.
void CaseGrader::dump(const drivers::Element& e, const Grade& g, std::uint64_t yb) const {
  const char* how = g.special ? "special" : g.replayed ? "replayed" : std::isfinite(g.frac) ? "accuracy" : "nonfinite";
  *c_->opts.dump << c_->k.name << ' ' << dtype_name(c_->t) << ' ' << v_.case_id << ' ' << e.out << ' '
                 << joined_hex(*c_, e) << ' ' << hex_bits(c_->out_dtype(), yb) << ' ' << how << ' '
                 << (g.pass ? "pass" : "fail") << '\n';
}

void CaseGrader::record_statistics(const drivers::Element& e, const Grade& g, double yv, std::uint64_t yb,
                                   const Tallies::Place& place) {
  // (A replayed element, the unbounded ones included, has no statistics:
  // what is shown here is always an accuracy figure.)
  auto report = [&] { return report_as("accuracy", e, g, yv, yb); };
  if (acc_.could_be_worst(g, place)) acc_.keep_worst(report());
  acc_.note_extremes(g, report, place);
  acc_.add_error(*c_, e, g);
  acc_.add_normalized(g);
}

}  // namespace kc::engine
