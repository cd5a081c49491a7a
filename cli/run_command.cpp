// `kconform run`: plan the kernel x dtype results, grade them, print the
// failures and the summary, and write the results and the site. The outputs
// (--out, --dump) are checked before any work starts and written as a
// whole or not at all (reports/output_folder.h); a signal stops the run at
// its next case boundary with the results so far.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check.h"
#include "cli/shapes_option.h"
#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/plan.h"
#include "cli/progress.h"
#include "cli/run_journal.h"
#include "cli/saved_case.h"
#include "cli/signals.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "engine/failure_text.h"
#include "engine/findings.h"
#include "engine/parallel.h"
#include "reports/output_folder.h"
#include "reports/results_json.h"
#include "reports/site/site.h"

namespace kc::cli {

namespace {

// One line per result, led by what decides it: on a failure the check that
// failed and its figure against its bound, with the count.
std::string summary_line(const engine::KernelDTypeResult& r) {
  // XFAIL: failed as the backend declared it would; XPASS: passed although
  // declared to fail (counted as a failure: a stale declaration hides nothing).
  const bool expected = !r.declared.expected_failure.empty();
  const char* tag = r.verdict == engine::Verdict::pass ? (expected ? "XPASS" : "PASS")
                    : r.verdict == engine::Verdict::fail ? (expected ? "XFAIL" : "FAIL")
                                          : "----";
  std::string s = fmt::format("{:<4} {:<11} {:<5} {}", tag, r.kernel, dtype_name(r.dtype), r.headline);
  if (r.findings.size() > 1) s += fmt::format(" (and {} more finding{})", r.findings.size() - 1, r.findings.size() > 2 ? "s" : "");
  s += fmt::format("; {} elements graded{}", r.elements, r.exhaustive ? " (exhaustive)" : "");
  // (Shaped cases: how many, and the largest.)
  const engine::ShapeReport& sh = r.shapes;
  if (sh.tail_cases + sh.problem_cases > 0)
    s += fmt::format("; {} tails, {} problem line{}, largest {}", sh.tail_cases, sh.problem_cases,
                     sh.problem_cases == 1 ? "" : "s", sh.largest);
  if (r.differs > 0) {
    // Per kind (several tallies may share one: "5856 semantics, 109
    // semantics" read as a repetition), in the order the kinds first appear.
    std::vector<std::pair<engine::CheckKind, std::int64_t>> kinds;
    for (const auto& c : r.checks) {
      if (c.differs <= 0) continue;
      auto at = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == c.kind; });
      if (at == kinds.end()) kinds.emplace_back(c.kind, c.differs);
      else at->second += c.differs;
    }
    std::vector<std::string> which;
    for (const auto& [kind, n] : kinds) which.push_back(fmt::format("{} {}", n, engine::kCheckKinds.name(kind)));
    s += fmt::format("; differs from the reference: {}", fmt::join(which, ", "));
  }
  if (r.interrupted) s += fmt::format(" (interrupted after {} cases: not graded)", r.cases);
  if (!r.declared.metric.empty())
    s += fmt::format("; claim {} <= {}: {} (measured {})", r.declared.metric, engine::figure_text(r.declared.claimed),
                     engine::claim_verdict_name(r.declared.verdict), engine::figure_text(r.declared.measured));
  if (expected) s += fmt::format("; expected to fail: {}", r.declared.expected_failure);
  if (r.tier.name != "reference")
    s += r.tier.covered ? fmt::format("; accuracy tier {}: {}", r.tier.name, r.tier.bound)
                        : fmt::format("; not in accuracy tier {}: the contract's bound", r.tier.name);
  return s;
}

engine::RunOptions run_options(const RunCommand& o) {
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.seed = parse_seed(o.seed, "--seed");
  opts.cases = o.cases;
  opts.sweeps = o.sweeps;
  opts.exhaustive_halves = !o.no_exhaustive;
  if (!o.only_case.empty()) opts.only_case = parse_case(o.only_case);
  opts.shrink_path = parse_path(o.shrink);
  opts.backend = o.backend;
  opts.isolation = o.isolation;
  opts.profile = profile_option(o.profile, o.backend);
  if (!opts.shrink_path.empty() && !opts.only_case) throw UsageError("--shrink needs --case");
  if (!o.params.empty() && o.input.empty()) throw UsageError("--params goes with --input (the parameters of that element)");
  if (o.bad_input && !opts.only_case) throw UsageError("--bad-input replays the bad-input checks of one case: add --case N (as printed)");
  opts.bad_input_only = o.bad_input;
  opts.fast_oracle = !o.exact_oracle;
  opts.shapes = shapes_option(o.shapes, o.max_case_mb);
  opts.exact_budget = o.exact_budget;
  opts.stop = &stop_signal();
  return opts;
}

