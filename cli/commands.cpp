#include "checks/check.h"
#include "cli/shapes_option.h"
#include "cli/commands.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/mutants/mutants.h"
#include "cli/arguments.h"
#include "contracts/contract.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "reports/results_json.h"

namespace kc::cli {

int list(const ListOptions& o) {
  if (!o.backend.empty()) {
    if (o.backends || !o.kernel.empty()) throw UsageError("list --backend SPEC takes no KERNEL and no --backends");
    return list_backend(o.backend, o.json);
  }
  if (!o.kernel.empty()) {
    if (o.backends || !o.family.empty()) throw UsageError("list KERNEL takes neither --backends nor --family");
    return list_kernel(o.kernel, o.json);
  }
  if (o.backends && o.json) {
    nlohmann::json j = nlohmann::json::array();
    j.push_back({{"name", "reference"}, {"description", "the C++ port of the reference backend"}});
    for (const auto& m : mutants::all()) {
      nlohmann::json dtypes = nlohmann::json::array();
      for (DType t : m.dtypes.list()) dtypes.push_back(dtype_name(t));
      j.push_back({{"name", fmt::format("mutant:{}", m.name)}, {"description", m.defect}, {"kernels", m.kernels},
                   {"dtypes", dtypes}, {"expected_check", m.expected_check}});
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
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
      acc += fmt::format("{}{}: {}", acc.empty() ? "" : "; ", dtype_name(a.dtype), contract::bound_summary(a.accuracy));
    fmt::print("{:<11} {:<6} {}\n            dtypes {}; {}\n", k->name, k->family, k->summary,
               k->dtypes().to_string(), acc);
  }
  return 0;
}

int selftest(const SelftestOptions& o) {
  std::vector<const mutants::Mutant*> chosen;
  if (o.mutants.empty())
    for (const auto& m : mutants::all()) chosen.push_back(&m);
  else
    for (const auto& n : o.mutants) {
      const auto* m = mutants::find(n);
      if (!m) throw UsageError(fmt::format("unknown mutant '{}' (see `kconform list --backends`)", n));
      chosen.push_back(m);
    }
  int missed = 0;
  std::vector<std::int64_t> shrunk_sizes;  // of the first shrunk case of each run that has one
  checks::checked_kernels();
  for (const auto* m : chosen) {
    auto backend = make_backend(fmt::format("mutant:{}", m->name));
    engine::RunOptions opts{.checks = &checks::registry()};
    opts.seed = parse_seed(o.seed, "--seed");
    opts.cases = o.cases;
    opts.backend = fmt::format("mutant:{}", m->name);
    opts.profile = m->correct ? engine::Profile::reference : *engine::parse_profile(m->profile);
    if (!m->shapes.empty()) opts.shapes = shapes_option(std::string(m->shapes), 4096);  // (a defect past a size)
    for (std::string_view kernel : m->kernels) {
      for (DType t : m->dtypes.list()) {
        const auto* k = contract::find_kernel(kernel);
        // (a mutant of kernels of different dtypes, dequantize_blocks' u32
        // words and qmatmul's f32, shows on each kernel's own)
        if (!k->accuracy_for(t)) continue;
        auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
        std::string flagged_by;
        const auto expected = engine::kCheckKinds.find(m->expected_check);  // (backends name kinds in words)
        for (const auto& c : r.checks) if (c.failed > 0 && c.kind == expected) flagged_by += (flagged_by.empty() ? "" : ", ") + c.name;
        bool caught = !flagged_by.empty();
        if (m->correct) {
          // Another correct evaluation: the conformance profile must pass it.
          engine::RunOptions conf = opts;
          conf.profile = engine::Profile::conformance;
          const auto rc = engine::run_kernel_dtype(*k, t, *backend, conf);
          if (rc.verdict != engine::Verdict::pass) {
            caught = false;
            flagged_by = "";
            fmt::print("WRONG mutant:{} on {} {}: correct, but the conformance profile failed it: {}\n", m->name,
                       kernel, dtype_name(t), rc.headline);
          }
        }
        missed += !caught;
        std::string shrunk;
        for (const auto& f : r.failures)
          if (f.shrunk_elements >= 0 && shrunk.empty()) {
            shrunk = fmt::format("; shrunk to {} input element{}", f.shrunk_elements, f.shrunk_elements == 1 ? "" : "s");
            shrunk_sizes.push_back(f.shrunk_elements);
          }
        fmt::print("{} mutant:{} on {} {}: {}{}\n", caught ? "CAUGHT" : "MISSED", m->name, kernel, dtype_name(t),
                   caught ? "flagged by " + flagged_by : fmt::format("no '{}' check failed", m->expected_check), shrunk);
        if (caught) {
          // The flagging check's first failure, and the first shrunk case
          // when there is one: each with the replays tests/replay_test.py runs.
          for (const auto& f : r.failures)
            if (f.check == flagged_by.substr(0, flagged_by.find(',')) || f.check.find(m->expected_check) != std::string::npos) {
              fmt::print("{}\n", f.message);
              break;
            }
          for (const auto& f : r.failures)
            if (f.shrunk_elements >= 0) {
              fmt::print("{}\n", f.message);
              break;
            }
        }
      }
    }
  }
  if (!shrunk_sizes.empty()) {
    std::sort(shrunk_sizes.begin(), shrunk_sizes.end());
    const std::size_t n = shrunk_sizes.size();
    const double median = n % 2 ? static_cast<double>(shrunk_sizes[n / 2])
                                : (static_cast<double>(shrunk_sizes[n / 2 - 1]) + static_cast<double>(shrunk_sizes[n / 2])) / 2;
    fmt::print("shrunk cases: median {} input elements over {} runs (largest {})\n", median, n, shrunk_sizes.back());
  }
  fmt::print("{} mutant x dtype runs missed\n", missed);
  return missed > 0 ? 1 : 0;
}

}  // namespace kc::cli
