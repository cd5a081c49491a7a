// `kconform exhaustive --kernel K --dtype T [--range LO:HI] --out DIR`:
// every input bit pattern of a one-input elementwise kernel (engine/
// exhaustive.h), in blocks graded by worker processes. Each finished block
// is a results document of its own under DIR/blocks/ (written whole, by
// rename), so a sweep killed at any moment and restarted with the same
// arguments grades only the blocks it lacks, and shards of a range run
// anywhere (--range) and merge (`kconform report DIR/blocks/*.json`). The
// sweep's merged document and site go to DIR/results/.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "checks/check.h"
#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/plan.h"
#include "cli/progress.h"
#include "cli/signals.h"
#include "cli/work_folder.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/exhaustive.h"
#include "engine/failure_text.h"
#include "engine/parallel.h"
#include "reports/output_folder.h"
#include "reports/results_json.h"
#include "reports/merge.h"
#include "reports/site/site.h"

namespace kc::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::uint64_t parse_bound(const std::string& text, const std::string& what) {
  std::uint64_t v = 0;
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* b = text.data() + (hex ? 2 : 0);
  const auto [p, ec] = std::from_chars(b, text.data() + text.size(), v, hex ? 16 : 10);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size())
    throw UsageError(fmt::format("--range: {} '{}' is not an integer (decimal or 0x hex)", what, text));
  return v;
}

struct Range {
  std::uint64_t lo, hi;
};

// "LO:HI", bit patterns, HI exclusive; default: every pattern of the dtype.
Range parse_range(const std::string& text, DType t) {
  const int bits = float_format(t).total_bits;
  const std::uint64_t end = bits >= 64 ? 0 : std::uint64_t{1} << bits;
  if (text.empty()) {
    if (bits >= 64) throw UsageError("an f64 sweep needs --range LO:HI: all 2^64 inputs are out of reach");
    return {0, end};
  }
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw UsageError(fmt::format("--range '{}': expected LO:HI (bit patterns, HI exclusive)", text));
  const Range r{parse_bound(text.substr(0, colon), "LO"), parse_bound(text.substr(colon + 1), "HI")};
  if (r.lo >= r.hi) throw UsageError(fmt::format("--range '{}': LO must be below HI", text));
  if (bits < 64 && r.hi > end)
    throw UsageError(fmt::format("--range '{}': {} has {} bit patterns (0 to 0x{:x})", text, dtype_name(t), end, end - 1));
  return r;
}

std::string block_name(std::uint64_t a, std::uint64_t b) { return fmt::format("{:016x}-{:016x}.json", a, b); }

// What a sweep grades: one kernel and dtype, over a range of input bit
// patterns, with the kernel's parameters.
struct Sweep {
  const contract::KernelSpec* kernel = nullptr;
  DType dtype = DType::f32;
  Range range{};
  Params params;
};

// The sweep the options name, every option checked (exit 2) before any work.
Sweep sweep_of(const ExhaustiveCommand& o) {
  const auto kernels = select_kernels({o.kernel}, "");
  const contract::KernelSpec& k = *kernels.at(0);
  const auto dtypes = parse_dtypes({o.dtype});
  const DType t = dtypes.at(0);
  if (const std::string why = engine::exhaustive_unsupported(k, t); !why.empty()) throw UsageError(why);
  const Range range = parse_range(o.range, t);
  Params params = parse_params_for(k, o.params);
  if (o.out.empty()) throw UsageError("--out DIR is needed: the sweep keeps its finished blocks there to resume");
  if (o.block_log2 < 16 || o.block_log2 > 32) throw UsageError("--block: 16 to 32 (log2 of the inputs per block)");
  return {&k, t, range, std::move(params)};
}

// The run options every block is graded with.
engine::RunOptions sweep_options(const ExhaustiveCommand& o) {
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.backend = o.backend;
  opts.isolation = o.isolation;
  opts.profile = profile_option(o.profile, o.backend);
  opts.fast_oracle = !o.exact_oracle;
  opts.stop = &stop_signal();
  return opts;
}

// The sweep's identity: a folder holds blocks of one sweep only.
json sweep_identity(const ExhaustiveCommand& o, const Sweep& s, engine::Profile profile) {
  return with_accuracy(json{{"kernel", s.kernel->name},      {"dtype", dtype_name(s.dtype)},
                            {"range", fmt::format("0x{:x}:0x{:x}", s.range.lo, s.range.hi)},
                            {"block_log2", o.block_log2}, {"backend", o.backend},
                            {"profile", engine::profile_name(profile)},
                            {"params", s.params.to_string()}, {"exact_oracle", o.exact_oracle}},
                       o.accuracy);
}

// The blocks of the range, aligned to the block size, and those still to grade.
struct Blocks {
  std::vector<Range> all, todo;
};

// The range cut into blocks of 2^block_log2 inputs; a block the folder holds is done.
Blocks blocks_of(const Range& range, int block_log2, const WorkFolder& work) {
  const std::uint64_t size = std::uint64_t{1} << block_log2;
  Blocks blocks;
  for (std::uint64_t a = range.lo; a < range.hi;) {
    const std::uint64_t b = std::min(range.hi, (a / size + 1) * size);
    blocks.all.push_back({a, b});
    if (!work.has(block_name(a, b))) blocks.todo.push_back({a, b});
    a = b;
  }
  return blocks;
}

