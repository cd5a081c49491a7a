#include "engine/case_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "engine/failure_text.h"

namespace kc::engine {

namespace {

std::string case_key(std::int64_t case_id) { return fmt::format("case {}", case_id); }

// The call itself; a valid call that throws fails the case.
bool call(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path, const gen::Case& cs,
          std::vector<Tensor>& out) {
  auto& run = acc.tally("accepts valid input", "run");
  auto& returns = acc.tally(kIsolationCheck, "isolation");
  try {
    out = c.backend.run(c.k.name, cs.inputs, cs.params);
    acc.record(c, returns, true);
    acc.record(c, run, true);
    if (acc.graded) acc.graded->add(case_id, out);
    return true;
  } catch (const KernelFault& e) {
    // Crash, abort, exception, hang, a write outside a buffer: the kind leads the message.
    const std::string what = fmt::format("{}: {}", e.kind(), e.what());
    acc.record(c, returns, false, case_key(case_id), [&] { return case_report(c, returns.name, case_id, path, cs, what); });
    return false;
  } catch (const std::exception& e) {
    const std::string what = fmt::format("a valid call failed: {}", e.what());
    acc.record(c, run, false, case_key(case_id), [&] { return case_report(c, run.name, case_id, path, cs, what); });
    return false;
  }
}

bool output_matches(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path,
                    const gen::Case& cs, const std::vector<Tensor>& out, const drivers::Expectation& want) {
  auto& shape = acc.tally("output shape and dtype", "output");
  const std::size_t n = want.parts.empty() ? 1 : want.parts.size();
  auto dims_of = [&](std::size_t i) -> const Dims& { return want.parts.empty() ? want.dims : want.parts[i].dims; };
  auto part_ok = [&](std::size_t i) {
    return out[i].dims() == dims_of(i) && out[i].dtype() == want.dtype && out[i].consistent();
  };
  bool ok = out.size() == n;
  for (std::size_t i = 0; ok && i < n; ++i) ok = part_ok(i);
  acc.record(c, shape, ok, case_key(case_id), [&] {
    std::string what;
    if (out.size() != n) {
      what = fmt::format("expected {} output{}, got {}", n, n == 1 ? "" : "s", out.size());
      for (std::size_t i = 0; i < want.parts.size(); ++i)
        what += fmt::format("{}{} {}", i == 0 ? " (expected: " : ", ", want.parts[i].name, dims_to_string(want.parts[i].dims));
      if (!want.parts.empty()) what += ")";
    } else {
      std::size_t i = 0;
      while (i + 1 < n && part_ok(i)) ++i;
      what = fmt::format("{}expected {} {}, got {} {} ({} bytes)", want.parts.empty() ? "" : want.parts[i].name + ": ",
                         dims_to_string(dims_of(i)), dtype_name(want.dtype), dims_to_string(out[i].dims()),
                         dtype_name(out[i].dtype()), out[i].byte_size());
    }
    return case_report(c, shape.name, case_id, path, cs, what);
  });
  return ok;
}

// The graded sequence: the one output, or a multi-output kernel's outputs
// one after the other (Expectation::parts), as a 1-D tensor.
Tensor graded_sequence(std::vector<Tensor>& out, const drivers::Expectation& want) {
  if (want.parts.empty()) return std::move(out[0]);
  Tensor y(want.dtype, want.dims);
  std::int64_t at = 0;
  for (const Tensor& part : out)
    for (std::int64_t i = 0; i < part.numel(); ++i) y.set_bits(at++, part.bits_at(i));
  return y;
}

void layout(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path, const gen::Case& cs,
            const Tensor& y, const drivers::Expectation& want) {
  // Zero-copy is the reference's choice (a copy is as correct); never
  // aliasing an input is portable.
  auto& t = want.zero_copy ? acc.tally("layout: zero-copy (shares the input's storage)", "layout", Profile::reference)
                           : acc.tally("layout: fresh output buffer", "layout");
  bool ok = true;
  if (want.zero_copy) ok = y.shares_storage(cs.inputs.front());
  else
    for (const Tensor& in : cs.inputs) ok &= !y.shares_storage(in) || y.numel() == 0;
  acc.record(c, t, ok, case_key(case_id), [&] {
    return case_report(c, t.name, case_id, path, cs,
                       want.zero_copy ? "the output was copied where the reference returns a view of the input's storage"
                                      : "the output shares storage with an input");
  });
}

// Whether the element, graded alone (one element per operand, as `--input`
// replays it), fails the same way: only then is `--input` its replay. A
// defect in how a kernel indexes its inputs shows in the case, not alone.
bool fails_alone(const Context& c, const drivers::Element& e, const Params& params, const Grade& g) {
  if (!e.replayable) return false;
  const auto alone = c.driver.element_case(c.k, c.t, e.shown, params);
  if (!alone) return false;
  try {
    const auto out = c.backend.run(c.k.name, alone->inputs, alone->params);
    if (out.size() != 1 || out[0].numel() != 1) return false;
    drivers::Element e1;
    c.driver.for_each_element(c.k, *alone, [&](const drivers::Element& el) { e1 = el; });
    const Grade g1 = grade_element(c, e1, out[0].value_at(0), out[0].bits_at(0), params, GradeMode::exact);
    if (!g.pass) return !g1.pass && g1.failure == g.failure;
    return g1.semantics_ok && !*g1.semantics_ok;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

void record_calls(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path,
                  const gen::Case* cs) {
  Backend::CallLog log = c.backend.take_call_log();
  for (const std::string& name : c.backend.call_checks()) {
    // (The kind is the name's first word: "isolation: ...", "output: ...".)
    auto& tally = acc.tally(name, name.substr(0, name.find(':')));
    // Each distinct note once, with how many calls of the case made it.
    std::vector<std::pair<std::string, int>> seen;
    for (const auto& n : log.notes) {
      if (n.check != name) continue;
      auto at = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == n.what; });
      if (at == seen.end()) seen.emplace_back(n.what, 1);
      else ++at->second;
    }
    std::string what;
    for (const auto& [text, count] : seen)
      what += fmt::format("{}{}{}", what.empty() ? "" : "; ", text, count > 1 ? fmt::format(" ({} calls)", count) : "");
    const std::string where = case_id >= 0 ? fmt::format("case {}", case_id) : "the run's checks";
    acc.record(c, tally, what.empty(), where, [&] {
      if (cs && case_id >= 0) return case_report(c, tally.name, case_id, path, *cs, what);
      // The calls of the run's own checks (determinism, bad input, ...): the whole run replays them.
      ElementReport r;
      r.check = tally.name;
      r.repro = base_command(c) + fmt::format(" --seed {}", c.opts.seed);
      r.message = fmt::format("{} {}: {}: during the run's checks after its cases: {}\n  replay: {}", c.k.name,
                              dtype_name(c.t), tally.name, what, r.repro);
      return r;
    });
  }
  if (log.printed_bytes > 0 && acc.printed.size() < Tallies::kMaxPrinted)
    acc.printed.push_back({case_id, log.printed_bytes, std::move(log.printed)});
}

bool finish_checks(const Context& c, const CheckList& checks, const RunView& run, Tallies& acc,
                   GradedOutputs& graded) {
  acc.graded = &graded;
  try {
    for (const auto& ch : checks) ch->on_finish(run, acc);
  } catch (const Interrupted&) {
    acc.graded = nullptr;
    return false;
  }
  acc.graded = nullptr;
  record_calls(c, acc, -1, {}, nullptr);
  return true;
}

std::int64_t grade_case(const Context& run, const CheckList& checks, Tallies& acc, std::int64_t case_id,
                        const std::vector<int>& path, const gen::Case& cs, bool full_stats, bool statistics_case) {
  const Context c{run.k, run.t, run.backend, run.driver, run.opts, statistics_case};
  const std::int64_t failed_before = acc.failed;
  std::vector<Tensor> out;
  if (!call(c, acc, case_id, path, cs, out)) return acc.failed - failed_before;
  const drivers::Expectation want = c.driver.expected_output(c.k, cs);
  if (!output_matches(c, acc, case_id, path, cs, out, want)) return acc.failed - failed_before;
  for (const Tensor& part : out) layout(c, acc, case_id, path, cs, part, want);
  const Tensor y = graded_sequence(out, want);
  if (full_stats) {
    acc.add_shape(cs.inputs.front());
    acc.fracs.expect(static_cast<std::size_t>(y.numel()));
  }

  CaseView view{c, cs, case_id, path, y, statistics_case, {}};
  bool keep_grades = false;
  for (const auto& ch : checks) keep_grades |= ch->needs_grades(view);
  std::vector<Grade> grades;
  CheckTally *accuracy_tally = nullptr, *semantics_tally = nullptr;

  // A passing element decided by the fast path (most of a sweep), tallied
  // from its figures as the general path below tallies it: it keeps no
  // report (it is neither a failure, a worst case nor at a maximum:
  // needs_exact says its figures could be shown or move a maximum).
  const bool lane = !keep_grades && !c.opts.dump;
  auto lane_pass = [&](const Figures& f, const Tallies::Place& at) {
    return lane && f.pass && f.semantics_ok.value_or(true) && !acc.needs_exact(f, at);
  };
  auto tally_pass = [&](const Figures& f, std::span<const double> args, bool profiled, std::uint64_t x_bits, double yv) {
    ++acc.elements;
    acc.record(c, *(accuracy_tally ? accuracy_tally : (accuracy_tally = &acc.tally("accuracy", "accuracy"))), true);
    if (f.semantics_ok)
      acc.record(c, *(semantics_tally ? semantics_tally
                                      : (semantics_tally = &acc.tally(kSemanticsCheck, "semantics", Profile::reference))),
                 true);
    if (!full_stats) return;
    acc.add_coverage(c, args, f, yv);
    acc.add_error(c, f, profiled, x_bits, profiled ? args[0] : 0.0);
    acc.add_normalized(f);
  };

  auto per_element = [&](const drivers::Element& e) {
    const std::uint64_t yb = y.bits_at(e.out);
    const double yv = y.value_at(e.out);
    Figures f;
    const bool fast = grade_fast_figures(c, e, yv, yb, cs.params, f);
    // (Its place: of equal figures in a case the earlier element is kept,
    // and the lane records a stretch's set-aside candidates last.)
    const Tallies::Place place{case_id, e.out};
    if (fast && lane_pass(f, place)) {
      const bool profiled = e.replayable && e.shown.size() == 1;
      tally_pass(f, e.args, profiled, profiled ? e.shown[0] : 0, yv);
      return;
    }
    Grade g;
    if (fast) static_cast<Figures&>(g) = f;
    else g = grade_element(c, e, yv, yb, cs.params, GradeMode::mpfr);
    // (A fast failure whose report will be kept: MPFR's, with its words.)
    const auto kept_failure = [&] {
      return !g.pass && g.approximate &&
             acc.keeps(c, *(accuracy_tally ? accuracy_tally : (accuracy_tally = &acc.tally("accuracy", "accuracy"))));
    };
    if (acc.needs_exact(g, place) || kept_failure()) g = grade_element(c, e, yv, yb, cs.params, GradeMode::exact);
    ++acc.elements;
    acc.escalations += g.escalations;
    if (full_stats) acc.add_coverage(c, e, g, yv);
    // The accuracy tally is looked up once per case (created where the
    // run first meets it, so the tallies keep their order).
    // An element with no finite bound (ill-conditioned past T's precision)
    // is held to the reference's bits in the reference profile only: the
    // conformance profile counts it ("differs from the reference") but no
    // correct result is closer than another there.
    const std::string check = g.special ? "special:" + g.rule : g.unbounded ? kUnboundedCheck : "accuracy";
    auto& tally = g.special     ? acc.tally(check, "special")
                  : g.unbounded ? acc.tally(check, "semantics", Profile::reference)
                                : *(accuracy_tally ? accuracy_tally : (accuracy_tally = &acc.tally(check, "accuracy")));
    const bool semantics_failed = g.semantics_ok && !*g.semantics_ok;
    // Formatted only where one is kept: a failure, or an element that
    // enters the current top 5 (formatting every element would dominate a sweep).
    auto report_as = [&](const std::string& name) {
      const bool alone = g.pass && !semantics_failed ? e.replayable : fails_alone(c, e, cs.params, g);
      return element_report(c, name, case_id, path, cs, e, yv, yb, g, exact_text(c, e, cs.params, g), alone);
    };
    auto report = [&] { return report_as(check); };
    // The key, only where a failure's report can still be kept.
    CheckTally* sem_tally = g.semantics_ok ? (semantics_tally ? semantics_tally
                                                              : (semantics_tally = &acc.tally(kSemanticsCheck, "semantics", Profile::reference)))
                                           : nullptr;
    // (A semantics failure is reported under its own check only where the accuracy passed.)
    const bool keyed = !(g.pass && !semantics_failed) &&
                       (acc.keeps(c, tally) || (g.pass && sem_tally && acc.keeps(c, *sem_tally)));
    const std::string key = keyed ? element_key(c, e) : "";
    acc.record(c, tally, g.pass, key, keyed ? std::function<ElementReport()>(report) : nullptr);
    if (full_stats && !g.pass && !g.unbounded) acc.add_failure(g);  // (the unbounded: a semantics finding)
    if (sem_tally) {
      // An element that failed its accuracy too is reported once, there
      // (its error line names the reference's bits); here it is counted.
      auto& sem = *sem_tally;
      acc.record(c, sem, *g.semantics_ok, key,
                 g.pass && keyed ? std::function<ElementReport()>([&] { return report_as(sem.name); }) : nullptr);
    }
    if (!g.reference_choice.empty()) {
      // Correct, but not the reference's choice: fails only the reference profile.
      auto& choice = acc.tally(kReferenceChoiceCheck, "reference-choice", Profile::reference);
      acc.record(c, choice, false, element_key(c, e), [&] {
        ElementReport r = report_as(choice.name);
        r.message += "\n  choice:            " + g.reference_choice;
        return r;
      });
    }
    if (keep_grades) grades.push_back(g);
    if (g.special) {
      ++acc.special;
      return;
    }
    if (g.replayed) ++acc.replayed;
    if (!full_stats || g.replayed) return;
    if (std::isfinite(g.frac) && c.opts.dump)
      *c.opts.dump << c.k.name << ' ' << dtype_name(c.t) << ' ' << case_id << ' ' << e.out << ' ' << joined_hex(c, e)
                   << ' ' << hex_bits(want.dtype, yb) << '\n';
    if (acc.could_be_worst(g, place)) acc.keep_worst(report());
    acc.note_extremes(g, report, place);
    acc.add_error(c, e, g);
    acc.add_normalized(g);
  };

  // The bulk lane of a one-input elementwise case: the elements graded
  // straight from the tensors by the fast path, a block of them at a time
  // (blocks of 4096 keep the figures in cache); in flat order, those it
  // passed are tallied unless their figures could be shown (a worst case,
  // a maximum: Tallies::block_candidates, decided over the whole block),
  // and the rest go to the general path. The candidates are set aside
  // (their error-profile points reserved in input order) and decided
  // again over a stretch of blocks (the case, or until 2^16 are set
  // aside): only those still candidates then go to the general path, the
  // others are tallied. Errors that grow along the input (e^x near 0: each
  // block's largest are new maxima, until the next block's) are then
  // regraded by MPFR per stretch, not per block: over the 2^26 inputs of
  // e^x in [2^-31, 2^-23], 5386 elements instead of 86026, and the whole
  // f32 sweep took 98-108 s instead of 125-135 s (closing note of #10).
  // The stretch's passes are added to the tallies at its end, after the
  // candidates are graded: every pass lies below a candidate of its own
  // block (or the figures of the gate), so no maximum the passes set
  // lacks its element. Added first, a pass at the distance of the
  // block's first element at it would raise the maximum distance, and
  // that element, graded later, would not be shown at it.
  const contract::Accuracy* model = lane ? fast_model(c) : nullptr;
  drivers::Element e;
  const std::int64_t numel = cs.inputs.size() == 1 ? cs.inputs[0].numel() : 0;
  if (model && numel > 0 && c.driver.element_at(c.k, cs, 0, e)) {
    const ElementReader x(cs.inputs[0]), yr(y);
    constexpr std::int64_t kBlock = 4096;
    constexpr std::size_t kStretch = std::size_t{1} << 16;
    static std::vector<LaneFigures> figures(kBlock), pending_figures;  // reused across cases
    static std::vector<char> passed, candidate, all_passed, still;
    static std::vector<Tallies::PendingLane> pending;  // set aside (their figures in pending_figures), in flat order
    pending.clear();
    pending_figures.clear();
    Tallies::PassBatch batch(c.t, c.k.replay != nullptr);
    auto general = [&](std::int64_t i) {
      acc.name_passes(batch);
      c.driver.element_at(c.k, cs, i, e);
      per_element(e);
    };
    auto end_stretch = [&] {
      if (!pending.empty()) {
        all_passed.assign(pending.size(), 1);
        acc.block_candidates(pending_figures, all_passed, still, acc.lane_gate(/*ties=*/true));
        for (std::size_t j = 0; j < pending.size(); ++j) {
          if (!still[j]) continue;
          // (its profile point's slot, for add_error; reset however general() ends)
          struct Slot {
            Tallies& acc;
            ~Slot() { acc.profile_slot.reset(); }
          } slot{acc};
          if (full_stats) acc.profile_slot = pending[j].slot;
          general(pending[j].i);
        }
        acc.add_pass_list(batch, pending_figures.data(), pending.data(), still.data(), pending.size(), x, yr, full_stats);
        pending.clear();
        pending_figures.clear();
      }
      acc.add_passes(batch);
    };
    for (std::int64_t lo = 0; lo < numel; lo += kBlock) {
      const std::int64_t hi = std::min(numel, lo + kBlock);
      const auto n = static_cast<std::size_t>(hi - lo);
      passed.assign(n, 0);
      const Tallies::LaneGate gate = acc.lane_gate();
      bool through = false;
      grade_fast_block(c, *model, x, yr, lo, n, cs.params, figures.data(), passed.data());
      for (std::size_t k = 0; k < n && !through; ++k) through = passed[k] && gate.lets_through(figures[k]);
      if (through) {
        acc.block_candidates(std::span<const LaneFigures>(figures.data(), n), passed, candidate, gate);
      } else {
        candidate.assign(n, 0);
      }
      for (std::size_t k = 0; k < n; ++k) {
        k = acc.add_pass_run(batch, figures.data(), passed.data(), candidate.data(), x, yr, lo, k, n, full_stats);
        if (k == n) break;
        const std::int64_t i = lo + static_cast<std::int64_t>(k);
        if (!passed[k]) {
          general(i);
          continue;
        }
        const std::size_t slot = full_stats ? acc.error_profile.reserve(ordered_bits(c.t, x.bits(i)), x.value(i)) : 0;
        pending.push_back({i, slot});
        pending_figures.push_back(figures[k]);
      }
      if (pending.size() >= kStretch) end_stretch();
    }
    end_stretch();
  } else {
    c.driver.for_each_element(c.k, cs, per_element);
  }

  view.grades = grades;
  for (const auto& ch : checks) ch->on_case(view, acc);
  return acc.failed - failed_before;
}

}  // namespace kc::engine