// A replayed case must be one of the run's.
void check_case_in_range(const Plan& plan, const engine::RunOptions& opts) {
  if (!opts.only_case) return;
  for (const auto& [k, t] : plan) {
    const std::int64_t n = engine::case_count(*k, t, opts);
    if (*opts.only_case >= n)
      throw UsageError(fmt::format("--case {} is outside this run: {} {} has cases 0 to {} (with these --cases, "
                                   "--sweeps and --no-exhaustive)",
                                   *opts.only_case, k->name, dtype_name(t), n - 1));
  }
}

int replay_one_element(const RunCommand& o, const Plan& plan, const Backend& backend, const engine::RunOptions& opts) {
  if (plan.size() != 1) throw UsageError("--input needs exactly one --kernel and one --dtype");
  const auto& [k, t] = plan[0];
  const auto bits = parse_bits(o.input, t);
  const Params params = parse_params_for(*k, o.params);
  bool failed = false;
  const auto rep = engine::replay_element(*k, t, backend, bits, params, opts, failed);
  fmt::print("{}\n{}\n", failed ? "FAIL" : "PASS", rep.message);
  return failed ? 1 : 0;
}

// What decides a run's results (timings and presentation aside): a
// journal resumes only a run with the same. A plug-in is named by its
// path, size and modification time, so that a rebuilt library starts over.
nlohmann::json run_identity(const RunCommand& o) {
  nlohmann::json id{{"kernels", o.kernels}, {"dtypes", o.dtypes},     {"family", o.family},
                    {"seed", o.seed},       {"cases", o.cases},       {"sweeps", o.sweeps},
                    {"no_exhaustive", o.no_exhaustive}, {"backend", o.backend}, {"profile", o.profile},
                    {"case", o.only_case},  {"shrink", o.shrink},     {"bad_input", o.bad_input},
                    {"exact_oracle", o.exact_oracle}, {"isolation", engine::isolation_flags(o.isolation)}};
  id = with_accuracy(std::move(id), o.accuracy);
  if (o.backend.starts_with("plugin:")) {
    std::error_code ec;
    const std::filesystem::path lib = o.backend.substr(7);
    id["plugin_file"] = {{"bytes", std::filesystem::file_size(lib, ec)},
                         {"modified", std::filesystem::last_write_time(lib, ec).time_since_epoch().count()}};
  }
  return id;
}

std::string journal_key(const contract::KernelSpec& k, DType t) { return fmt::format("{}.{}", k.name, dtype_name(t)); }

// The run's outputs, opened before any work: a bad path is exit 2 now, not
// after the run.
struct RunOutputs {
  std::optional<reports::OutputFolder> folder;
  // Each finished result is journaled (cli/run_journal.h): a killed run resumes.
  std::optional<RunJournal> journal;
  std::optional<reports::StagedFile> dump;
};

// Opens the outputs the options name, checked against each other; --dump's stream goes to `opts`.
void open_outputs(const RunCommand& o, RunOutputs& out, engine::RunOptions& opts) {
  if (!o.out.empty()) out.folder.emplace(o.out, reports::FolderKind::results);
  if (!o.resume.empty() && (o.out.empty() || !std::filesystem::equivalent(o.resume, o.out)))
    throw UsageError(fmt::format("--resume {}: the run to resume wrote to --out {}", o.resume, o.out.empty() ? "(none)" : o.out));
  if (!o.resume.empty() && !o.dump.empty())
    throw UsageError("--dump cannot be resumed (the elements of the results already graded are not kept); run again");
  if (out.folder) out.journal.emplace(o.out, run_identity(o), o.argv, !o.resume.empty());
  if (!o.dump.empty()) {
    if (out.folder && reports::is_within(o.dump, o.out))
      throw UsageError(fmt::format("--dump '{}' lies inside --out '{}', which the run replaces as a whole", o.dump, o.out));
    out.dump.emplace(o.dump);
    opts.dump = &out.dump->stream();
  }
}

// What the results document says of the run besides its results.
engine::RunMetadata run_metadata(const RunCommand& o, const engine::RunOptions& opts, const Backend& backend) {
  engine::RunMetadata meta = run_metadata_of(opts, opts.seed, o.backend, o.command_line, backend);
  meta.cases_per_kernel = o.cases;
  return meta;
}

