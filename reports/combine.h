// Two results of one kernel x dtype combined into one, typed (the merges
// of runs of other seeds or shards: campaign batches, exhaustive blocks,
// `report` over several documents; reports/merge.h reads each document's
// results with reports/results_reader.h and combines them here). Counts
// add, maxima are the worse with the element that reached them, worst
// cases and failures are the union (each element once, its run noted),
// histograms add bin by bin, the error profile regroups, and the bias
// test is recomputed over the pooled samples; the findings and headline
// are then written in a single run's words from the combined figures.
#pragma once

#include <optional>
#include <string>

#include "contracts/contract.h"
#include "engine/results.h"

namespace kc::reports {

// The contract's pass figures for the headline of a passing result (the
// accuracy model of the dtype, as the results document writes it).
struct ModelFigures {
  std::optional<contract::AccuracyKind> kind;  // none: no accuracy model
  std::string frac_bound_text;                 // "2.5" or "its bound"
  std::int64_t distance_bound = -1;
};

// `into` becomes the combination of itself and `from` (runs `into.run_index`
// and `from.run_index`, or the runs each already combines). `where` names
// the result in errors: histograms of other bins cannot be combined.
void combine(engine::KernelDTypeResult& into, const engine::KernelDTypeResult& from, const ModelFigures& model,
             const std::string& where);

}  // namespace kc::reports
