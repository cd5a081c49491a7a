// `kconform campaign` and `kconform merge`: random cases in batches, spread
// over a wall-clock budget (or a fixed number of batches), over worker
// processes, over shards, resumable. The unit of work and of checkpointing
// is a batch: batch b of kernel K in dtype T is `kconform run --kernel K
// --dtype T --seed derive(S, K, T, b) --cases C` (batch 0 with the 16-bit
// sweeps, the others --no-exhaustive), kept as DIR/batches/K.T.b.json,
// written whole. A campaign killed at any moment and restarted with the
// same arguments grades only the batches it lacks; the results are the
// merge of every batch in one canonical order (kernel table order, dtype,
// batch), so shards merged with `kconform merge` give the document one
// process writes for the same batches. The budget: each round gives the next batch to the kernel x dtype results
// that have had the least time so far (not the fewest cases), so that a
// slow kernel gets its share of the clock instead of starving or of
// starving the others.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "checks/check.h"
#include "cli/shapes_option.h"
#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/plan.h"
#include "cli/signals.h"
#include "cli/work_folder.h"
#include "core/error.h"
#include "engine/failure_text.h"
#include "engine/parallel.h"
#include "generators/case.h"
#include "reports/corpus_file.h"
#include "reports/results_json.h"
#include "reports/merge.h"
#include "reports/site/site.h"

namespace kc::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Shard {
  int index = 0, count = 1;
};

Shard parse_shard(const std::string& text) {
  if (text.empty()) return {};
  static const std::regex re(R"(^(\d{1,6})/(\d{1,6})$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) throw UsageError(fmt::format("--shard '{}': expected I/N, 0 <= I < N", text));
  const Shard s{std::stoi(m[1]), std::stoi(m[2])};
  if (s.count < 1 || s.index >= s.count) throw UsageError(fmt::format("--shard '{}': expected I/N, 0 <= I < N", text));
  return s;
}

double parse_budget(const std::string& text) {
  static const std::regex re(R"(^(\d{1,7}(?:\.\d+)?)(s|m|h)$)");
  std::smatch m;
  if (!std::regex_match(text, m, re))
    throw UsageError(fmt::format("--budget '{}': expected a duration such as 90s, 30m or 2h", text));
  const double v = std::stod(m[1]);
  return v * (m[2] == "s" ? 1 : m[2] == "m" ? 60 : 3600);
}

std::string batch_file(const contract::KernelSpec& k, DType t, std::int64_t b) {
  return fmt::format("{}.{}.{:06}.json", k.name, dtype_name(t), b);
}

// The canonical order of batches: kernel table order, the contract's dtype
// order, batch index (what `merge` sorts any set of shards into).
struct BatchKey {
  std::size_t kernel = 0, dtype = 0;
  std::int64_t batch = 0;
  auto operator<=>(const BatchKey&) const = default;
};

std::optional<BatchKey> key_of_file(const std::string& name) {
  static const std::regex re(R"(^([a-z0-9_]+)\.([a-z0-9]+)\.(\d{6})\.json$)");
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  const auto& table = contract::all_kernels();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (table[i].name != m[1].str()) continue;
    for (std::size_t d = 0; d < table[i].accuracy.size(); ++d)
      if (dtype_name(table[i].accuracy[d].dtype) == m[2].str()) return BatchKey{i, d, std::stoll(m[3])};
  }
  return std::nullopt;
}

// Every batch document of the folders, in canonical order; a batch found
// twice (the same shard merged twice) is an error.
std::vector<json> batches_of(const std::vector<fs::path>& dirs) {
  std::map<BatchKey, fs::path> found;
  for (const auto& d : dirs) {
    const fs::path b = d / "batches";
    if (!fs::is_directory(b)) throw UsageError(fmt::format("{}: not a campaign folder (no batches/)", d.string()));
    for (const auto& e : fs::directory_iterator(b)) {
      const std::string name = e.path().filename().string();
      const auto key = key_of_file(name);
      if (!key) continue;  // a .part left by a kill, or not ours
      const auto [it, fresh] = found.emplace(*key, e.path());
      if (!fresh)
        throw UsageError(fmt::format("batch {} is in {} and in {}: the same cases would count twice (merge each "
                                     "shard once)",
                                     name, it->second.string(), e.path().string()));
    }
  }
  std::vector<json> docs;
  for (const auto& [key, path] : found) docs.push_back(read_json_file(path, "batch document (remove it to grade it again)"));
  return docs;
}

