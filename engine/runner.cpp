// Orchestration of one kernel x dtype: the case list (the driver's sweeps,
// then random cases from per-case derived seeds), shrinking of the first
// failing random case, the statistics case, the run checks, and the result.
#include <chrono>
#include <stdexcept>

#include <fmt/format.h>

#include "checks/check.h"
#include "core/error.h"
#include "engine/case_run.h"
#include "engine/conformance.h"
#include "engine/failure_text.h"
#include "generators/values.h"

namespace kc::engine {

namespace {

gen::Case sweep_case(const Context& c, std::int64_t sweep) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "sweep",
                                              static_cast<std::uint64_t>(sweep));
  return c.driver.sweep_case(c.k, c.t, seed, static_cast<int>(sweep));
}

rc::Shrinkable<gen::Case> random_case(const Context& c, std::int64_t id) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "case", static_cast<std::uint64_t>(id));
  return c.driver.random_case(c.k, c.t)(rc::Random(seed), gen::kMaxSize);
}

// Follow RapidCheck's shrink tree while the case still fails; returns the
// path of shrink indices (replayable with --shrink).
std::vector<int> shrink(const Context& c, const CheckList& checks, std::int64_t id, rc::Shrinkable<gen::Case> sh,
                        gen::Case& smallest) {
  std::vector<int> path;
  int budget = 400;
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    auto seq = sh.shrinks();
    int idx = 0;
    while (auto next = seq.next()) {
      if (--budget <= 0) break;
      Tallies scratch;
      if (grade_case(c, checks, scratch, id, path, next->value(), false) > 0) {
        path.push_back(idx);
        sh = *next;
        progress = true;
        break;
      }
      ++idx;
    }
  }
  smallest = sh.value();
  return path;
}

gen::Case replay_path(rc::Shrinkable<gen::Case> sh, const std::vector<int>& path) {
  for (int step : path) {
    auto seq = sh.shrinks();
    int idx = 0;
    bool found = false;
    while (auto next = seq.next()) {
      if (idx++ == step) {
        sh = *next;
        found = true;
        break;
      }
    }
    if (!found) throw UsageError(fmt::format("--shrink: step {} does not exist in this case's shrink tree", step));
  }
  return sh.value();
}

// The first failure of the shrunk case, marked as such, with both replays.
void report_shrunk(const Context& c, const CheckList& checks, Tallies& acc, std::int64_t id,
                   const rc::Shrinkable<gen::Case>& sh) {
  gen::Case smallest;
  const std::vector<int> path = shrink(c, checks, id, sh, smallest);
  Tallies scratch;
  grade_case(c, checks, scratch, id, path, smallest, true);
  if (scratch.failures.empty()) return;
  ElementReport f = scratch.failures.front();
  f.check = "shrunk: " + f.check;
  f.message = "(shrunk) " + f.message + "\n  shrunk case: " + case_repro(c, id, path);
  acc.failures.push_back(f);
}

}  // namespace

std::int64_t case_count(const contract::KernelSpec& k, DType t, const RunOptions& opts) {
  const std::int64_t sweeps = opts.exhaustive_halves ? drivers::of(k).sweep_count(k, t, opts.sweeps) : 0;
  return sweeps + opts.cases;
}

std::vector<DType> graded_dtypes(const contract::KernelSpec& k) {
  std::vector<DType> v;
  for (const auto& a : k.accuracy) v.push_back(a.dtype);
  return v;
}

