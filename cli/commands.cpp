#include "cli/commands.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/mutants/mutants.h"
#include "contracts/contract.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "reports/html.h"
#include "reports/results_json.h"

namespace kc::cli {

namespace {

std::string kernel_names() {
  std::string s;
  for (const auto& k : engine::checked_kernels()) s += (s.empty() ? "" : ", ") + std::string(k.name);
  return s;
}

std::vector<const contract::KernelSpec*> select_kernels(const std::vector<std::string>& names, const std::string& family) {
  std::vector<const contract::KernelSpec*> out;
  const auto& table = engine::checked_kernels();
  if (!family.empty()) {
    bool known = false;
    for (const auto& k : table) known |= k.family == family;
    if (!known) throw UsageError(fmt::format("unknown family '{}'", family));
  }
  if (names.empty()) {
    for (const auto& k : table)
      if (family.empty() || k.family == family) out.push_back(&k);
    return out;
  }
  for (const auto& n : names) {
    const contract::KernelSpec* k = contract::find_kernel(n);
    if (!k) throw UsageError(fmt::format("unknown kernel '{}'; known kernels: {}", n, kernel_names()));
    out.push_back(k);
  }
  return out;
}

std::vector<DType> parse_dtypes(const std::vector<std::string>& names) {
  std::vector<DType> v;
  for (const auto& n : names) {
    auto t = parse_dtype(n);
    if (!t) throw UsageError(fmt::format("unknown dtype '{}' (f32, f64, bf16, f16, u32, u8)", n));
    v.push_back(*t);
  }
  return v;
}

std::vector<int> parse_path(const std::string& s) {
  std::vector<int> v;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long x = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || x < 0) throw UsageError(fmt::format("--shrink: '{}' is not a list of indices", s));
    v.push_back(static_cast<int>(x));
    pos = comma == std::string::npos ? s.size() : comma + 1;
  }
  return v;
}

std::string summary_line(const engine::KernelDTypeResult& r) {
  const auto& a = r.accuracy;
  std::string s = fmt::format("{:<4} {:<11} {:<5} max {:.4g} ulp, distance {}, {} elements{}", r.verdict == "pass" ? "PASS" : "FAIL",
                              r.kernel, dtype_name(r.dtype), a.max_frac_ulp, a.max_distance, r.elements,
                              r.exhaustive ? " (exhaustive)" : "");
  if (a.max_normalized) s += fmt::format(", normalized {:.4g}", *a.max_normalized);
  return s;
}

}  // namespace

