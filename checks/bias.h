// The bias statistic, shared by the "bias" check and by the combination of
// results (engine/combine.h), which judges it again over the pooled
// samples of merged runs by the rule below.
#pragma once

#include <cstdint>
#include <string>

#include "engine/results.h"

namespace kc::checks {

// Under unbiased rounding errors the mean of N signed errors has mean 0 and
// standard error sd/sqrt(N); |mean| > 6 s.e. has probability below 2e-9
// (docs/accuracy-bounds.md, "Statistical check"). Under 1000 samples the
// test has too little power to tell a biased kernel from an unbiased one.
inline constexpr std::int64_t kBiasMinSamples = 1000;
inline constexpr double kBiasMaxZ = 6;

struct BiasStatistic {
  double mean = 0, standard_error = 0, z = 0;  // z: |mean| / s.e. (inf for a nonzero mean with s.e. 0)
  bool ok = true;
  std::string detail;  // "mean ..., standard error ..., z = ... over N samples (limit |z| <= 6)"
};
// From the count, sum and sum of squares of the signed errors (n > 0).
BiasStatistic bias_statistic(std::int64_t n, double sum, double sum_squares);
// The bias check's rule for its tally of combined runs (engine::PoolRule):
// the test over the pooled samples, "not graded" under kBiasMinSamples.
bool pool_bias(engine::CheckTally& c, const engine::AccuracyStats& pooled, engine::Profile profile);

}  // namespace kc::checks
