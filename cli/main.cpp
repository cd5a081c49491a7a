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

  kc::cli::ListOptions lo;
  auto* list = app.add_subcommand("list", "List kernels with their contract summary");
  list->add_flag("--json", lo.json, "Print every contract as JSON");
  list->add_flag("--backends", lo.backends, "List the backends (reference and mutants) instead");
  list->add_option("--family", lo.family, "Only kernels of this family");

  kc::cli::RunCommand ro;
  auto* run = app.add_subcommand("run", "Run the conformance checks and write results");
  run->add_option("--kernel,-k", ro.kernels, "Kernel(s) to run (default: all)");
  run->add_option("--dtype,-d", ro.dtypes, "Dtype(s) to run (default: every dtype the contract lists)");
  run->add_option("--family", ro.family, "Only kernels of this family");
  run->add_option("--seed,-s", ro.seed, "Run seed, 0 to 2^64-1 (every case seed derives from it)");
  run->add_option("--cases,-n", ro.cases, "Random cases per kernel and dtype")->check(CLI::Range(0, 100000));
  run->add_option("--sweeps", ro.sweeps, "Exhaustive 16-bit sweeps for kernels with parameters")->check(CLI::Range(1, 64));
  run->add_flag("--no-exhaustive", ro.no_exhaustive, "Do not sweep every bf16/f16 input");
  run->add_option("--out,-o", ro.out, "Folder for results.json and the HTML site");
  run->add_option("--backend,-b", ro.backend,
                  "Backend: reference, mutant:<name>, or plugin:<path> (a shared library, include/kconform/plugin.h)");
  kc::cli::add_isolation_options(*run, ro.isolation);
  run->add_option("--resume", ro.resume,
                  "Continue the run whose --out folder this is (interrupted or killed): the kernel x dtype results it "
                  "finished are kept, the rest graded; the other options must be the same");
  run->add_option("--profile", ro.profile,
                  "Contract profile: conformance (what any correct kernel must do) or reference (also the reference's "
                  "exact bits and choices); default reference for the reference backend, conformance otherwise");
  run->add_option("--case", ro.only_case, "Replay one case (as printed by a failure)");
  run->add_option("--shrink", ro.shrink, "With --case: follow these shrink steps (as printed)");
  run->add_option("--input", ro.input, "Grade one element given by its hex bit pattern (as printed)");
  run->add_option("--params", ro.params, "Parameters for --input, e.g. n=3 or c=0.5r");
  run->add_flag("--bad-input", ro.bad_input, "Replay the bad-input checks only");
  run->add_flag("--quiet,-q", ro.quiet, "Print only failures and the summary (and no progress)");
  run->add_option("--progress", ro.progress_s,
                  "Seconds between progress lines on stderr when it is not a terminal (0: none; a terminal gets "
                  "one live line)")
      ->check(kc::cli::finite_in(0.0, 86400.0));
  run->add_option("--dump", ro.dump, "Write every graded element (input and result bits) to this file");
  run->add_option("--jobs,-j", ro.jobs,
                  "Worker processes grading kernel x dtype results side by side (default: one per core); the "
                  "results are the same for every value")
      ->check(CLI::Range(1, 1024));
  run->add_flag("--exact-oracle", ro.exact_oracle,
                "Evaluate every element with MPFR (no double fast path; the verdicts, maxima and worst cases are the "
                "same, only slower)");

  kc::cli::ExhaustiveCommand eo;
  auto* exh = app.add_subcommand("exhaustive", "Grade every input bit pattern of a one-input elementwise kernel "
                                               "(resumable, shardable by --range)");
  exh->add_option("--kernel,-k", eo.kernel, "Kernel (one input, elementwise)")->required();
  exh->add_option("--dtype,-d", eo.dtype, "Dtype")->required();
  exh->add_option("--range", eo.range, "LO:HI: the input bit patterns LO to HI-1 (decimal or 0x hex; default: all)");
  exh->add_option("--out,-o", eo.out, "Folder: finished blocks (blocks/, to resume) and the merged results/")->required();
  exh->add_option("--backend,-b", eo.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  exh->add_option("--profile", eo.profile, "Contract profile: conformance or reference");
  exh->add_option("--params", eo.params, "The kernel's parameters, e.g. c=0.5r");
  kc::cli::add_isolation_options(*exh, eo.isolation);
  exh->add_option("--jobs,-j", eo.jobs, "Worker processes (default: one per core)")->check(CLI::Range(1, 1024));
  exh->add_option("--block", eo.block_log2, "log2 of the inputs per block (checkpoint), 16 to 32 (default 22)");
  exh->add_flag("--exact-oracle", eo.exact_oracle, "MPFR for every element (no double fast path)");
  exh->add_flag("--quiet,-q", eo.quiet, "Print only failures and the summary");
  exh->add_option("--progress", eo.progress_s, "Seconds between progress lines when stderr is not a terminal")
      ->check(kc::cli::finite_in(0.0, 86400.0));

  kc::cli::CampaignCommand co;
  auto* camp = app.add_subcommand("campaign", "Random cases in resumable batches over a wall-clock budget or a fixed "
                                             "number of batches, shardable");
  camp->add_option("--kernel,-k", co.kernels, "Kernel(s) (default: all)");
  camp->add_option("--dtype,-d", co.dtypes, "Dtype(s) (default: every dtype the contract lists)");
  camp->add_option("--family", co.family, "Only kernels of this family");
  camp->add_option("--seed,-s", co.seed, "Campaign seed (each batch's seed derives from it)");
  camp->add_option("--out,-o", co.out, "Folder: batches/ (resumable), campaign.json, results/")->required();
  camp->add_option("--budget", co.budget, "Wall-clock budget of this process: 90s, 30m, 2h");
  camp->add_option("--batches", co.batches, "Instead of a budget: batches 0..N-1 of every kernel x dtype")
      ->check(CLI::Range(1, 1000000));
  camp->add_option("--cases", co.cases, "Random cases per batch (default 20)")->check(CLI::Range(1, 100000));
  camp->add_option("--shard", co.shard, "I/N: this process grades the batches b with b mod N == I");
  camp->add_option("--backend,-b", co.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  camp->add_option("--profile", co.profile, "Contract profile: conformance or reference");
  kc::cli::add_isolation_options(*camp, co.isolation);
  camp->add_option("--jobs,-j", co.jobs, "Worker processes (default: one per core)")->check(CLI::Range(1, 1024));
  camp->add_flag("--quiet,-q", co.quiet, "Print only failures and the summary");
  camp->add_option("--corpus", co.corpus, "Folder of the regression corpus: store each distinct shrunk failure there");

  kc::cli::MergeCommand mo;
  auto* mrg = app.add_subcommand("merge", "Merge the shards of a campaign into the document one process would write");
  mrg->add_option("dirs", mo.dirs, "Campaign folders (one per shard)")->required();
  mrg->add_option("--out,-o", mo.out, "Folder for results.json and the site")->required();

  kc::cli::CorpusCommand cpo;
  auto* corpus = app.add_subcommand("corpus", "The regression corpus of stored failing cases");
  corpus->require_subcommand(1);
  auto* corpus_replay = corpus->add_subcommand("replay", "Grade every stored case again and require its recorded outcome");
  corpus_replay->add_option("paths", cpo.paths, ".case files or folders of them")->required();
  corpus_replay->add_flag("--quiet,-q", cpo.quiet, "Print only the cases that do not meet their outcome");

  kc::cli::SearchCommand sco;
  auto* srch = app.add_subcommand("search", "Worst-case search: random cases, then a climb toward larger error "
                                            "(one-input elementwise kernels)");
  srch->add_option("--kernel,-k", sco.kernels, "Kernel(s) (default: every one-input elementwise kernel)");
  srch->add_option("--dtype,-d", sco.dtypes, "Dtype(s)");
  srch->add_option("--family", sco.family, "Only kernels of this family");
  srch->add_option("--seed,-s", sco.seed, "Seed of the random cases and of the mutations");
  srch->add_option("--evaluations,-n", sco.evaluations, "Elements graded per kernel x dtype (default 100000)")
      ->check(CLI::Range(std::int64_t{512}, std::int64_t{1} << 32));
  srch->add_option("--backend,-b", sco.backend, "Backend: reference, mutant:<name>, or plugin:<path>");
  srch->add_option("--profile", sco.profile, "Contract profile: conformance or reference");
  kc::cli::add_isolation_options(*srch, sco.isolation);
  srch->add_option("--json", sco.json, "Also write the worst cases as JSON to this file");

  kc::cli::SelftestOptions so;
  auto* self = app.add_subcommand("selftest", "Run each mutant and require that the conformance checks flag it");
  self->add_option("--mutant,-m", so.mutants, "Mutant(s) to run (default: all)");
  self->add_option("--seed,-s", so.seed, "Run seed, 0 to 2^64-1");
  self->add_option("--cases,-n", so.cases, "Random cases per kernel and dtype")->check(CLI::Range(0, 100000));

  kc::cli::ReportOptions rep;
  auto* report = app.add_subcommand("report", "Render results JSON into a static HTML site (or a diff against a baseline)");
  report->add_option("results", rep.inputs, "Results document(s); several are merged")->required();
  report->add_option("--out,-o", rep.out, "Folder for the site (replaced atomically)")->required();
  report->add_option("--baseline", rep.baseline, "Baseline results document: also write diff.html; exit 1 on regression");
  report->add_flag("--quiet,-q", rep.quiet, "Print only regressions");
  report->add_flag("--compare", rep.compare,
                   "Compare the documents' backends side by side (one column each, per-kernel overlaid error profiles) "
                   "instead of merging them");

  kc::cli::FkcOptions fo;
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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  kc::cli::install_stop_handlers();
  try {
    if (*list) return kc::cli::list(lo);
    if (*run) {
      for (int i = 0; i < argc; ++i) ro.command_line += (i ? " " : "") + std::string(argv[i]);
      const std::vector<std::string> words(argv + 2, argv + argc);  // (argv[1] is "run")
      if (!ro.resume.empty() && kc::cli::only_resume(*run)) kc::cli::resume_run(ro.resume, words);
      ro.argv = kc::cli::result_words(words);
      return kc::cli::run(ro);
    }
    if (*exh) return kc::cli::exhaustive(eo);
    if (*camp) return kc::cli::campaign(co);
    if (*mrg) return kc::cli::merge(mo);
    if (*corpus_replay) return kc::cli::corpus_replay(cpo);
    if (*srch) return kc::cli::search(sco);
    if (*self) return kc::cli::selftest(so);
    if (*report) return kc::cli::report(rep);
    if (*fkc_audit) return kc::cli::fkc_audit(fo);
    if (*fkc_export) return kc::cli::fkc_export(fo);
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
  return 2;
}
