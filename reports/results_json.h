// The results document of a run (schema: docs/results-schema.md), written
// from the engine's RunResults, and the contract as JSON (for `list --json`
// and the report, which print the contract from the same data the checks use).
#pragma once

#include <nlohmann/json.hpp>

#include "reports/json_number.h"

#include "contracts/contract.h"
#include "core/backend.h"
#include "engine/results.h"

namespace kc::reports {

inline constexpr const char* kSchema = "kconform-results/1";

// `backend`: the run's backend, whose dtype table the contract JSON records
// beside the contract's own dtypes (absent without one).
nlohmann::json contract_json(const contract::KernelSpec& k, const Backend* backend = nullptr);
nlohmann::json results_json(const engine::RunResults& r, const Backend* backend = nullptr);

// The same document from results already written as JSON (each by
// result_json, possibly in another process: `run -j`, campaigns), in order.
struct ResultEntry {
  std::string kernel, family;
  nlohmann::json result;
};
nlohmann::json result_json(const engine::KernelDTypeResult& r);
nlohmann::json run_json(const engine::RunMetadata& m);
nlohmann::json document_json(const engine::RunMetadata& m, const std::vector<ResultEntry>& results,
                             const Backend* backend = nullptr);


// Fill run metadata: versions of MPFR, GMP, glibc, Boost, compiler, commit, machine, date.
engine::RunMetadata collect_metadata(std::uint64_t seed, const std::string& backend, const std::string& command);

}  // namespace kc::reports
