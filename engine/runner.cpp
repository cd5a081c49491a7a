// Orchestration of one kernel x dtype: the case list (the driver's sweeps,
// then random cases from per-case derived seeds), shrinking of the first
// failing random case, the statistics case, the run checks, and the result.
#include <algorithm>
#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/check.h"
#include "core/error.h"
#include "engine/accuracy_tier.h"
#include "engine/case_layout.h"
#include "engine/case_run.h"
#include "engine/conformance.h"
#include "engine/failure_text.h"
#include "generators/values.h"

namespace kc::engine {



namespace {

// The graded outputs the determinism check may keep per kernel x dtype.
constexpr std::int64_t kGradedBudget = std::int64_t{256} << 20;

// The first check that failed in a case (what its shrinking must keep).
// The check whose failure is shrunk: the first that failed with an element
// report kept (an element that fails two checks is reported under one and
// counted under the other: a cast's unspecified result fails the replay of
// the reference's steps and is reported as the unbounded element it is),
// else the first that failed.
std::string first_failed_check(const Tallies& t) {
  for (const auto& c : t.tallies)
    if (c.failed > 0 &&
        std::any_of(t.failures.begin(), t.failures.end(), [&](const ElementReport& f) { return f.check == c.name; }))
      return c.name;
  for (const auto& c : t.tallies)
    if (c.failed > 0) return c.name;
  return {};
}

bool still_fails(const Context& c, const CheckList& checks, std::int64_t id, const std::vector<int>& path,
                 const gen::Case& cs, const std::string& check) {
  Tallies scratch;
  grade_case(c, checks, scratch, id, path, cs, false);
  for (const auto& t : scratch.tallies)
    if (t.name == check) return t.failed > 0;
  return false;
}

// Greedy shrinking over the driver's candidates (drivers/shrinking.h):
// keep the first candidate that still fails `check`, until none does or the
// budget (300 candidates, opts.shrink_seconds of wall clock) is spent. Returns the indices chosen (replayable with --shrink).
std::vector<int> shrink(const Context& c, const CheckList& checks, std::int64_t id, gen::Case& cs,
                        const std::string& check) {
  std::vector<int> path;
  int budget = 300;  // candidates graded, and a time bound (a slow kernel or oracle)
  // (A shaped case's candidates are large cases, each graded on its sample:
  // the first halvings (the leading dims, then the main axis) cut it, and
  // 2 s bound the rest.)
  const double seconds = cs.shaped ? std::min(c.opts.shrink_seconds, 2.0) : c.opts.shrink_seconds;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto spent = [&] { return budget <= 0 || std::chrono::steady_clock::now() > deadline; };
  for (bool progress = true; progress && !spent();) {
    progress = false;
    const auto candidates = c.driver.shrink_candidates(c.k, cs);
    for (std::size_t i = 0; i < candidates.size() && !spent(); ++i, --budget) {
      if (!still_fails(c, checks, id, path, candidates[i], check)) continue;
      path.push_back(static_cast<int>(i));
      cs = candidates[i];
      progress = true;
      break;
    }
  }
  return path;
}

gen::Case replay_path(const Context& c, gen::Case cs, const std::vector<int>& path) {
  for (int step : path) {
    auto candidates = c.driver.shrink_candidates(c.k, cs);
    if (step < 0 || static_cast<std::size_t>(step) >= candidates.size())
      throw UsageError(fmt::format("--shrink: step {} does not exist (this case has {} shrink candidates there)", step,
                                   candidates.size()));
    cs = std::move(candidates[static_cast<std::size_t>(step)]);
  }
  return cs;
}

// FNV-1a 64 (offset basis 14695981039346656037, prime 1099511628211).
void fnv(std::uint64_t& h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
}
void digest_case(std::uint64_t& h, std::int64_t id, const gen::Case& cs) {
  fnv(h, static_cast<std::uint64_t>(id));
  for (const auto& t : cs.inputs) {
    fnv(h, static_cast<std::uint64_t>(t.dtype()));
    fnv(h, t.dims().size());
    for (auto d : t.dims()) fnv(h, static_cast<std::uint64_t>(d));
    for (std::int64_t i = 0, n = t.numel(); i < n; ++i) fnv(h, t.bits_at(i));
  }
  for (char ch : cs.params.to_string()) fnv(h, static_cast<unsigned char>(ch));
}

std::int64_t input_elements(const gen::Case& cs) {
  std::int64_t n = 0;
  for (const auto& t : cs.inputs) n += t.numel();
  return n;
}

// The first failure of the shrunk case, marked as such, with the replay of
// the shrunk case (and of its element, when that reproduces it alone).
void report_shrunk(const Context& c, const CheckList& checks, Tallies& acc, std::int64_t id, gen::Case cs,
                   const std::string& check) {
  const std::vector<int> path = shrink(c, checks, id, cs, check);
  Tallies scratch;
  // (Graded again for its report only: --dump holds the run's own cases.)
  RunOptions undumped = c.opts;
  undumped.dump = nullptr;
  grade_case(Context{c.k, c.t, c.backend, c.driver, undumped, c.statistics_case}, checks, scratch, id, path, cs, true);
  for (const ElementReport& first : scratch.failures) {
    if (first.check != check) continue;
    ElementReport f = first;
    f.check = "shrunk: " + f.check;
    f.shrunk_elements = input_elements(cs);
    f.case_index = id;
    f.shrink_path = path;
    const std::string shrunk_case = case_repro(c, id, path);
    f.message = fmt::format("(shrunk to {} input element{}) {}{}", f.shrunk_elements, f.shrunk_elements == 1 ? "" : "s",
                            f.message, f.repro == shrunk_case ? "" : "\n  shrunk case: " + shrunk_case);
    // The same input already listed under the check (the unshrunk case's
    // element): the shrunk report replaces it, so each is listed once.
    if (!f.input_hex.empty()) {
      const auto erased = std::erase_if(acc.failures, [&](const ElementReport& e) {
        return e.check == check && e.input_hex == f.input_hex && e.params == f.params;
      });
      for (auto& t : acc.tallies)
        if (t.name == check) t.kept -= static_cast<std::int64_t>(erased);
    }
    acc.failures.push_back(f);
    return;
  }
}

}  // namespace

gen::Case case_by_id(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                     std::int64_t id, const std::vector<int>& path) {
  const Context c{k, t, backend, drivers::of(k), opts};
  const CaseLayout l = case_layout(k, t, c.driver, opts);
  if (id < 0 || id >= l.total || (id >= l.random_end && id < l.statistics_end))
    throw UsageError(fmt::format("case {} is not a sweep, random or shaped case of this run", id));
  return replay_path(c, l.build(c, id), path);
}

KernelDTypeResult result_for(const contract::KernelSpec& k, DType t) {
  KernelDTypeResult res;
  res.kernel = std::string(k.name);
  res.family = std::string(k.family);
  res.dtype = t;
  return res;
}

KernelDTypeResult grade_given_case(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                                   const gen::Case& cs) {
  const Context c{k, t, backend, drivers::of(k), opts};
  const CheckList checks = handed_checks(opts).for_run(k, t, std::nullopt, tier_covers(opts, k, t));
  KernelDTypeResult res = result_for(k, t, opts);
  Tallies acc;
  GradedOutputs graded(kGradedBudget);
  acc.graded = &graded;
  grade_case(c, checks, acc, 0, {}, cs, true);
  record_calls(c, acc, 0, {}, &cs);
  const RunView run{c, &cs, 0, [&](std::int64_t) { return cs; }};
  finish_checks(c, checks, run, acc, graded);
  res.cases = 1;
  acc.finish(c, res);
  return res;
}

std::int64_t case_count(const contract::KernelSpec& k, DType t, const RunOptions& opts) {
  return case_layout(k, t, drivers::of(k), opts).total;
}

KernelDTypeResult result_for(const contract::KernelSpec& k, DType t, const RunOptions& opts) {
  KernelDTypeResult res = result_for(k, t);
  const contract::Accuracy* a = graded_accuracy(opts, k, t);
  res.tier = TierResult{.name = opts.tier ? opts.tier->name : "reference",
                        .bound = a ? contract::bound_summary(*a) : "",
                        .covered = !opts.tier || tier_covers(opts, k, t)};
  if (a) {
    res.tier.kind = contract::accuracy_kind_name(a->kind);
    res.tier.max_frac_ulp = a->max_frac_ulp;
    res.tier.max_distance = a->max_distance;
    res.tier.bound_param = a->param_bound ? std::string(a->bound_param) : "";
  }
  return res;
}

std::vector<DType> graded_dtypes(const contract::KernelSpec& k) {
  std::vector<DType> v;
  for (const auto& a : k.accuracy) v.push_back(a.dtype);
  return v;
}

namespace {

// Case `id` of a run as the loop builds it (and as --case replays it).
struct CasePlan {
  const Context& c;
  const CaseLayout& l;

