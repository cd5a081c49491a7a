// `kconform search`: the worst-case search (engine/search.h) over one-input
// elementwise kernels and their dtypes: per kernel x dtype the worst error
// found with its input, exact value and replay, beside the worst of the
// random phase alone. Exit 0 when every worst case is within its contract,
// 1 when one is not, 2 on bad arguments.
#include <fmt/format.h>

#include "checks/check.h"
#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/plan.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/findings.h"
#include "engine/search.h"
#include "reports/output_folder.h"

namespace kc::cli {

int search(const SearchCommand& o) {
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.seed = parse_seed(o.seed, "--seed");
  opts.backend = o.backend;
  opts.isolation = o.isolation;
  opts.profile = profile_option(o.profile, o.backend);
  const auto backend = make_backend(o.backend, o.isolation);
  Plan plan = make_plan(o.kernels, o.dtypes, o.family, *backend);
  // Named kernels must be searchable; by default, every one that is.
  std::erase_if(plan, [&](const auto& kt) {
    const std::string why = engine::search_unsupported(*kt.first, kt.second);
    if (!why.empty() && !o.kernels.empty()) throw UsageError(why);
    return !why.empty();
  });
  if (plan.empty()) throw UsageError("no one-input elementwise kernel among those asked for");
  const std::optional<engine::AccuracyTier> tier = accuracy_option(o.accuracy, *backend, plan);
  if (tier) opts.tier = &*tier;
  std::optional<reports::StagedFile> json_out;
  if (!o.json.empty()) json_out.emplace(o.json);
  nlohmann::json doc = nlohmann::json::array();
  int failing = 0;
  for (const auto& [k, t] : plan) {
    const auto r = engine::search_worst(*k, t, *backend, opts, o.evaluations, opts.seed);
    failing += r.failed;
    fmt::print("{:<4} {:<11} {:<5} worst {} ulp (distance {}) at x = {} ({}); the random phase alone ({} of {} "
               "elements): {}\n",
               r.failed ? "FAIL" : "PASS", k->name, dtype_name(t), engine::figure_text(r.worst.frac_ulp),
               r.worst_distance, r.worst.input, r.worst.input_hex, r.random_evaluations, r.evaluations,
               r.random_failed ? std::string("a failure already")
                               : fmt::format("{} ulp", engine::figure_text(r.random_worst_frac)));
    if (r.failed) fmt::print("{}\n\n", r.worst.message);
    doc.push_back({{"kernel", k->name}, {"dtype", dtype_name(t)}, {"failed", r.failed},
                   {"evaluations", r.evaluations}, {"random_evaluations", r.random_evaluations},
                   {"worst_frac_ulp", r.worst.frac_ulp}, {"worst_distance", r.worst_distance},
                   {"input_hex", r.worst.input_hex}, {"result_hex", r.worst.result_hex}, {"exact", r.worst.exact},
                   {"replay", r.worst.repro}, {"random_worst_frac_ulp", r.random_worst_frac},
                   {"random_failed", r.random_failed}});
  }
  if (json_out) {
    json_out->stream() << doc.dump(2) << "\n";
    json_out->commit();
  }
  return failing > 0 ? 1 : 0;
}

}  // namespace kc::cli
