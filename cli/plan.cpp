#include "cli/plan.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/arguments.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "reports/results_json.h"
#include "reports/site/site.h"

namespace kc::cli {

Plan make_plan(const std::vector<std::string>& names, const std::vector<std::string>& dtypes, const std::string& family,
               const Backend& backend) {
  const bool external = backend.library().has_value();
  auto kernels = select_kernels(names, family);
  if (external) {
    std::erase_if(kernels, [&](const contract::KernelSpec* k) {
      if (backend.supported(k->name)) return false;
      if (!names.empty()) throw UsageError(fmt::format("{} does not implement kernel '{}'", backend.name(), k->name));
      return true;
    });
  }
  const auto wanted = parse_dtypes(dtypes);
  Plan plan;
  for (const auto* k : kernels) {
    for (DType t : engine::graded_dtypes(*k))
      if ((wanted.empty() || std::find(wanted.begin(), wanted.end(), t) != wanted.end()) &&
          (!external || backend.supported(k->name)->contains(t)))
        plan.emplace_back(k, t);
    if (kernels.size() == 1 && !wanted.empty() && plan.empty()) {
      // Whose limit it is: a library that lacks a dtype its contract lists
      // is named, not the contract.
      if (external && std::any_of(wanted.begin(), wanted.end(), [&](DType t) { return k->dtypes().contains(t); }))
        throw UsageError(fmt::format("{} does not implement {} {} (it implements {}; the contract lists {})",
                                     backend.name(), k->name, dtypes.front(), backend.supported(k->name)->to_string(),
                                     k->dtypes().to_string()));
      throw UsageError(fmt::format("kernel '{}' does not take {} (its contract lists {})", k->name, dtypes.front(),
                                   k->dtypes().to_string()));
    }
  }
  if (plan.empty()) throw UsageError("nothing to run: no kernel supports the requested dtypes");
  return plan;
}

engine::Profile profile_option(const std::string& text, const std::string& backend) {
  if (text.empty()) return engine::default_profile(backend);
  const auto p = engine::parse_profile(text);
  if (!p) throw UsageError(fmt::format("--profile '{}': expected conformance or reference", text));
  return *p;
}

engine::RunMetadata run_metadata_of(const engine::RunOptions& opts, std::uint64_t seed, const std::string& backend_spec,
                                    const std::string& command, const Backend& backend) {
  engine::RunMetadata m = reports::collect_metadata(seed, backend_spec, command);
  m.profile = opts.profile;
  if (opts.tier) m.accuracy_tier = opts.tier->name, m.accuracy_tier_source = opts.tier->source;
  if (const auto lib = backend.library()) m.plugin = *lib, m.environment = opts.isolation.environment;
  return m;
}

nlohmann::json with_accuracy(nlohmann::json id, const std::string& accuracy) {
  if (accuracy != "reference") id["accuracy"] = accuracy;
  return id;
}

std::optional<engine::AccuracyTier> accuracy_option(const std::string& text, const Backend& backend, const Plan& plan) {
  std::vector<const contract::KernelSpec*> kernels;
  for (const auto& [k, t] : plan)
    if (kernels.empty() || kernels.back() != k) kernels.push_back(k);
  std::optional<engine::AccuracyTier> tier = engine::load_tier(text, backend, kernels);
  if (tier) tier->spec = text;
  return tier;
}

void write_results(reports::OutputFolder& folder, const nlohmann::json& doc) {
  namespace site = reports::site;
  const site::Files files = site::render_site(doc, nullptr, nullptr);
  // (Every string was repaired where it entered; `replace` is the last guard: a run is never lost to a byte.)
  nlohmann::json on_disk = doc;
  reports::encode_nonfinite(on_disk);  // (every figure a number or null: reports/json_number.h)
  folder.write("results.json", on_disk.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  for (const auto& [name, content] : files) folder.write(std::filesystem::path("site") / name, content);
  folder.commit();
}

nlohmann::json read_json_file(const std::filesystem::path& p, const std::string& what) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot open {}", p.string(), what));
  std::ostringstream s;
  s << in.rdbuf();
  try {
    nlohmann::json doc = nlohmann::json::parse(s.str());
    reports::decode_nonfinite(doc);
    return doc;
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("{}: not a readable {} ({})", p.string(), what, e.what()));
  }
}

void write_file_whole(const std::filesystem::path& p, const std::string& content) {
  const std::filesystem::path part = p.string() + ".part";
  {
    std::ofstream out(part, std::ios::binary);
    out << content;
    if (!out.flush()) throw UsageError(fmt::format("cannot write {}", part.string()));
  }
  std::filesystem::rename(part, p);
}

}  // namespace kc::cli