  gen::Case operator()(std::int64_t id) const {
    gen::Case cs = l.build(c, id);
    if (!c.opts.shrink_path.empty()) cs = replay_path(c, std::move(cs), c.opts.shrink_path);
    return cs;
  }
};

// What the loop over the cases leaves.
struct CaseLoop {
  std::int64_t done = 0;
  std::uint64_t digest = 14695981039346656037ull;
  std::optional<gen::Case> first_valid;
  std::int64_t first_valid_id = 0;
  bool shrunk = false;
  std::string stopped;  // where a stop request ended the run
};

// One case of the run: graded, counted, kept as the first valid one, and
// the first failing one shrunk; false where a stop request abandoned its call.
bool run_case(const Context& c, const CheckList& checks, Tallies& acc, const CasePlan& plan, std::int64_t id,
              CaseLoop& loop) {
  const RunOptions& opts = c.opts;
  const bool statistics = id >= plan.l.random_end && id < plan.l.statistics_end;
  const gen::Case cs = plan(id);
  digest_case(loop.digest, id, cs);
  note_shape(c, acc.shapes, cs, plan.l.shaped_at(id));
  const std::int64_t before = acc.elements;
  acc.case_worst = 0;
  try {
    const std::int64_t n_failed = grade_case(c, checks, acc, id, opts.shrink_path, cs, true, statistics);
    if (const ShapedEntry* s = plan.l.shaped_at(id)) {
      if (n_failed > 0) acc.shapes.failed_problems.push_back(s->origin);
      if (!s->tail)
        acc.shapes.lines.push_back({s->origin, id, acc.elements - before, n_failed, acc.case_worst, acc.case_worst_normalized});
    }
    if (opts.progress) {
      opts.progress->elements += acc.elements - before;
      opts.progress->failures += n_failed;
    }
    if (!statistics && (!loop.first_valid || loop.first_valid->inputs.front().numel() == 0)) {
      loop.first_valid = cs;
      loop.first_valid_id = id;
    }
    if (n_failed > 0 && !loop.shrunk && opts.shrink_path.empty() && !statistics) {
      loop.shrunk = true;
      report_shrunk(c, checks, acc, id, cs, first_failed_check(acc));
    }
  } catch (const Interrupted&) {
    loop.stopped = fmt::format("stopped during case {} of {} (its call was abandoned)", id, plan.l.total);
    return false;
  }
  record_calls(c, acc, id, opts.shrink_path, &cs);
  return true;
}

}  // namespace

KernelDTypeResult run_kernel_dtype(const contract::KernelSpec& k, DType t, const Backend& backend,
                                   const RunOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  // A fresh worker (a plug-in's): no state or leak of another kernel x dtype reaches this one.
  backend.fresh_process();
  const Context c{k, t, backend, drivers::of(k), opts};
  const CheckList checks = handed_checks(opts).for_run(
      k, t, opts.bad_input_only ? std::optional<std::string_view>("bad_input") : std::nullopt, tier_covers(opts, k, t));
  KernelDTypeResult res = result_for(k, t, opts);
  Tallies acc;
  const CaseLayout layout = case_layout(k, t, c.driver, opts);
  res.exhaustive = layout.sweeps > 0 && c.driver.sweeps_are_exhaustive(k, t);
  acc.shapes.profile = opts.shapes ? opts.shapes->name : "tiny";
  const CasePlan plan{c, layout};
  CaseLoop loop;
  GradedOutputs graded(kGradedBudget);
  acc.graded = &graded;
  for (std::int64_t id = 0; id < layout.total; ++id) {
    if (opts.only_case && *opts.only_case != id) continue;
    if (opts.stop && opts.stop->load()) {
      loop.stopped = fmt::format("stopped after {} of {} cases", loop.done, layout.total);
      break;
    }
    ++loop.done;
    if (!run_case(c, checks, acc, plan, id, loop)) {
      --loop.done;
      break;
    }
  }
  acc.graded = nullptr;
  res.cases = loop.done;
  res.inputs_digest = loop.digest;
  if (loop.stopped.empty()) {
    const RunView run{c, loop.first_valid ? &*loop.first_valid : nullptr, loop.first_valid_id, plan};
    if (!finish_checks(c, checks, run, acc, graded))
      loop.stopped = fmt::format("stopped during the run's checks after its {} cases", layout.total);
  }
  if (opts.progress) ++opts.progress->results;
  if (!loop.stopped.empty()) {  // the checks of a whole run would judge a part of it: not graded
    res.interrupted = true;
    acc.not_graded(acc.tally("run: interrupted by a signal", CheckKind::run), loop.stopped);
  }
  acc.finish(c, res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

ElementReport replay_element(const contract::KernelSpec& k, DType t, const Backend& backend,
                             const std::vector<std::uint64_t>& bits, const Params& params, const RunOptions& opts,
                             bool& failed) {
  const Context c{k, t, backend, drivers::of(k), opts};
  const auto cs = bits.size() == k.inputs.size() ? c.driver.element_case(k, t, bits, params) : std::nullopt;
  if (!cs)
    throw UsageError(fmt::format("--input replays one element of an elementwise kernel: {} needs {} bit pattern(s) "
                                 "separated by commas; use --case for {}",
                                 k.name, k.inputs.size(), k.name));
  const auto out = backend.run(k.name, cs->inputs, cs->params);
  if (out.size() != 1 || out[0].numel() != 1) throw UsageError("the backend returned no single output element");
  ElementReport r;
  c.driver.for_each_element(k, *cs, [&](const drivers::Element& e) {
    const double yv = out[0].value_at(0);
    const Grade g = grade_element(c, e, yv, out[0].bits_at(0), params, GradeMode::exact);
    // Named as the run names it (engine/case_run.cpp): an element that
    // meets the portable contract but not the reference's bits or choices
    // fails the reference profile's semantics or reference-choice check.
    const std::string graded = g.special ? "special:" + g.rule : "accuracy";
    std::vector<std::string> checks;
    if (!g.pass) checks.push_back(graded);
    if (opts.profile == Profile::reference) {
      if (g.semantics_failed()) checks.push_back(kSemanticsCheck);
      if (!g.reference_choice.empty()) checks.push_back(kReferenceChoiceCheck);
    }
    // The pointwise properties too (checks/pointwise.cpp: holds(x, y) on the
    // element), so that a property failure a run or sweep found replays as one.
    const auto* scalar = std::get_if<oracle::Scalar>(&e.in);
    for (const auto& p : k.properties)
      if (p.check == "pointwise" && p.holds && p.applies_to(t) && scalar && !std::isnan(scalar->x) &&
          !p.holds(scalar->x, yv))
        checks.push_back("property:" + std::string(p.name));
    failed = !checks.empty();
    r = element_report(c, failed ? checks.front() : graded, -1, {}, *cs, e, yv, out[0].bits_at(0), g,
                       exact_text(c, e, g), true);
    if (!g.reference_choice.empty()) r.message += "\n  choice:            " + g.reference_choice;
    for (std::size_t i = 1; i < checks.size(); ++i)
      r.message += fmt::format("\n  also fails:        {} {}: {}", k.name, dtype_name(t), checks[i]);
  });
  return r;
}

std::vector<std::string> check_table(const std::vector<contract::KernelSpec>& table, const CheckRegistry& checks) {
  std::vector<std::string> problems;
  for (const auto& k : table) {
    const drivers::Driver* d = drivers::find(k.driver);
    if (!d) {
      problems.push_back(fmt::format("kernel '{}': driver '{}' does not exist", k.name, k.driver));
      continue;
    }
    if (std::string why = d->check_entry(k); !why.empty()) problems.push_back(fmt::format("kernel '{}': {}", k.name, why));
    if (k.outputs.size() > 1 && !d->several_outputs())
      problems.push_back(fmt::format("kernel '{}': {} outputs, but driver '{}' gives one", k.name, k.outputs.size(), k.driver));
    for (auto& p : checks.validate_properties(k)) problems.push_back(std::move(p));
    for (const auto& a : k.accuracy)
      if (a.accuracy.check_case_statistics && !d->has_statistics_case(k, a.dtype))
        problems.push_back(fmt::format("kernel '{}': {} asks for per-case statistics, but driver '{}' has no "
                                       "statistics case", k.name, dtype_name(a.dtype), k.driver));
    if (k.accuracy.empty()) problems.push_back(fmt::format("kernel '{}': no accuracy model for any dtype", k.name));
    // Every kernel of the table is deterministic: the reference profile
    // compares each one's bits with the reference's replayed steps.
    if (!k.math.has_replay())
      problems.push_back(fmt::format("kernel '{}': no replay of the reference's steps (.math's second function, "
                                     "oracles/replay.h)", k.name));
  }
  return problems;
}

}  // namespace kc::engine