// A graded result as a worker hands it over: its document entry, its
// summary line, its failures' text and what the exit code counts.
std::string handed_over(const engine::KernelDTypeResult& r) {
  nlohmann::json failures = nlohmann::json::array();
  if (r.verdict == engine::Verdict::fail)
    for (const auto& f : r.failures) failures.push_back(f.message);
  return nlohmann::json{{"kernel", r.kernel},
                        {"family", r.family},
                        {"result", reports::result_json(r)},
                        {"summary", summary_line(r)},
                        {"failures", failures},
                        {"verdict", engine::verdict_name(r.verdict)},
                        {"expected", r.declared.expected_outcome == "failed as expected"},
                        {"unexpected_pass", r.declared.expected_outcome == "passed unexpectedly"},
                        {"interrupted", r.interrupted}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Journals a finished result. A journal that cannot be written (a full
// disk) costs the run its resumability, not its results: said once, then
// the run goes on.
void journal_result(std::optional<RunJournal>& journal, const std::string& key, const std::string& text) {
  try {
    journal->put(key, text);
  } catch (const std::exception& e) {
    fmt::print(stderr, "kconform: the run's journal cannot be written ({}); the run goes on, but cannot be resumed\n",
               e.what());
    journal.reset();
  }
}

// The results the run finished, in plan order, with --dump's parts joined in that order.
std::vector<reports::ResultEntry> finished_entries(const engine::ParallelResult& graded, std::size_t planned,
                                                   const std::optional<engine::TempFolder>& dump_parts, RunOutputs& out) {
  std::vector<reports::ResultEntry> entries;
  for (std::size_t i = 0; i < planned; ++i) {
    if (!graded.finished[i]) continue;
    auto r = nlohmann::json::parse(graded.outcomes[i]);
    entries.push_back({r["kernel"], r["family"], std::move(r["result"])});
    if (dump_parts) {
      std::ifstream in(dump_parts->path() / std::to_string(i), std::ios::binary);
      std::copy(std::istreambuf_iterator<char>(in), {}, std::ostreambuf_iterator<char>(out.dump->stream()));
    }
  }
  return entries;
}

// What the printed results add up to: the failures that decide the exit code, and the expected ones.
struct RunCounts {
  int failures = 0, expected_failures = 0;
};

// The run's summary line, then --dump and the results written; the exit code.
int finish_run(const std::vector<reports::ResultEntry>& entries, engine::RunMetadata& meta, std::size_t planned,
               const RunCounts& counts, int jobs, std::chrono::steady_clock::time_point start, RunOutputs& out,
               const Backend* backend) {
  const int sig = stop_signal().load();
  if (sig) {
    meta.interrupted_by = signal_name(sig);
    meta.planned = static_cast<std::int64_t>(planned);
  }
  meta.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::size_t passed = 0;
  for (const auto& r : entries) passed += r.result["verdict"] == "pass";
  fmt::print("{} of {} kernel x dtype results pass{} ({:.1f} s{}){}\n", passed, planned,
             counts.expected_failures ? fmt::format(", {} failed as the backend expected", counts.expected_failures) : "",
             meta.duration_s, jobs > 1 ? fmt::format(", {} processes", jobs) : "",
             sig ? fmt::format("; interrupted by {} after {} started", signal_name(sig), entries.size()) : "");
  std::fflush(stdout);
  if (out.dump) out.dump->commit();
  if (out.folder) {
    if (sig && out.journal) out.journal->keep_in(*out.folder);  // a stopped run stays resumable
    write_results(*out.folder, reports::document_json(meta, entries, backend));
    fmt::print("wrote {} and {}\n", (out.folder->dir() / "results.json").string(),
               (out.folder->dir() / "site" / "index.html").string());
  }
  if (sig) return 128 + sig;
  return counts.failures > 0 ? 1 : 0;
}

}  // namespace

// --load-case: one saved case graded with every check of a run.
int grade_loaded_case(const RunCommand& o, const Backend& backend, engine::RunOptions& opts) {
  const LoadedCase lc = load_case(o.load_case);
  const std::optional<engine::AccuracyTier> tier = accuracy_option(o.accuracy, backend, {{lc.kernel, lc.dtype}});
  if (tier) opts.tier = &*tier;
  // (its replay is this command: the case is the folder's, not a seed's)
  const std::string again = fmt::format("kconform run --load-case {}{}{}", o.load_case,
                                        o.backend == "reference" ? "" : " --backend " + o.backend,
                                        tier ? " --accuracy " + tier->spec : "");
  opts.case_command = [&](std::int64_t) { return again; };
  const engine::KernelDTypeResult r = engine::grade_given_case(*lc.kernel, lc.dtype, backend, opts, lc.cs);
  fmt::print("{}\n", summary_line(r));
  if (r.verdict == engine::Verdict::fail)
    for (const auto& f : r.failures) fmt::print("{}\n\n", f.message);
  return r.verdict == engine::Verdict::fail ? 1 : 0;
}

int run(const RunCommand& o) {
  const auto start = std::chrono::steady_clock::now();
  engine::RunOptions opts = run_options(o);
  const auto backend = make_backend(o.backend, opts.isolation);
  if (!o.load_case.empty()) return grade_loaded_case(o, *backend, opts);
  const Plan plan = with_problem_lines(make_plan(o.kernels, o.dtypes, o.family, *backend), *opts.shapes);
  const std::optional<engine::AccuracyTier> tier = accuracy_option(o.accuracy, *backend, plan);
  if (tier) opts.tier = &*tier;
  check_case_in_range(plan, opts);
  if (!o.input.empty()) return replay_one_element(o, plan, *backend, opts);
  if (!o.save_case.empty()) {
    if (!opts.only_case || plan.size() != 1)
      throw UsageError("--save-case DIR saves one case: give --kernel, --dtype and --case N (as a replay prints them)");
    save_case(o.save_case, *plan[0].first, plan[0].second, *backend, opts, o.command_line);
    fmt::print("saved case {} of {} {} to {} (kconform run --load-case {} grades it)\n", *opts.only_case,
               plan[0].first->name, dtype_name(plan[0].second), o.save_case, o.save_case);
  }

  RunOutputs out;
  open_outputs(o, out, opts);
  engine::RunMetadata meta = run_metadata(o, opts, *backend);
  const int jobs = static_cast<int>(std::min<std::size_t>(o.jobs > 0 ? o.jobs : engine::available_cores(), plan.size()));

  // Each result is graded by a worker (engine/parallel.h) and handed over
  // as JSON: its document entry, its summary line, its failures' text.
  // --dump: each result's elements go to a file of their own, joined in
  // plan order at the end (the same file whichever worker graded what).
  std::optional<engine::TempFolder> dump_parts;
  if (out.dump && jobs > 1) dump_parts.emplace("kconform-dump");
  engine::SharedProgress counters;
  opts.progress = &counters.get();
  auto grade = [&](std::int64_t i) {
    const auto& [k, t] = plan[static_cast<std::size_t>(i)];
    if (out.journal)
      if (auto kept = out.journal->find(journal_key(*k, t))) return *kept;
    engine::RunOptions item = opts;
    std::ofstream part;
    if (dump_parts) {
      part.open(dump_parts->path() / std::to_string(i));
      item.dump = &part;
    }
    const auto r = engine::run_kernel_dtype(*k, t, *backend, item);
    if (part.is_open() && !part.flush())
      throw UsageError(fmt::format("--dump: cannot write its part for {} {} under {}", k->name, dtype_name(t),
                                   dump_parts->path().string()));
    return handed_over(r);
  };
  RunCounts counts;
  engine::ParallelResult graded;
  {
    // With workers, no progress thread: it draws from the parent's loop (tick).
    ProgressLine progress(counters.get(), static_cast<std::int64_t>(plan.size()), !o.quiet, o.progress_s, jobs == 1);
    auto print = [&](std::int64_t i, const std::string& text) {
      const auto r = nlohmann::json::parse(text);
      const auto& [k, t] = plan[static_cast<std::size_t>(i)];
      if (out.journal && !r.value("interrupted", false) && !out.journal->find(journal_key(*k, t)))
        journal_result(out.journal, journal_key(*k, t), text);
      // Exit 1 on an unexpected failure or an unexpected pass; an expected
      // failure is reported (XFAIL) but is what the backend declared.
      const bool expected = r["expected"], unexpected_pass = r["unexpected_pass"];
      if ((r["verdict"] == "fail" && !expected) || unexpected_pass) ++counts.failures;
      if (expected) ++counts.expected_failures;
      progress.print_above([&] {
        if (!o.quiet || r["verdict"] != "pass" || unexpected_pass) fmt::print("{}\n", r["summary"].get<std::string>());
        for (const auto& f : r["failures"]) fmt::print("{}\n\n", f.get<std::string>());
      });
    };
    graded = engine::run_parallel(static_cast<std::int64_t>(plan.size()),
                                  {.jobs = jobs, .stop = &stop_signal(), .backend = backend.get(), .tick = [&] { progress.tick(); }},
                                  grade, print);
  }
  const auto entries = finished_entries(graded, plan.size(), dump_parts, out);
  return finish_run(entries, meta, plan.size(), counts, jobs, start, out, backend.get());
}

}  // namespace kc::cli