int list(const ListOptions& o) {
  if (o.backends) {
    fmt::print("reference  the C++ port of the reference backend\n");
    for (const auto& m : mutants::all())
      fmt::print("mutant:{:<24} {} [{}; flagged by: {}]\n", m.name, m.defect, fmt::join(m.kernels, ", "),
                 m.expected_check);
    return 0;
  }
  auto kernels = select_kernels({}, o.family);
  if (o.json) {
    const auto reference = make_backend("reference");
    nlohmann::json j = nlohmann::json::array();
    for (const auto* k : kernels) j.push_back(reports::contract_json(*k, reference.get()));
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  for (const auto* k : kernels) {
    std::string acc;
    for (const auto& a : k->accuracy)
      acc += fmt::format("{}{}: {}", acc.empty() ? "" : "; ", dtype_name(a.dtype), contract::accuracy_kind_name(a.accuracy.kind));
    fmt::print("{:<11} {:<6} {}\n            dtypes {}; {}\n", k->name, k->family, k->summary,
               k->dtypes().to_string(), acc);
  }
  return 0;
}

int run(const RunCommand& o) {
  const auto start = std::chrono::steady_clock::now();
  auto kernels = select_kernels(o.kernels, o.family);
  const auto wanted = parse_dtypes(o.dtypes);
  auto backend = make_backend(o.backend);
  engine::RunOptions opts;
  opts.seed = o.seed;
  opts.cases = o.cases;
  opts.sweeps = o.sweeps;
  opts.exhaustive_halves = !o.no_exhaustive;
  opts.only_case = o.only_case;
  opts.shrink_path = parse_path(o.shrink);
  opts.backend = o.backend;
  if (!opts.shrink_path.empty() && !opts.only_case) throw UsageError("--shrink needs --case");
  if (o.bad_input) opts.cases = std::min(opts.cases, 1), opts.exhaustive_halves = false;

  std::vector<std::pair<const contract::KernelSpec*, DType>> plan;
  for (const auto* k : kernels) {
    const auto supported = engine::graded_dtypes(*k);
    for (DType t : supported)
      if (wanted.empty() || std::find(wanted.begin(), wanted.end(), t) != wanted.end()) plan.emplace_back(k, t);
    if (kernels.size() == 1 && !wanted.empty() && plan.empty())
      throw UsageError(fmt::format("kernel '{}' does not take {} (its contract lists {})", k->name, o.dtypes.front(),
                                   k->dtypes().to_string()));
  }
  if (plan.empty()) throw UsageError("nothing to run: no kernel supports the requested dtypes");

  if (!o.input.empty()) {
    if (plan.size() != 1) throw UsageError("--input needs exactly one --kernel and one --dtype");
    std::vector<std::uint64_t> bits;
    std::size_t pos = 0;
    while (pos <= o.input.size()) {
      const std::size_t comma = o.input.find(',', pos);
      const std::string item = o.input.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      char* end = nullptr;
      const std::uint64_t b = std::strtoull(item.c_str(), &end, 16);
      if (item.empty() || *end) throw UsageError(fmt::format("--input '{}' is not a list of hex bit patterns", o.input));
      bits.push_back(b);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    bool failed = false;
    const auto rep = engine::replay_element(*plan[0].first, plan[0].second, *backend, bits, Params::parse(o.params),
                                            opts, failed);
    fmt::print("{}\n{}\n", failed ? "FAIL" : "PASS", rep.message);
    return failed ? 1 : 0;
  }

  std::ofstream dump;
  if (!o.dump.empty()) {
    const std::filesystem::path dp(o.dump);
    if (dp.has_parent_path()) std::filesystem::create_directories(dp.parent_path());
    dump.open(o.dump);
    if (!dump) throw UsageError("cannot write " + o.dump);
    opts.dump = &dump;
  }
  engine::RunResults results;
  results.run = reports::collect_metadata(o.seed, o.backend, o.command_line);
  results.run.cases_per_kernel = o.cases;
  int failures = 0;
  for (const auto& [k, t] : plan) {
    auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
    if (r.verdict != "pass") ++failures;
    if (!o.quiet || r.verdict != "pass") fmt::print("{}\n", summary_line(r));
    if (r.verdict != "pass")
      for (const auto& f : r.failures) fmt::print("{}\n\n", f.message);
    results.results.push_back(std::move(r));
  }
  results.run.duration_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("{} of {} kernel x dtype results pass ({:.1f} s)\n", plan.size() - static_cast<std::size_t>(failures),
             plan.size(), results.run.duration_s);
  if (!o.out.empty()) {
    namespace fs = std::filesystem;
    const fs::path dir(o.out);
    fs::create_directories(dir);
    const auto doc = reports::results_json(results, backend.get());
    {
      const fs::path tmp = dir / "results.json.tmp";
      std::ofstream f(tmp);
      f << doc.dump(1) << "\n";
      if (!f) throw UsageError("cannot write " + tmp.string());
      f.close();
      fs::rename(tmp, dir / "results.json");
    }
    reports::write_site(doc, dir / "site");
    fmt::print("wrote {} and {}\n", (dir / "results.json").string(), (dir / "site" / "index.html").string());
  }
  return failures > 0 ? 1 : 0;
}

int selftest(const SelftestOptions& o) {
  std::vector<const mutants::Mutant*> chosen;
  if (o.mutants.empty()) {
    for (const auto& m : mutants::all()) chosen.push_back(&m);
  } else {
    for (const auto& n : o.mutants) {
      const auto* m = mutants::find(n);
      if (!m) throw UsageError(fmt::format("unknown mutant '{}' (see `kconform list --backends`)", n));
      chosen.push_back(m);
    }
  }
  int missed = 0;
  engine::checked_kernels();
  for (const auto* m : chosen) {
    auto backend = make_backend(fmt::format("mutant:{}", m->name));
    engine::RunOptions opts;
    opts.seed = o.seed;
    opts.cases = o.cases;
    opts.backend = fmt::format("mutant:{}", m->name);
    for (std::string_view kernel : m->kernels)
    for (DType t : m->dtypes.list()) {
      const auto* k = contract::find_kernel(kernel);
      auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
      std::string flagged_by;
      for (const auto& c : r.checks)
        if (c.failed > 0 && c.kind == m->expected_check) flagged_by += (flagged_by.empty() ? "" : ", ") + c.name;
      const bool caught = !flagged_by.empty();
      missed += !caught;
      fmt::print("{} mutant:{} on {} {}: {}\n", caught ? "CAUGHT" : "MISSED", m->name, kernel, dtype_name(t),
                 caught ? "flagged by " + flagged_by : fmt::format("no '{}' check failed", m->expected_check));
      if (caught)
        for (const auto& f : r.failures)
          if (f.check == flagged_by.substr(0, flagged_by.find(',')) || f.check.find(m->expected_check) != std::string::npos) {
            fmt::print("{}\n", f.message);
            break;
          }
    }
  }
  fmt::print("{} mutant x dtype runs missed\n", missed);
  return missed > 0 ? 1 : 0;
}

}  // namespace kc::cli