// One line per merged result, failures first, and the totals.
int report_merged(const json& merged, bool quiet) {
  int failing = 0;
  for (const auto& k : merged["kernels"])
    for (const auto& r : k["results"]) {
      const bool fail = r["verdict"] == "fail";
      failing += fail;
      if (!quiet || fail)
        fmt::print("{:<4} {:<11} {:<5} {}; {} cases, {} elements\n", fail ? "FAIL" : r["verdict"] == "pass" ? "PASS" : "----",
                   k["name"].get<std::string>(), r["dtype"].get<std::string>(), r["headline"].get<std::string>(),
                   r["cases"].get<std::int64_t>(), r["elements"].get<std::int64_t>());
    }
  const auto& t = merged["totals"];
  fmt::print("{} of {} kernel x dtype results pass; {} runs merged\n", t["pass"].get<std::int64_t>(),
             t["kernel_dtypes"].get<std::int64_t>(), merged.contains("runs") ? merged["runs"].size() : 1);
  return failing > 0 ? 1 : 0;
}

// The run options every batch starts from (its seed and its sweeps are its own).
engine::RunOptions batch_options(const CampaignCommand& o) {
  engine::RunOptions base{.checks = &checks::registry()};
  base.backend = o.backend;
  base.isolation = o.isolation;
  base.cases = o.cases;
  base.profile = profile_option(o.profile, o.backend);
  if (o.shapes != "tiny") base.shapes = shapes_option(o.shapes, o.max_case_mb);
  base.exact_budget = o.exact_budget;
  base.stop = &stop_signal();
  return base;
}

// The campaign's identity: a folder holds one campaign (and one shard of it).
json campaign_identity(const CampaignCommand& o, const Plan& plan, std::uint64_t seed, const Shard& shard,
                       engine::Profile profile) {
  json units = json::array();
  for (const auto& [k, t] : plan) units.push_back(fmt::format("{} {}", k->name, dtype_name(t)));
  return with_accuracy(json{{"seed", seed}, {"backend", o.backend}, {"profile", engine::profile_name(profile)},
                            {"cases_per_batch", o.cases}, {"units", units},
                            {"shard", fmt::format("{}/{}", shard.index, shard.count)},
                            {"budget", o.budget}, {"batches", o.batches}, {"shapes", o.shapes}, {"exact_budget", o.exact_budget}},
                       o.accuracy);
}

// What a kernel x dtype has had so far.
struct Unit {
  std::int64_t next = 0;  // the next batch index of this shard to grade
  double seconds = 0;
  std::int64_t done = 0;
};

// What each kernel x dtype of the plan has had so far: its batches on disk.
std::vector<Unit> units_on_disk(const Plan& plan, const Shard& shard, const WorkFolder& work) {
  std::vector<Unit> state(plan.size());
  for (std::size_t u = 0; u < plan.size(); ++u) {
    auto& s = state[u];
    s.next = shard.index;
    while (work.has(batch_file(*plan[u].first, plan[u].second, s.next))) {
      s.seconds += work.read(batch_file(*plan[u].first, plan[u].second, s.next))["duration_s_total"].get<double>();
      ++s.done;
      s.next += shard.count;
    }
  }
  return state;
}

// What grades a batch: the campaign's options and seed, its plan, the run
// options every batch starts from, its backend and its folder.
struct BatchContext {
  const CampaignCommand& o;
  std::uint64_t seed;
  const Plan& plan;
  const engine::RunOptions& base;
  const Backend& backend;
  const WorkFolder& work;
};

// A failing batch's shrunk failure, with its exact input bits, as a corpus
// file {name, text}; null when it has none or there is no --corpus.
json corpus_entry(const BatchContext& c, const engine::KernelDTypeResult& r, const engine::RunOptions& opts,
                  std::size_t u, std::int64_t b) {
  const auto& [k, t] = c.plan[u];
  json found = nullptr;
  if (!c.o.corpus.empty() && r.verdict == engine::Verdict::fail)
    for (const auto& f : r.failures) {
      if (f.check.rfind("shrunk: ", 0) != 0) continue;
      reports::CorpusCase cc;
      cc.kernel = std::string(k->name);
      cc.dtype = t;
      cc.backend = c.o.backend;
      cc.profile = std::string(engine::kProfiles.name(c.base.profile));
      cc.check = f.check.substr(8);
      cc.found = fmt::format("campaign seed {} batch {}, shrunk to {} input elements from: {}", c.seed, b,
                             f.shrunk_elements, f.repro);
      const gen::Case cs = engine::case_by_id(*k, t, c.backend, opts, f.case_index, f.shrink_path);
      cc.params = cs.params.to_string();
      cc.inputs = cs.inputs;
      // The way the stored case itself fails (the batch's first finding
      // may be another element's): what its replay must show again.
      const auto alone = engine::grade_given_case(*k, t, c.backend, opts, cs);
      cc.failure = failure_of(alone, cc.check);
      found = {{"name", reports::corpus_file_name(cc)}, {"text", reports::write_corpus_case(cc)}};
      break;
    }
  return found;
}

