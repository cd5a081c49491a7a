// Merging results documents: several runs (other seeds, shards, campaign
// batches, exhaustive blocks) as one document. Results are combined here,
// beside the writer (reports/results_json.h); the site only renders what
// it is given (reports/site/).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kc::reports {

// Joins several documents. The merged document keeps "run" (the first run)
// and adds "runs" (all of them); a result from one run gets "run_index",
// so its page names the run it came from. The same kernel x dtype from
// several runs (other seeds, other shards) is merged into one result
// (merge_results); from two runs of the same seed and shard, or under
// different contracts, it is a UsageError naming it. Totals are recounted.
nlohmann::json merge_documents(const std::vector<nlohmann::json>& docs);
// One kernel x dtype from two runs: counts add, maxima and worst cases
// combine, coverage adds up, failures are kept once each, the bias test is
// redone on the pooled samples, and the findings and headline are
// rewritten from the merged figures; "run_indices" lists the runs.
nlohmann::json merge_results(const nlohmann::json& a, const nlohmann::json& b, const nlohmann::json& contract,
                             const std::string& where);

}  // namespace kc::reports
