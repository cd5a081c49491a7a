// Tables of one kernel x dtype result (reports/site/result_tables.cpp),
// used by the kernel page.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kc::reports::site {

using json = nlohmann::json;

// Worst cases or failures as rows: input, result, exact, errors, bound, where, replay.
std::string elements_table(const json& list, bool normalized);
// The checks run: kind, name, profile, passed, failed, differs, result, detail.
std::string checks_table(const json& checks);
// The backend's claim beside the contract's bound and the measurement.
std::string declared_section(const json& r, const json& model);
// Kept failures (or differences), the shrunk case first, each with its replay.
std::string failures_section(const json& failures, std::string_view title = "Failures");

// The shapes graded: profile, shaped cases, the largest case, the sampled
// outputs and their guarantee, the failing problem lines.
std::string shapes_section(const json& r);

}  // namespace kc::reports::site
