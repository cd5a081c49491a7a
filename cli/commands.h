// The kconform subcommands. Each returns the process exit code:
// 0 pass, 1 contract failures found (or, for `report --baseline`, a
// regression), 2 usage or input error (raised as UsageError).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "generators/problems.h"

namespace kc::cli {

struct ListOptions {
  std::string kernel;  // one kernel's contract in full
  std::string backend;  // --backend SPEC: what that backend declares
  bool json = false;
  bool backends = false;
  std::string family;
};
int list(const ListOptions& o);
// `kconform list KERNEL` (cli/list_kernel.cpp).
int list_kernel(const std::string& name, bool json);
// `kconform list --backend SPEC` (cli/list_kernel.cpp): the kernels x dtypes
// a backend implements and its claims, as kconform sees them.
int list_backend(const std::string& spec, bool json);

struct RunCommand {
  std::vector<std::string> kernels, dtypes;
  std::string family;
  std::string seed = "1";  // checked by parse_seed (cli/arguments.h), as every value below
  int cases = 100;
  int sweeps = 4;
  bool no_exhaustive = false;
  std::string out;  // folder: results.json + site/
  std::string backend = "reference";
  std::string profile;    // "" (the backend's default), conformance or reference
  std::string accuracy = "reference";  // --accuracy: reference, claimed, a built-in tier or a tier file
  IsolationOptions isolation;  // how a plug-in's kernels run (--timeout, --worker-calls, ...)
  std::string resume;  // DIR: continue the run whose journal is there
  std::string only_case;  // "" or a case index
  std::string shrink;  // "3,0,1"
  std::string input;   // 0x... bit pattern: single-element replay
  std::string save_case;  // with --case: the whole case to this folder (cli/saved_case.h)
  std::string load_case;  // grade a saved case
  std::string params;
  bool bad_input = false;  // replay only the bad-input checks
  bool quiet = false;
  double progress_s = 5;  // seconds between progress lines when stderr is not a terminal (0: none)
  std::string dump;  // file: every element graded for the statistics
  int jobs = 0;      // worker processes (-j); 0: one per available core
  bool exact_oracle = false;  // MPFR for every element (no fast path)
  std::string shapes{gen::kDefaultShapes};  // --shapes: tiny, tails, production, all, a shipped set or a problem file
  std::int64_t exact_budget = 4096;  // --exact-budget: a shaped output past it is graded on a sample
  std::int64_t max_case_mb = 4096;   // --max-case-mb: a problem line's case above it is refused
  std::string command_line;
  std::vector<std::string> argv;  // the words after `run` (the journal keeps them for --resume)
};
int run(const RunCommand& o);

// `kconform exhaustive`: every input of a one-input elementwise kernel
// (cli/exhaustive_command.cpp). Exit 0 pass, 1 a contract failure, 2 usage.
struct ExhaustiveCommand {
  std::string kernel, dtype;
  std::string range;          // "LO:HI" bit patterns, HI exclusive; "" every pattern
  std::string out;            // DIR: blocks/ (resumable) and results/
  std::string backend = "reference";
  std::string profile;
  std::string accuracy = "reference";
  std::string params;
  IsolationOptions isolation;
  int jobs = 0;
  int block_log2 = 22;        // inputs per block (and per checkpoint): 2^22
  bool exact_oracle = false;
  bool quiet = false;
  double progress_s = 5;
};
int exhaustive(const ExhaustiveCommand& o);

// `kconform campaign`: nightly fuzzing in batches (cli/campaign_command.cpp).
// Batch b of a kernel x dtype is a run of `cases` random cases from a seed
// derived from (seed, kernel, dtype, b); batch 0 also sweeps the 16-bit
// inputs. Exit 0 pass, 1 a contract failure, 2 usage, 128 + N a signal.
struct CampaignCommand {
  std::vector<std::string> kernels, dtypes;
  std::string family;
  std::string seed = "1";
  std::string out;      // DIR: batches/ (resumable), campaign.json, results/
  std::string budget;   // wall clock: "90s", "30m", "2h" (all shards together: each shard's own)
  int batches = 0;      // instead of a budget: batches 0..batches-1 of every kernel x dtype (this shard's share)
  int cases = 20;       // random cases per batch
  std::string shard;    // "I/N": batches b with b mod N == I
  std::string backend = "reference";
  std::string profile;
  std::string accuracy = "reference";
  IsolationOptions isolation;
  int jobs = 0;
  bool quiet = false;
  std::string corpus;   // DIR: store each distinct shrunk failure (reports/corpus_file.h)
  std::string shapes = "tiny";  // --shapes (run's); a campaign's batches are random cases unless asked
  std::int64_t exact_budget = 4096;
  std::int64_t max_case_mb = 4096;
};
int campaign(const CampaignCommand& o);

// `kconform merge DIR... --out OUT`: the campaign shards' batches as the
// document one process would write for the same batches.
struct MergeCommand {
  std::vector<std::string> dirs;
  std::string out;
};
int merge(const MergeCommand& o);

// `kconform corpus replay PATH...` (cli/corpus_command.cpp).
struct CorpusCommand {
  std::vector<std::string> paths;  // .case files or folders of them
  bool quiet = false;
};
int corpus_replay(const CorpusCommand& o);

// `kconform search` (cli/search_command.cpp): the worst-case search.
struct SearchCommand {
  std::vector<std::string> kernels, dtypes;
  std::string family;
  std::string seed = "1";
  std::int64_t evaluations = 100000;  // elements graded per kernel x dtype (half random, half climbing)
  std::string backend = "reference";
  std::string profile;
  std::string accuracy = "reference";
  IsolationOptions isolation;
  std::string json;  // also write the worst cases as JSON
};
int search(const SearchCommand& o);

struct SelftestOptions {
  std::vector<std::string> mutants;
  std::string seed = "1";
  int cases = 100;
};
int selftest(const SelftestOptions& o);

// `kconform report FILES... --out DIR [--baseline OLD]`: renders the site
// from results documents only (several are merged). Exit 0, or 1 when
// --baseline is given and something regressed (rule: README, diff page).
struct ReportOptions {
  std::vector<std::string> inputs;
  std::string baseline;
  std::string out;
  bool quiet = false;
  bool compare = false;  // one column per document (backend) instead of a merge
};
int report(const ReportOptions& o);

// `kconform fkc audit FILES... --results R.json [--json OUT]`: exit 0, or 1
// when a claim is refuted. `kconform fkc export --results R.json FILES...
// --out DIR`: exit 0. Both exit 2 on a file they cannot read.
struct FkcOptions {
  std::vector<std::string> files;
  std::string results;
  std::string json_out;  // audit: also write the audit as JSON
  std::string out;       // export: the folder
  bool verbose = false;  // audit: every claim, not only the refuted ones
};
int fkc_audit(const FkcOptions& o);
int fkc_export(const FkcOptions& o);

}  // namespace kc::cli