KernelDTypeResult run_kernel_dtype(const contract::KernelSpec& k, DType t, const Backend& backend,
                                   const RunOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  const Context c{k, t, backend, drivers::of(k), opts};
  const CheckList checks = checks::for_run(k, t);
  KernelDTypeResult res;
  res.kernel = std::string(k.name);
  res.family = std::string(k.family);
  res.dtype = t;

  Tallies acc;
  const std::int64_t sweeps = opts.exhaustive_halves ? c.driver.sweep_count(k, t, opts.sweeps) : 0;
  res.exhaustive = sweeps > 0 && c.driver.sweeps_are_exhaustive(k, t);
  const std::int64_t total = sweeps + opts.cases;
  bool shrunk = false;
  std::optional<gen::Case> first_valid;
  std::int64_t first_valid_id = 0, done = 0;
  for (std::int64_t id = 0; id < total; ++id) {
    if (opts.only_case && *opts.only_case != id) continue;
    if (opts.stop && opts.stop->load()) {
      res.interrupted = true;
      break;
    }
    ++done;
    if (id < sweeps) {
      const gen::Case cs = sweep_case(c, id);
      grade_case(c, checks, acc, id, {}, cs, true);
      if (!first_valid) first_valid = cs;
      continue;
    }
    auto sh = random_case(c, id);
    const gen::Case cs = opts.shrink_path.empty() ? sh.value() : replay_path(sh, opts.shrink_path);
    const std::int64_t n_failed = grade_case(c, checks, acc, id, opts.shrink_path, cs, true);
    if (!first_valid || first_valid->inputs.front().numel() == 0) first_valid = cs;
    if (n_failed > 0 && !shrunk && opts.shrink_path.empty()) {
      shrunk = true;
      report_shrunk(c, checks, acc, id, sh);
    }
  }
  if (opts.only_case) first_valid_id = *opts.only_case;
  res.cases = done;
  if (res.interrupted) {  // the checks of a whole run would judge a part of it: not graded
    acc.not_graded(acc.tally("run: interrupted by a signal", "run"),
                   fmt::format("stopped after {} of {} cases", done, total));
    acc.finish(c, res);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return res;
  }
  // The dedicated case of the per-case statistics (case -2), where the model asks for them.
  if (const auto* m = k.accuracy_for(t); m && m->check_case_statistics && !opts.only_case) {
    const auto sc = c.driver.statistics_case(k, t, gen::derive_seed(opts.seed, k.name, dtype_name(t), "statistics", 0));
    if (sc) {
      grade_case(c, checks, acc, -2, {}, *sc, true, true);
      ++res.cases;
    }
  }
  const checks::RunView run{c, first_valid ? &*first_valid : nullptr, first_valid_id};
  for (const auto& ch : checks) ch->on_finish(run, acc);
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
    const Grade g = grade_element(c, e, yv, params);
    failed = !g.pass || (g.semantics_ok && !*g.semantics_ok);
    r = element_report(c, g.special ? "special:" + g.rule : "accuracy", -1, {}, *cs, e, yv, out[0].bits_at(0), g,
                       exact_text(c, e, params, g));
  });
  return r;
}

std::vector<std::string> check_table(const std::vector<contract::KernelSpec>& table) {
  std::vector<std::string> problems;
  for (const auto& k : table) {
    const drivers::Driver* d = drivers::find(k.driver);
    if (!d) {
      problems.push_back(fmt::format("kernel '{}': driver '{}' does not exist", k.name, k.driver));
      continue;
    }
    if (std::string why = d->check_entry(k); !why.empty()) problems.push_back(fmt::format("kernel '{}': {}", k.name, why));
    for (auto& p : checks::validate_properties(k)) problems.push_back(std::move(p));
    for (const auto& a : k.accuracy)
      if (a.accuracy.check_case_statistics && !d->statistics_case(k, a.dtype, 0))
        problems.push_back(fmt::format("kernel '{}': {} asks for per-case statistics, but driver '{}' has no "
                                       "statistics case", k.name, dtype_name(a.dtype), k.driver));
    if (k.accuracy.empty()) problems.push_back(fmt::format("kernel '{}': no accuracy model for any dtype", k.name));
  }
  return problems;
}

const std::vector<contract::KernelSpec>& checked_kernels() {
  static const std::vector<contract::KernelSpec>& table = [] () -> const std::vector<contract::KernelSpec>& {
    const auto& t = contract::all_kernels();
    const auto problems = check_table(t);
    if (!problems.empty())
      throw std::logic_error(fmt::format("the contract table is inconsistent:\n  {}", fmt::join(problems, "\n  ")));
    return t;
  }();
  return table;
}

}  // namespace kc::engine
