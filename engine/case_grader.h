// The output elements of one case, graded and tallied (engine/case_run.cpp's
// grade_case, after the call and the shape checks): each element graded
// once, by the cheapest evaluation that decides everything reported of it
// (the double fast path, MPFR at 64 bits, MPFR at the working precision),
// escalated to the exact one only where a report shows its figures; the
// bulk lane of a one-input elementwise case (engine/case_lane.cpp) grades
// a block of elements at a time. Internal to the engine's case loop.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "drivers/driver.h"
#include "engine/check.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "engine/tally.h"

namespace kc::engine {

struct Sample;  // engine/sample.h

class CaseGrader {
 public:
  // What the case's checks asked to be kept of each element.
  struct Keep {
    bool grades = false;  // its grade
    bool exacts = false;  // its exact evaluation (graded exactly where it was not)
  };
  // `full_stats`: the case counts towards coverage, error statistics and
  // worst cases.
  CaseGrader(const CaseView& view, Tallies& acc, const drivers::Expectation& want, bool full_stats, Keep keep);

  // Every output element, through the bulk lane where it applies.
  void grade_all();
  // The grades kept for the checks (keep_grades).
  std::vector<Grade>& grades() { return grades_; }
  // The exact evaluations kept for the checks (Keep::exacts), by output element.
  std::span<const std::optional<ElementExact>> exacts() const { return exacts_; }

 private:
  // One element through the general path.
  void element(const drivers::Element& e);
  // The element's grade: the fast path's figures, else MPFR, made exact
  // where a report will show it. false: the fast path passed it and
  // nothing of it can be shown (tallied already).
  bool grade(const drivers::Element& e, double yv, std::uint64_t yb, const Tallies::Place& place, Grade& g);
  // A passing element decided by the fast path, tallied from its figures.
  void tally_pass(const Figures& f, std::span<const double> args, bool profiled, std::uint64_t x_bits, double yv);
  // The verdict's tallies, reports and statistics of a graded element.
  void record(const drivers::Element& e, const Grade& g, double yv, std::uint64_t yb);
  void dump(const drivers::Element& e, const Grade& g, std::uint64_t yb) const;
  void record_statistics(const drivers::Element& e, const Grade& g, double yv, std::uint64_t yb,
                         const Tallies::Place& place);
  ElementReport report_as(const std::string& check, const drivers::Element& e, const Grade& g, double yv,
                          std::uint64_t yb) const;
  // The element's exact evaluation kept (exacts_[e.out]), g graded exactly first where it was not.
  void keep_exact(const drivers::Element& e, double yv, std::uint64_t yb, Grade& g);
  CheckTally& accuracy_tally();
  CheckTally& semantics_tally();

  // A sampled output's figures, into the result's ShapeReport.
  void note_sample(const Sample& s, std::int64_t n);

  // The bulk lane (engine/case_lane.cpp): true where it graded the case.
  bool grade_lane();

  const CaseView& v_;
  const drivers::Expectation& want_;
  // The view's context, one per output (Context::output), and the one of
  // the output whose element is being graded.
  std::vector<Context> outputs_;
  const Context* c_;
  Tallies& acc_;
  bool full_stats_;
  Keep keep_;
  // Whether a passing fast-path element may be tallied from its figures
  // alone (no check wants the grades, no --dump).
  bool lane_;
  std::vector<Grade> grades_;
  std::vector<std::optional<ElementExact>> exacts_;
  // Looked up once per case (created where the run first meets them, so
  // the tallies keep their order).
  CheckTally* accuracy_ = nullptr;
  CheckTally* semantics_ = nullptr;
};

}  // namespace kc::engine