// Grades batch b of plan unit u and keeps its document; its outcome, as the
// worker hands it to the parent ("interrupted" when stopped).
std::string grade_batch(const BatchContext& c, std::size_t u, std::int64_t b) {
  const auto& [k, t] = c.plan[u];
  engine::RunOptions opts = c.base;
  opts.seed = gen::derive_seed(c.seed, k->name, dtype_name(t), "campaign-batch", static_cast<std::uint64_t>(b));
  opts.exhaustive_halves = b == 0;  // the 16-bit sweeps are the same in every batch: once
  const auto r = engine::run_kernel_dtype(*k, t, c.backend, opts);
  if (r.interrupted) return std::string("interrupted");
  // (with every option of the campaign that the batch ran under: its
  // profile and isolation options too)
  const std::string cmd = engine::seed_replay(k->name, t, opts);
  engine::RunMetadata m = run_metadata_of(opts, opts.seed, c.o.backend, cmd, c.backend);
  m.cases_per_kernel = c.o.cases;
  m.duration_s = r.seconds;
  json doc = reports::document_json(m, {{r.kernel, r.family, reports::result_json(r)}}, &c.backend);
  doc["run"]["campaign_batch"] = b;
  doc["duration_s_total"] = r.seconds;  // what the budget counts (outside "run", which merges keep)
  c.work.write(batch_file(*k, t, b), doc);
  const json found = corpus_entry(c, r, opts, u, b);
  return json{{"verdict", engine::verdict_name(r.verdict)}, {"seconds", r.seconds}, {"corpus", found}}.dump();
}

// What this session of the campaign did: batches graded, corpus cases stored and found again.
struct SessionCounts {
  std::int64_t graded = 0, corpus_new = 0, corpus_duplicates = 0;
};

// One file per distinct failure (reports/corpus_file.h): a name already
// taken is the same failure found again.
void store_corpus_case(const std::string& corpus, const json& entry, SessionCounts& counts) {
  const fs::path p = fs::path(corpus) / entry["name"].get<std::string>();
  if (fs::exists(p)) {
    ++counts.corpus_duplicates;
  } else {
    fs::create_directories(p.parent_path());
    write_file_whole(p, entry["text"].get<std::string>());
    ++counts.corpus_new;
  }
}

// The units with a batch of this shard still below --batches.
std::vector<std::size_t> units_below(const std::vector<Unit>& state, std::int64_t batches) {
  std::vector<std::size_t> units_now;
  for (std::size_t u = 0; u < state.size(); ++u)
    if (state[u].next < batches) units_now.push_back(u);
  return units_now;
}

// The next round under a budget: the (at most per_round) kernel x dtype
// results that have had the least time so far, then the fewest batches.
std::vector<std::size_t> least_served(const std::vector<Unit>& state, std::size_t per_round) {
  std::vector<std::size_t> order(state.size());
  for (std::size_t u = 0; u < state.size(); ++u) order[u] = u;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return state[a].seconds != state[b].seconds ? state[a].seconds < state[b].seconds : state[a].done < state[b].done;
  });
  order.resize(std::min(order.size(), per_round));
  return order;
}

// The campaign's end: stopped (exit 128 + N, its batches kept to resume),
// or every batch of the folder merged, reported and written.
int finish_campaign(const CampaignCommand& o, const WorkFolder& work, const Shard& shard, const SessionCounts& counts) {
  const fs::path dir = work.dir();
  if (const int sig = stop_signal().load()) {
    fmt::print("interrupted by {}: {} batches graded this session, kept in {}; rerun the same command to resume\n",
               signal_name(sig), counts.graded, work.units().string());
    return 128 + sig;
  }
  const auto docs = batches_of({dir});
  if (docs.empty()) {
    fmt::print("this shard ({}/{}) has no batch below --batches {}: nothing to grade\n", shard.index, shard.count, o.batches);
    return 0;
  }
  const json merged = reports::merge_documents(docs);
  const int rc = report_merged(merged, o.quiet);
  if (!o.corpus.empty())
    fmt::print("corpus {}: {} new case{}, {} failure{} already stored\n", o.corpus, counts.corpus_new,
               counts.corpus_new == 1 ? "" : "s", counts.corpus_duplicates, counts.corpus_duplicates == 1 ? "" : "s");
  reports::OutputFolder folder(dir / "results", reports::FolderKind::results);
  write_results(folder, merged);
  fmt::print("wrote {} ({} batches)\n", (dir / "results" / "results.json").string(), docs.size());
  return rc;
}

}  // namespace