// A sweep stopped by signal `sig`: what it keeps, and exit 128 + sig.
int sweep_interrupted(int sig, const std::vector<Range>& all, const WorkFolder& work) {
  std::size_t have = 0;
  for (const Range& r : all) have += work.has(block_name(r.lo, r.hi));
  fmt::print("interrupted by {}: {} of {} blocks graded and kept in {}; rerun the same command to resume\n",
             signal_name(sig), have, all.size(), work.units().string());
  return 128 + sig;
}

// The sweep as one result: every block's document, in input order, merged,
// its summary printed, its results and site written. Exit 0 pass, 1 fail.
int finish_sweep(const Sweep& s, const std::vector<Range>& all, const WorkFolder& work, const engine::RunOptions& opts,
                 std::chrono::steady_clock::time_point start, int jobs) {
  const fs::path dir = work.dir();
  std::vector<json> docs;
  for (const Range& r : all) {
    docs.push_back(work.read(block_name(r.lo, r.hi)));
  }
  json merged = reports::merge_documents(docs);
  merged["run"]["command"] = engine::range_replay(s.kernel->name, s.dtype, opts, s.params, s.range.lo, s.range.hi);
  merged["run"]["duration_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const json& r = merged["kernels"][0]["results"][0];
  const std::string verdict = r["verdict"];
  fmt::print("{} {} {} exhaustive over 0x{:x}:0x{:x}: {}; {} elements graded ({:.1f} s, {} process{})\n",
             verdict == "pass" ? "PASS" : "FAIL", s.kernel->name, dtype_name(s.dtype), s.range.lo, s.range.hi,
             r["headline"].get<std::string>(), r["elements"].get<std::int64_t>(), merged["run"]["duration_s"].get<double>(),
             jobs, jobs == 1 ? "" : "es");
  if (verdict == "fail")
    for (const auto& f : r["failures"]) fmt::print("{}\n\n", f.value("message", ""));
  reports::OutputFolder folder(dir / "results", reports::FolderKind::results);
  write_results(folder, merged);
  fmt::print("wrote {} and {}\n", (dir / "results" / "results.json").string(), (dir / "results" / "site" / "index.html").string());
  return verdict == "pass" ? 0 : 1;
}

}  // namespace

int exhaustive(const ExhaustiveCommand& o) {
  const auto start = std::chrono::steady_clock::now();
  const Sweep sweep = sweep_of(o);
  const contract::KernelSpec& k = *sweep.kernel;
  const DType t = sweep.dtype;
  const Params& params = sweep.params;

  engine::RunOptions opts = sweep_options(o);
  const auto backend = make_backend(o.backend, opts.isolation);
  if (backend->library() && (!backend->supported(k.name) || !backend->supported(k.name)->contains(t)))
    throw UsageError(fmt::format("{} does not implement {} for {}", backend->name(), k.name, dtype_name(t)));
  const std::optional<engine::AccuracyTier> tier = accuracy_option(o.accuracy, *backend, {{&k, t}});
  if (tier) opts.tier = &*tier;

  const WorkFolder work(o.out, "exhaustive", "sweep", "blocks", sweep_identity(o, sweep, opts.profile));
  const Blocks blocks = blocks_of(sweep.range, o.block_log2, work);
  const std::vector<Range>& all = blocks.all;
  const std::vector<Range>& todo = blocks.todo;
  auto command = [&](std::uint64_t a, std::uint64_t b) {
    return engine::range_replay(k.name, t, opts, params, a, b) + " --out kconform-replay";
  };
  if (!o.quiet)
    fmt::print("{} {}: {} inputs in {} blocks, {} already graded in {}\n", k.name, dtype_name(t),
               sweep.range.hi - sweep.range.lo, all.size(), all.size() - todo.size(), work.units().string());

  engine::SharedProgress counters;
  opts.progress = &counters.get();
  const int jobs = static_cast<int>(std::min<std::size_t>(o.jobs > 0 ? o.jobs : engine::available_cores(), std::max<std::size_t>(todo.size(), 1)));
  auto grade = [&](std::int64_t i) {
    const Range r = todo[static_cast<std::size_t>(i)];
    const auto res = engine::grade_range(k, t, *backend, opts, params, r.lo, r.hi, command);
    if (res.interrupted) return std::string();  // a block is kept only whole
    engine::RunMetadata m = run_metadata_of(opts, 0, o.backend, command(r.lo, r.hi), *backend);
    m.duration_s = res.seconds;
    json doc = reports::document_json(m, {{res.kernel, res.family, reports::result_json(res)}}, backend.get());
    doc["run"]["shard"] = fmt::format("0x{:x}:0x{:x}", r.lo, r.hi);  // distinct cases of one kernel x dtype (merge)
    work.write(block_name(r.lo, r.hi), doc);
    return std::string(engine::verdict_name(res.verdict));
  };
  std::int64_t failing_blocks = 0;
  {
    ProgressLine progress(counters.get(), static_cast<std::int64_t>(todo.size()), !o.quiet, o.progress_s, jobs == 1);
    auto done = [&](std::int64_t i, const std::string& verdict) {
      ++counters.get().results;
      if (verdict != "fail") return;
      ++failing_blocks;
      const Range r = todo[static_cast<std::size_t>(i)];
      progress.print_above([&] { fmt::print("FAIL block 0x{:x}:0x{:x}\n", r.lo, r.hi); });
    };
    engine::run_parallel(static_cast<std::int64_t>(todo.size()),
                         {.jobs = jobs, .stop = &stop_signal(), .backend = backend.get(), .tick = [&] { progress.tick(); }},
                         grade, done);
  }
  if (const int sig = stop_signal().load()) return sweep_interrupted(sig, all, work);
  return finish_sweep(sweep, all, work, opts, start, jobs);
}

}  // namespace kc::cli
