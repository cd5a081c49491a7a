// What `run` and `campaign` share: the kernel x dtype plan of a command,
// and the results folder (results.json and its site, replaced as a whole).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "contracts/contract.h"
#include "core/backend.h"
#include <optional>

#include "engine/accuracy_tier.h"
#include "engine/conformance.h"
#include "engine/results.h"
#include "reports/output_folder.h"

namespace kc::cli {

using Plan = std::vector<std::pair<const contract::KernelSpec*, DType>>;

// The kernels (or a family) and dtypes asked for, every one by default; a
// plug-in grades what it registers (naming a kernel it lacks is an error).
Plan make_plan(const std::vector<std::string>& kernels, const std::vector<std::string>& dtypes,
               const std::string& family, const Backend& backend);

// --profile: "" gives the backend's default (reference for the reference
// backend, conformance otherwise); anything but the two names is a UsageError.
engine::Profile profile_option(const std::string& text, const std::string& backend);
// What a results document says of the run that graded it: the machine and
// build (reports::collect_metadata), the seed, the profile, the accuracy
// tier and the plug-in library of these options.
engine::RunMetadata run_metadata_of(const engine::RunOptions& opts, std::uint64_t seed, const std::string& backend_spec,
                                    const std::string& command, const Backend& backend);
// A work folder's or journal's identity with --accuracy added where it is
// not the reference tier (a reference-tier folder keeps the identity it had).
nlohmann::json with_accuracy(nlohmann::json id, const std::string& accuracy);
// --accuracy: the tier over the plan's kernels (nullopt: the reference tier).
std::optional<engine::AccuracyTier> accuracy_option(const std::string& text, const Backend& backend, const Plan& plan);

// Writes `doc` as results.json and its site as site/ into the folder (made
// before the work, so that a bad path fails first) and swaps it in.
void write_results(reports::OutputFolder& folder, const nlohmann::json& doc);

// A JSON file, or UsageError naming it and why it cannot be read.
nlohmann::json read_json_file(const std::filesystem::path& p, const std::string& what);

// The way a result's check failed, as its findings name it (accuracy and
// special checks: the failure kind, "frac_bound", "special_rule"); else "".
std::string failure_of(const engine::KernelDTypeResult& r, const std::string& check);

// Writes a file whole: a temporary sibling renamed into place.
void write_file_whole(const std::filesystem::path& p, const std::string& content);

}  // namespace kc::cli
