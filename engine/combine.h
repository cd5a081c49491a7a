// The algebra of results: two results of one kernel x dtype combined into
// one, typed, and the pieces that combination shares with the run that
// tallies a result (engine/tally.cpp). Every merge goes through it: runs of
// other seeds or shards, campaign batches, exhaustive blocks and `report`
// over several documents (reports/merge.h reads each document's results
// back with reports/results_reader.h and combines them here).
//
// Counts add; a maximum is the larger, with the element that reached it
// (the first met on a tie, engine/worst.h); worst cases are ranked and cut
// as the run ranks them; failures and differences are the union (each
// element once, its run noted); histograms add bin by bin; the error
// profile regroups its slices as the run groups streamed ones
// (engine/error_profile.h); a check's figure is the one furthest over its
// bound, as within a run; a check that is one test over all the samples
// (bias) is judged again over the pooled ones by the rule its check hands
// in; the findings and headline are then written in a single run's words
// from the combined figures.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "contracts/contract.h"
#include "engine/results.h"

namespace kc::engine {

// The contract's pass figures for the headline of a passing result (the
// accuracy model of the dtype, as the results document writes it).
struct ModelFigures {
  std::optional<contract::AccuracyKind> kind;  // none: no accuracy model
  std::string frac_bound_text;                 // "2.5" or "its bound"
  std::int64_t distance_bound = -1;
};

// A check's rule for its tally of combined runs where adding the runs'
// counts is not its verdict (a test over all the samples): given the tally
// (counts added, the worse figure kept), the pooled accuracy statistics
// and the profile the runs graded, it judges the tally again and returns
// true; false for a tally not its own. Handed in by the checks layer
// (checks/bias.h pool_bias), which the engine does not include.
using PoolRule = std::function<bool(CheckTally&, const AccuracyStats& pooled, Profile)>;

// What the combination needs besides the two results: the contract's
// figures for a pass's headline, the profile the runs graded (a pooled
// reference-profile check that fails in a conformance run differs, as in
// the run), the result's name for errors (histograms of other bins cannot
// be combined) and the pooling rule of the checks.
struct CombineContext {
  ModelFigures model;
  Profile profile = Profile::reference;
  std::string where;
  PoolRule pool;
};

// `into` becomes the combination of itself and `from` (runs `into.run_index`
// and `from.run_index`, or the runs each already combines).
void combine(KernelDTypeResult& into, const KernelDTypeResult& from, const CombineContext& c);

// The pieces a run's tally shares.

// A mean and its standard error from a count, a sum and a sum of squares
// (n > 0): se^2 = (sq / n - mean^2) / n, clamped at 0.
struct MeanAndError {
  double mean = 0, standard_error = 0;
};
MeanAndError mean_and_error(std::int64_t n, double sum, double sum_squares);
// The bias samples' count, sum and sum of squares, from the count, mean
// and standard error a result keeps (the inverse of mean_and_error).
struct BiasSums {
  std::int64_t n = 0;
  double sum = 0, sq = 0;
};
BiasSums bias_sums(const AccuracyStats& a);
// Bin by bin; a UsageError naming `where` for histograms of other bins.
void add(Histogram& into, const Histogram& from, const std::string& where);

}  // namespace kc::engine
