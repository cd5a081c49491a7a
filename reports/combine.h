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

// What the combination needs besides the two results: the contract's
// figures for a pass's headline, the profile the runs graded (a pooled
// reference-profile check that fails in a conformance run differs, as in
// the run), and the result's name for errors (histograms of other bins
// cannot be combined).
struct CombineContext {
  ModelFigures model;
  engine::Profile profile = engine::Profile::reference;
  std::string where;
};

// `into` becomes the combination of itself and `from` (runs `into.run_index`
// and `from.run_index`, or the runs each already combines).
void combine(engine::KernelDTypeResult& into, const engine::KernelDTypeResult& from, const CombineContext& c);

}  // namespace kc::reports
