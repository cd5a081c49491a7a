// The bias statistic alone and its rule for combined runs (checks/bias.h):
// light, so that the merge of results (and its fuzz build) can redo the
// test without the check machinery.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "checks/bias.h"
#include "engine/combine.h"

namespace kc::checks {

BiasStatistic bias_statistic(std::int64_t count, double sum, double sum_squares) {
  BiasStatistic b;
  const double n = static_cast<double>(count);
  const engine::MeanAndError m = engine::mean_and_error(count, sum, sum_squares);
  b.mean = m.mean;
  b.standard_error = m.standard_error;
  b.z = b.standard_error > 0 ? std::fabs(b.mean) / b.standard_error : (b.mean == 0 ? 0.0 : INFINITY);
  b.ok = b.z <= kBiasMaxZ;
  b.detail = fmt::format("mean {:.3g}, standard error {:.3g}, z = {:.3g} over {} samples (limit |z| <= {})", b.mean,
                         b.standard_error, b.standard_error > 0 ? b.mean / b.standard_error : 0.0, count, kBiasMaxZ);
  return b;
}

bool pool_bias(engine::CheckTally& c, const engine::AccuracyStats& acc, engine::Profile profile) {
  if (c.kind != engine::CheckKind::bias) return false;
  c.differs = 0;
  if (acc.bias_samples < kBiasMinSamples) {
    c.passed = 0, c.failed = 0, c.not_graded = 1;
    c.detail = fmt::format("only {} samples in the merged runs, the test needs {}", acc.bias_samples, kBiasMinSamples);
    c.metric.clear(), c.figure.reset(), c.bound.reset();
    return true;
  }
  const engine::BiasSums s = engine::bias_sums(acc);
  const BiasStatistic stat = bias_statistic(s.n, s.sum, s.sq);
  // (As the run counts it: a reference-profile check in a conformance run differs rather than fails.)
  const bool differs_only = profile == engine::Profile::conformance && c.profile == engine::Profile::reference;
  c.passed = stat.ok ? 1 : 0, c.not_graded = 0;
  (differs_only ? c.differs : c.failed) = stat.ok ? 0 : 1;
  c.detail = stat.detail + " (pooled over the merged runs)";
  c.metric = "|z|", c.figure = stat.z, c.bound = kBiasMaxZ;
  return true;
}

}  // namespace kc::checks
