// kconform: command-line entry. Parsing only; the work is in the *_command
// and commands files. Exit codes: 0 pass, 1 contract failures (report
// --baseline: a regression), 2 usage or input error, 128 + N stopped by
// signal N.
#include <malloc.h>

#include <cstdio>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/isolation_options.h"
#include "cli/resume.h"
#include "cli/signals.h"
#include "core/error.h"
#include "core/stop.h"
#include "oracles/exact_sum.h"

namespace {

const std::set<std::string> kSubcommands{"list", "run", "exhaustive", "campaign", "merge", "corpus", "search", "selftest", "report", "fkc"};

// Checks CLI11 cannot make: every argument valid UTF-8, and a first word
// that is a subcommand (CLI11 answers an unknown one "A subcommand is required").
int precheck(int argc, char** argv) {
  if (auto bad = kc::cli::invalid_utf8_argument(argc, argv)) {
    fmt::print(stderr, "kconform: argument {} is not valid UTF-8\n", *bad);
    return 2;
  }
  if (argc > 1 && argv[1][0] != '-' && !kSubcommands.count(argv[1])) {
    fmt::print(stderr, "kconform: unknown subcommand '{}'; the subcommands are list, run, exhaustive, campaign, merge, corpus, search, selftest, report and fkc "
                       "(kconform --help)\n",
               argv[1]);
    return 2;
  }
  return 0;
}

// Every subcommand's options and the CLI11 subcommand that parses them
// (CLI11 writes into the options: they must outlive the parse).
struct Subcommands {
  kc::cli::ListOptions lo;
  kc::cli::RunCommand ro;
  kc::cli::ExhaustiveCommand eo;
  kc::cli::CampaignCommand co;
  kc::cli::MergeCommand mo;
  kc::cli::CorpusCommand cpo;
  kc::cli::SearchCommand sco;
  kc::cli::SelftestOptions so;
  kc::cli::ReportOptions rep;
  kc::cli::FkcOptions fo;
  CLI::App *list = nullptr, *run = nullptr, *exh = nullptr, *camp = nullptr, *mrg = nullptr, *corpus_replay = nullptr,
           *srch = nullptr, *self = nullptr, *report = nullptr, *fkc_audit = nullptr, *fkc_export = nullptr;
};

// `kconform list`: the kernels (or backends) and their contracts.
CLI::App* add_list_options(CLI::App& app, kc::cli::ListOptions& o) {
  auto* sub = app.add_subcommand("list", "List kernels with their contract summary, or one kernel's contract in full");
  sub->add_option("kernel", o.kernel,
                  "A kernel: its operands, dtypes, parameters and their domains, every precondition rule with what a "
                  "plug-in returns for it, special values, properties and the accuracy bound per tier");
  sub->add_flag("--json", o.json, "Print every contract as JSON");
  sub->add_flag("--backends", o.backends, "List the backends (reference and mutants) instead");
  sub->add_option("--family", o.family, "Only kernels of this family");
  sub->add_option("--backend", o.backend,
                  "What this backend (plugin:PATH, mutant:NAME, reference) implements: its library, kernels x dtypes "
                  "and accuracy claims, as a run sees them");
  return sub;
}

// --shapes, --exact-budget and --max-case-mb (run, campaign).
void add_shape_options(CLI::App& sub, std::string& shapes, std::int64_t& budget, std::int64_t& max_mb) {
  sub.add_option("--shapes", shapes,
                 "Shapes besides the sweeps: tiny (the random cases), tails (and main-axis sizes 2^k-1, 2^k, 2^k+1 "
                 "up to 8193), production (the shipped model problem files alone), all, a shipped set (llama2-7b, "
                 "mistral-7b, bert-base, resnet50) or a problem file (README, \"Problem files\")");
  sub.add_option("--exact-budget", budget,
                 "A shaped case's output of more elements is graded exactly on a stratified sample of about this "
                 "many (0: every element)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 40));
  sub.add_option("--max-case-mb", max_mb, "A problem line whose case would take more memory is refused")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
}

// `kconform run`: the conformance checks of the planned kernel x dtype results.
CLI::App* add_run_options(CLI::App& app, kc::cli::RunCommand& o) {
  auto* sub = app.add_subcommand("run", "Run the conformance checks and write results");
  sub->add_option("--kernel,-k", o.kernels, "Kernel(s) to run (default: all)");
  sub->add_option("--dtype,-d", o.dtypes, "Dtype(s) to run (default: every dtype the contract lists)");
  sub->add_option("--family", o.family, "Only kernels of this family");
  sub->add_option("--seed,-s", o.seed, "Run seed, 0 to 2^64-1 (every case seed derives from it)");
  sub->add_option("--cases,-n", o.cases, "Random cases per kernel and dtype")->check(CLI::Range(0, 100000));
  sub->add_option("--sweeps", o.sweeps, "Exhaustive 16-bit sweeps for kernels with parameters")->check(CLI::Range(1, 64));
  sub->add_flag("--no-exhaustive", o.no_exhaustive, "Do not sweep every bf16/f16 input");
  sub->add_option("--out,-o", o.out, "Folder for results.json and the HTML site");
  sub->add_option("--backend,-b", o.backend,
                  "Backend: reference, mutant:<name>, or plugin:<path> (a shared library, include/kconform/plugin.h)");
  kc::cli::add_isolation_options(*sub, o.isolation);
  sub->add_option("--resume", o.resume,
                  "Continue the run whose --out folder this is (interrupted or killed): the kernel x dtype results it "
                  "finished are kept, the rest graded; the other options must be the same");
  sub->add_option("--profile", o.profile,
                  "Contract profile: conformance (what any correct kernel must do) or reference (also the reference's "
                  "exact bits and choices); default reference for the reference backend, conformance otherwise");
  sub->add_option("--accuracy", o.accuracy,
                  "Accuracy tier the accuracy check grades against: reference (the contract's bound), claimed (the "
                  "plug-in's declared claims), a built-in tier (correctly-rounded, opencl-full-profile, "
                  "cuda-programming-guide) or a tier file (docs/accuracy-tiers.md)");
  sub->add_option("--case", o.only_case, "Replay one case (as printed by a failure)");
  sub->add_option("--shrink", o.shrink, "With --case: follow these shrink steps (as printed)");
  sub->add_option("--input", o.input, "Grade one element given by its hex bit pattern (as printed)");
  sub->add_option("--save-case", o.save_case,
                  "With --case: write the whole case to this folder (case.json and NumPy .npy files: every input, the "
                  "parameters, the backend's outputs and the reference's), then run as usual");
  sub->add_option("--load-case", o.load_case,
                  "Grade the case saved in this folder (by --save-case; its inputs may be edited) with every check");
  sub->add_option("--params", o.params, "Parameters for --input, e.g. n=3 or c=0.5r");
  sub->add_flag("--bad-input", o.bad_input, "Replay the bad-input checks only");
  sub->add_flag("--quiet,-q", o.quiet, "Print only failures and the summary (and no progress)");
  sub->add_option("--progress", o.progress_s,
                  "Seconds between progress lines on stderr when it is not a terminal (0: none; a terminal gets "
                  "one live line)")
      ->check(kc::cli::finite_in(0.0, 86400.0));
  sub->add_option("--dump", o.dump, "Write every graded element (input and result bits) to this file");
  sub->add_option("--jobs,-j", o.jobs,
                  "Worker processes grading kernel x dtype results side by side (default: one per core); the "
                  "results are the same for every value")
      ->check(CLI::Range(1, 1024));
  sub->add_flag("--exact-oracle", o.exact_oracle,
                "Evaluate every element with MPFR (no double fast path; the verdicts, maxima and worst cases are the "
                "same, only slower)");
  add_shape_options(*sub, o.shapes, o.exact_budget, o.max_case_mb);
  return sub;
}

// `kconform exhaustive`: every input bit pattern of one kernel and dtype.
CLI::App* add_exhaustive_options(CLI::App& app, kc::cli::ExhaustiveCommand& o) {
  auto* sub = app.add_subcommand("exhaustive", "Grade every input bit pattern of a one-input elementwise kernel "
                                               "(resumable, shardable by --range)");
  sub->add_option("--kernel,-k", o.kernel, "Kernel (one input, elementwise)")->required();
  sub->add_option("--dtype,-d", o.dtype, "Dtype")->required();
  sub->add_option("--range", o.range, "LO:HI: the input bit patterns LO to HI-1 (decimal or 0x hex; default: all)");
  sub->add_option("--out,-o", o.out, "Folder: finished blocks (blocks/, to resume) and the merged results/")->required();
  sub->add_option("--backend,-b", o.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  sub->add_option("--profile", o.profile, "Contract profile: conformance or reference");
  sub->add_option("--accuracy", o.accuracy,
                  "Accuracy tier the accuracy check grades against: reference (the contract's bound), claimed (the "
                  "plug-in's declared claims), a built-in tier (correctly-rounded, opencl-full-profile, "
                  "cuda-programming-guide) or a tier file (docs/accuracy-tiers.md)");
  sub->add_option("--params", o.params, "The kernel's parameters, e.g. c=0.5r");
  kc::cli::add_isolation_options(*sub, o.isolation);
  sub->add_option("--jobs,-j", o.jobs, "Worker processes (default: one per core)")->check(CLI::Range(1, 1024));
  sub->add_option("--block", o.block_log2, "log2 of the inputs per block (checkpoint), 16 to 32 (default 22)");
  sub->add_flag("--exact-oracle", o.exact_oracle, "MPFR for every element (no double fast path)");
  sub->add_flag("--quiet,-q", o.quiet, "Print only failures and the summary");
  sub->add_option("--progress", o.progress_s, "Seconds between progress lines when stderr is not a terminal")
      ->check(kc::cli::finite_in(0.0, 86400.0));
  return sub;
}

// `kconform campaign`: random cases in resumable batches.
CLI::App* add_campaign_options(CLI::App& app, kc::cli::CampaignCommand& o) {
  auto* sub = app.add_subcommand("campaign", "Random cases in resumable batches over a wall-clock budget or a fixed "
                                            "number of batches, shardable");
  sub->add_option("--kernel,-k", o.kernels, "Kernel(s) (default: all)");
  sub->add_option("--dtype,-d", o.dtypes, "Dtype(s) (default: every dtype the contract lists)");
  sub->add_option("--family", o.family, "Only kernels of this family");
  sub->add_option("--seed,-s", o.seed, "Campaign seed (each batch's seed derives from it)");
  sub->add_option("--out,-o", o.out, "Folder: batches/ (resumable), campaign.json, results/")->required();
  sub->add_option("--budget", o.budget, "Wall-clock budget of this process: 90s, 30m, 2h");
  sub->add_option("--batches", o.batches, "Instead of a budget: batches 0..N-1 of every kernel x dtype")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--cases", o.cases, "Random cases per batch (default 20)")->check(CLI::Range(1, 100000));
  sub->add_option("--shard", o.shard, "I/N: this process grades the batches b with b mod N == I");
  sub->add_option("--backend,-b", o.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  sub->add_option("--profile", o.profile, "Contract profile: conformance or reference");
  sub->add_option("--accuracy", o.accuracy,
                  "Accuracy tier the accuracy check grades against: reference (the contract's bound), claimed (the "
                  "plug-in's declared claims), a built-in tier (correctly-rounded, opencl-full-profile, "
                  "cuda-programming-guide) or a tier file (docs/accuracy-tiers.md)");
  kc::cli::add_isolation_options(*sub, o.isolation);
  sub->add_option("--jobs,-j", o.jobs, "Worker processes (default: one per core)")->check(CLI::Range(1, 1024));
  sub->add_flag("--quiet,-q", o.quiet, "Print only failures and the summary");
  sub->add_option("--corpus", o.corpus, "Folder of the regression corpus: store each distinct shrunk failure there");
  add_shape_options(*sub, o.shapes, o.exact_budget, o.max_case_mb);
  return sub;
}

// `kconform merge`: a campaign's shards as one document.
CLI::App* add_merge_options(CLI::App& app, kc::cli::MergeCommand& o) {
  auto* sub = app.add_subcommand("merge", "Merge the shards of a campaign into the document one process would write");
  sub->add_option("dirs", o.dirs, "Campaign folders (one per shard)")->required();
  sub->add_option("--out,-o", o.out, "Folder for results.json and the site")->required();
  return sub;
}

// `kconform corpus replay`: the regression corpus graded again; returns `replay`.
CLI::App* add_corpus_options(CLI::App& app, kc::cli::CorpusCommand& o) {
  auto* corpus = app.add_subcommand("corpus", "The regression corpus of stored failing cases");
  corpus->require_subcommand(1);
  auto* replay = corpus->add_subcommand("replay", "Grade every stored case again and require its recorded outcome");
  replay->add_option("paths", o.paths, ".case files or folders of them")->required();
  replay->add_flag("--quiet,-q", o.quiet, "Print only the cases that do not meet their outcome");
  return replay;
}

// `kconform search`: the worst-case search.
CLI::App* add_search_options(CLI::App& app, kc::cli::SearchCommand& o) {
  auto* sub = app.add_subcommand("search", "Worst-case search: random cases, then a climb toward larger error "
                                           "(one-input elementwise kernels)");
  sub->add_option("--kernel,-k", o.kernels, "Kernel(s) (default: every one-input elementwise kernel)");
  sub->add_option("--dtype,-d", o.dtypes, "Dtype(s)");
  sub->add_option("--family", o.family, "Only kernels of this family");
  sub->add_option("--seed,-s", o.seed, "Seed of the random cases and of the mutations");
  sub->add_option("--evaluations,-n", o.evaluations, "Elements graded per kernel x dtype (default 100000)")
      ->check(CLI::Range(std::int64_t{512}, std::int64_t{1} << 32));
  sub->add_option("--backend,-b", o.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  sub->add_option("--profile", o.profile, "Contract profile: conformance or reference");
  sub->add_option("--accuracy", o.accuracy,
                  "Accuracy tier the accuracy check grades against: reference (the contract's bound), claimed (the "
                  "plug-in's declared claims), a built-in tier (correctly-rounded, opencl-full-profile, "
                  "cuda-programming-guide) or a tier file (docs/accuracy-tiers.md)");
  kc::cli::add_isolation_options(*sub, o.isolation);
  sub->add_option("--json", o.json, "Also write the worst cases as JSON to this file");
  return sub;
}

// `kconform selftest`: every mutant must be flagged.
CLI::App* add_selftest_options(CLI::App& app, kc::cli::SelftestOptions& o) {
  auto* sub = app.add_subcommand("selftest", "Run each mutant and require that the conformance checks flag it");
  sub->add_option("--mutant,-m", o.mutants, "Mutant(s) to run (default: all)");
  sub->add_option("--seed,-s", o.seed, "Run seed, 0 to 2^64-1");
  sub->add_option("--cases,-n", o.cases, "Random cases per kernel and dtype")->check(CLI::Range(0, 100000));
  return sub;
}

// `kconform report`: the site of results documents, or their diff.
CLI::App* add_report_options(CLI::App& app, kc::cli::ReportOptions& o) {
  auto* sub = app.add_subcommand("report", "Render results JSON into a static HTML site (or a diff against a baseline)");
  sub->add_option("results", o.inputs, "Results document(s); several are merged")->required();
  sub->add_option("--out,-o", o.out, "Folder for the site (replaced atomically)")->required();
  sub->add_option("--baseline", o.baseline, "Baseline results document: also write diff.html; exit 1 on regression");
  sub->add_flag("--quiet,-q", o.quiet, "Print only regressions");
  sub->add_flag("--compare", o.compare,
                "Compare the documents' backends side by side (one column each, per-kernel overlaid error profiles) "
                "instead of merging them");
  return sub;
}

// `kconform fkc audit` and `kconform fkc export`, which share their options.
void add_fkc_options(CLI::App& app, Subcommands& c) {
  auto& fo = c.fo;
  auto* fkc = app.add_subcommand("fkc", "Audit the tensor framework's FKC precision claims against a run, or export measured ones");
  fkc->require_subcommand(1);
  auto* fkc_audit = fkc->add_subcommand("audit", "Check every FKC precision claim against a results document");
  fkc_audit->add_option("files", fo.files, "FKC contract files (markdown with ```fkc blocks)")->required();
  fkc_audit->add_option("--results,-r", fo.results, "Results document of a run")->required();
  fkc_audit->add_option("--json", fo.json_out, "Also write the audit as JSON to this file");
  fkc_audit->add_flag("--verbose,-v", fo.verbose, "Print every claim, not only the refuted ones");
  auto* fkc_export = fkc->add_subcommand("export", "Write the FKC files with measured precision blocks");
  fkc_export->add_option("files", fo.files, "FKC contract files")->required();
  fkc_export->add_option("--results,-r", fo.results, "Results document of a run")->required();
  fkc_export->add_option("--out,-o", fo.out, "Folder for the exported files (replaced atomically)")->required();
  c.fkc_audit = fkc_audit;
  c.fkc_export = fkc_export;
}

// Every subcommand, in the order --help lists them.
void add_subcommands(CLI::App& app, Subcommands& c) {
  c.list = add_list_options(app, c.lo);
  c.run = add_run_options(app, c.ro);
  c.exh = add_exhaustive_options(app, c.eo);
  c.camp = add_campaign_options(app, c.co);
  c.mrg = add_merge_options(app, c.mo);
  c.corpus_replay = add_corpus_options(app, c.cpo);
  c.srch = add_search_options(app, c.sco);
  c.self = add_selftest_options(app, c.so);
  c.report = add_report_options(app, c.rep);
  add_fkc_options(app, c);
}

// `kconform run`: its command line kept for the results, and a lone
// --resume handed to the run's own words (which does not return).
int run_subcommand(Subcommands& c, int argc, char** argv) {
  auto& ro = c.ro;
  for (int i = 0; i < argc; ++i) ro.command_line += (i ? " " : "") + std::string(argv[i]);
  const std::vector<std::string> words(argv + 2, argv + argc);  // (argv[1] is "run")
  if (!ro.resume.empty() && kc::cli::only_resume(*c.run)) kc::cli::resume_run(ro.resume, words);
  ro.argv = kc::cli::result_words(words);
  return kc::cli::run(ro);
}

// The parsed subcommand, run.
int dispatch(Subcommands& c, int argc, char** argv) {
  if (*c.list) return kc::cli::list(c.lo);
  if (*c.run) return run_subcommand(c, argc, argv);
  if (*c.exh) return kc::cli::exhaustive(c.eo);
  if (*c.camp) return kc::cli::campaign(c.co);
  if (*c.mrg) return kc::cli::merge(c.mo);
  if (*c.corpus_replay) return kc::cli::corpus_replay(c.cpo);
  if (*c.srch) return kc::cli::search(c.sco);
  if (*c.self) return kc::cli::selftest(c.so);
  if (*c.report) return kc::cli::report(c.rep);
  if (*c.fkc_audit) return kc::cli::fkc_audit(c.fo);
  if (*c.fkc_export) return kc::cli::fkc_export(c.fo);
  return 2;
}

// dispatch, with every error it raises as a message and its exit code.
int dispatch_reporting_errors(Subcommands& c, int argc, char** argv) {
  try {
    return dispatch(c, argc, argv);
  } catch (const kc::Interrupted& e) {  // a stop request while a plug-in loaded
    fmt::print(stderr, "kconform: {} while loading the plug-in; nothing was graded\n", e.what());
    return 128 + kc::stop_signal().load();
  } catch (const kc::UsageError& e) {
    fmt::print(stderr, "kconform: {}\n", e.what());
    return 2;
  } catch (const kc::KernelError& e) {
    fmt::print(stderr, "kconform: {}\n", e.what());
    return 2;
  } catch (const std::logic_error& e) {  // an inconsistent contract table (engine::check_table)
    fmt::print(stderr, "kconform: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {  // an operating system failure no check foresaw: still a clear message
    fmt::print(stderr, "kconform: {}\n", e.what());
    return 2;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // a line at a time, also into a pipe
  // A sweep block's tensors (16 MiB each for 2^22 f32 inputs) are freed
  // and allocated again block after block. With glibc's defaults each came
  // from a fresh mmap, or from heap memory trimmed back to the system at
  // every free, and every page was faulted in again: a third of the f32
  // exp sweep's time in the overflow region (perf). Served from the heap
  // (up to glibc's largest threshold, 32 MiB) and never trimmed below
  // 1 GiB of free top, the pages stay mapped: 2.5 -> 1.6 s for 2^26 inputs.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  if (const int rc = precheck(argc, argv)) return rc;
  // KC_EXACT_SUM_PATH forces the exact sums' path for the whole run
  // (oracles/exact_sum.h); a name this CPU has no path for stops here.
  if (const std::string& bad = kc::oracle::ExactSum::path_setting_error(); !bad.empty()) {
    fmt::print(stderr, "kconform: {}\n", bad);
    return 2;
  }
  CLI::App app{"kconform: property-based conformance testing of tensor kernels against an MPFR oracle"};
  app.require_subcommand(1);

  Subcommands commands;
  add_subcommands(app, commands);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  kc::cli::install_stop_handlers();
  return dispatch_reporting_errors(commands, argc, argv);
}
