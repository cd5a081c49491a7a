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
// (engine/combine.h); from two runs of the same seed and shard, under
// different contracts or of different profiles, it is a UsageError naming
// it. Totals are recounted.
nlohmann::json merge_documents(const std::vector<nlohmann::json>& docs);
}  // namespace kc::reports
