#include "engine/case_run.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "engine/case_grader.h"
#include "engine/failure_text.h"

namespace kc::engine {

namespace {

std::string case_key(std::int64_t case_id) { return fmt::format("case {}", case_id); }

// The contract's allowed rejection that `e` is, for this call (the rule and
// operand it names, a call it applies to); nullptr where none is.
const contract::AllowedRejection* allowed_rejection(const contract::KernelSpec& k, const KernelError& e, const gen::Case& cs) {
  for (const auto& a : k.allowed_rejections)
    try {
      if (a.rule == e.rule() && a.operand == e.operand() && a.applies(cs.inputs, cs.params)) return &a;
    } catch (const std::exception&) {  // (a parameter the predicate reads is missing: not that call)
    }
  return nullptr;
}

// The call itself; a valid call that throws fails the case (but for a
// rejection the contract allows).
bool call(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path, const gen::Case& cs,
          std::vector<Tensor>& out) {
  auto& run = acc.tally("accepts valid input", CheckKind::run);
  auto& returns = acc.tally(kIsolationCheck, CheckKind::isolation);
  try {
    out = c.backend.run(c.k.name, cs.inputs, cs.params);
    acc.record(c, returns, true);
    acc.record(c, run, true);
    // (The case kept beside its outputs where rebuilding it costs a
    // RapidCheck generation: a random case, not a shaped one, whose inputs
    // are linear to make and may be hundreds of MB.)
    if (acc.graded) acc.graded->add(case_id, out, path.empty() && !cs.shaped ? &cs : nullptr);
    return true;
  } catch (const KernelFault& e) {
    // Crash, abort, exception, hang, a write outside a buffer: the kind leads the message.
    const std::string what = fmt::format("{}: {}", e.kind(), e.what());
    acc.record(c, returns, false, case_key(case_id), [&] { return case_report(c, returns.name, case_id, path, cs, what); });
    return false;
  } catch (const KernelError& e) {
    const contract::AllowedRejection* allowed = allowed_rejection(c.k, e, cs);
    if (!allowed) {
      const std::string what = fmt::format("a valid call failed: {}", e.what());
      acc.record(c, run, false, case_key(case_id), [&] { return case_report(c, run.name, case_id, path, cs, what); });
      return false;
    }
    // A rejection the operation allows (contracts/contract.h
    // AllowedRejection): correct, and not the reference's answer.
    acc.record(c, returns, true);
    acc.record(c, run, true);
    auto& as_reference = acc.tally("accepts valid input, as the reference does", CheckKind::run, Profile::reference);
    acc.record(c, as_reference, false, case_key(case_id), [&] {
      return case_report(c, as_reference.name, case_id, path, cs,
                         fmt::format("rejected ({}), which the operation allows ({}) where the reference answers",
                                     e.what(), allowed->why));
    });
    return false;
  } catch (const std::exception& e) {
    const std::string what = fmt::format("a valid call failed: {}", e.what());
    acc.record(c, run, false, case_key(case_id), [&] { return case_report(c, run.name, case_id, path, cs, what); });
    return false;
  }
}

// "dq: " naming an output of several, "" for a kernel's one output.
std::string output_prefix(const drivers::Expectation::Part& p) { return p.name.empty() ? "" : p.name + ": "; }

bool output_matches(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path,
                    const gen::Case& cs, const std::vector<Tensor>& out, const drivers::Expectation& want) {
  auto& shape = acc.tally("output shape and dtype", CheckKind::output);
  const std::size_t n = want.parts.size();
  auto part_ok = [&](std::size_t i) {
    const auto& p = want.parts[i];
    return out[i].dims() == p.dims && out[i].dtype() == p.dtype && out[i].consistent();
  };
  bool ok = out.size() == n;
  for (std::size_t i = 0; ok && i < n; ++i) ok = part_ok(i);
  acc.record(c, shape, ok, case_key(case_id), [&] {
    std::string what;
    if (out.size() != n) {
      // (Named outputs are listed, each with its shape.)
      what = fmt::format("expected {} output{}, got {}", n, n == 1 ? "" : "s", out.size());
      std::string listed;
      for (const auto& p : want.parts)
        if (!p.name.empty()) listed += fmt::format("{}{} {}", listed.empty() ? " (expected: " : ", ", p.name, dims_to_string(p.dims));
      what += listed.empty() ? "" : listed + ")";
    } else {
      std::size_t i = 0;
      while (i + 1 < n && part_ok(i)) ++i;
      const auto& p = want.parts[i];
      what = fmt::format("{}expected {} {}, got {} {} ({} bytes)", output_prefix(p), dims_to_string(p.dims),
                         dtype_name(p.dtype), dims_to_string(out[i].dims()), dtype_name(out[i].dtype()),
                         out[i].byte_size());
    }
    return case_report(c, shape.name, case_id, path, cs, what);
  });
  return ok;
}

void layout(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path, const gen::Case& cs,
            const Tensor& y, const drivers::Expectation& want) {
  // Zero-copy is the reference's choice (a copy is as correct); never
  // aliasing an input is portable.
  auto& t = want.zero_copy ? acc.tally("layout: zero-copy (shares the input's storage)", CheckKind::layout, Profile::reference)
                           : acc.tally("layout: fresh output buffer", CheckKind::layout);
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

}  // namespace

void record_calls(const Context& c, Tallies& acc, std::int64_t case_id, const std::vector<int>& path,
                  const gen::Case* cs) {
  Backend::CallLog log = c.backend.take_call_log();
  for (const std::string& name : c.backend.call_checks()) {
    // (The kind is the name's first word: "isolation: ...", "output: ...";
    // a backend's check of another word is one of its calls' isolation.)
    auto& tally = acc.tally(name, kCheckKinds.find(name.substr(0, name.find(':'))).value_or(CheckKind::isolation));
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
      r.repro = seed_replay(c);
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
  if (full_stats) {
    acc.add_shape(cs.inputs.front());
    acc.fracs.expect(static_cast<std::size_t>(want.numel()));
  }
  CaseView view{c, cs, case_id, path, out, out.front(), statistics_case, {}};
  bool keep_grades = false, keep_exacts = false;
  for (const auto& ch : checks) keep_grades |= ch->needs_grades(view), keep_exacts |= ch->needs_exacts(view);
  CaseGrader grader(view, acc, want, full_stats, {.grades = keep_grades, .exacts = keep_exacts});
  grader.grade_all();
  view.grades = grader.grades();
  view.exacts = grader.exacts();
  for (const auto& ch : checks) ch->on_case(view, acc);
  return acc.failed - failed_before;
}

}  // namespace kc::engine