int campaign(const CampaignCommand& o) {
  const auto start = std::chrono::steady_clock::now();
  if (o.out.empty()) throw UsageError("--out DIR is needed: the campaign keeps its finished batches there to resume");
  if (o.budget.empty() == (o.batches <= 0)) throw UsageError("give either --budget (wall clock) or --batches N (fixed work)");
  const double budget_s = o.budget.empty() ? 0 : parse_budget(o.budget);
  const Shard shard = parse_shard(o.shard);
  const std::uint64_t seed = parse_seed(o.seed, "--seed");
  engine::RunOptions base = batch_options(o);
  const auto backend = make_backend(o.backend, o.isolation);
  const Plan plan = base.shapes ? with_problem_lines(make_plan(o.kernels, o.dtypes, o.family, *backend), *base.shapes)
                                 : make_plan(o.kernels, o.dtypes, o.family, *backend);
  const std::optional<engine::AccuracyTier> tier = accuracy_option(o.accuracy, *backend, plan);
  if (tier) base.tier = &*tier;

  const WorkFolder work(o.out, "campaign", "campaign", "batches", campaign_identity(o, plan, seed, shard, base.profile));
  const fs::path state_file = work.dir() / "campaign-state.json";
  double elapsed_before = 0;  // wall clock of earlier sessions of this campaign
  if (fs::exists(state_file)) elapsed_before = read_json_file(state_file, "campaign state").value("elapsed_s", 0.0);
  std::vector<Unit> state = units_on_disk(plan, shard, work);

  const int jobs = o.jobs > 0 ? o.jobs : engine::available_cores();
  const BatchContext batch{o, seed, plan, base, *backend, work};
  engine::SharedProgress counters;
  base.progress = &counters.get();
  SessionCounts counts;
  auto run_round = [&](const std::vector<std::size_t>& units_now) {
    std::vector<std::pair<std::size_t, std::int64_t>> items;
    for (std::size_t u : units_now) items.emplace_back(u, state[u].next);
    engine::run_parallel(
        static_cast<std::int64_t>(items.size()), {.jobs = jobs, .stop = &stop_signal(), .backend = backend.get()},
        [&](std::int64_t i) { return grade_batch(batch, items[i].first, items[i].second); },
        [&](std::int64_t i, const std::string& text) {
          if (text == "interrupted") return;
          const json outcome = json::parse(text);
          auto& s = state[items[i].first];
          s.seconds += outcome["seconds"].get<double>();
          ++s.done;
          s.next += shard.count;
          ++counts.graded;
          if (outcome["verdict"] == "fail" && !o.quiet)
            fmt::print("FAIL {} {} batch {}\n", plan[items[i].first].first->name, dtype_name(plan[items[i].first].second),
                       items[i].second);
          if (outcome["corpus"].is_object()) store_corpus_case(o.corpus, outcome["corpus"], counts);
        });
    const double elapsed = elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_file_whole(state_file, json{{"elapsed_s", elapsed}}.dump() + "\n");
    return elapsed;
  };

  if (o.batches > 0) {
    // Fixed work: every batch of this shard below --batches, at once.
    for (bool more = true; more && !stop_signal().load();) {
      const std::vector<std::size_t> units_now = units_below(state, o.batches);
      more = !units_now.empty();
      if (more) run_round(units_now);
    }
  } else {
    // The budget: rounds of the least-served kernel x dtype results.
    const std::size_t per_round = static_cast<std::size_t>(std::max(1, jobs)) * 2;
    for (double elapsed = elapsed_before; elapsed < budget_s && !stop_signal().load();) {
      elapsed = run_round(least_served(state, per_round));
      if (!o.quiet)
        fmt::print(stderr, "campaign: {} batches graded, {:.0f} of {:.0f} s\n", counts.graded, elapsed, budget_s);
    }
  }
  return finish_campaign(o, work, shard, counts);
}

int merge(const MergeCommand& o) {
  std::vector<fs::path> dirs(o.dirs.begin(), o.dirs.end());
  std::optional<json> identity;
  for (const auto& d : dirs) {
    json id = read_json_file(d / "campaign.json", "campaign description");
    id.erase("shard");
    if (identity && *identity != id)
      throw UsageError(fmt::format("{} is a shard of another campaign ({} against {}): merge shards of one campaign",
                                   d.string(), id.dump(), identity->dump()));
    identity = id;
  }
  reports::OutputFolder folder(o.out, reports::FolderKind::results);
  const auto docs = batches_of(dirs);
  if (docs.empty()) throw UsageError("the folders hold no batch to merge");
  const json merged = reports::merge_documents(docs);
  const int rc = report_merged(merged, true);
  write_results(folder, merged);
  fmt::print("wrote {} ({} batches from {} folders)\n", (fs::path(o.out) / "results.json").string(), docs.size(), dirs.size());
  return rc;
}

}  // namespace kc::cli
