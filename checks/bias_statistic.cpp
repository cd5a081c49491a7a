// The bias statistic alone (checks/bias.h): light, so that the report's
// merge (and its fuzz build) can redo the test without the check machinery.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "checks/bias.h"

namespace kc::checks {

BiasStatistic bias_statistic(std::int64_t count, double sum, double sum_squares) {
  BiasStatistic b;
  const double n = static_cast<double>(count);
  b.mean = sum / n;
  const double var = std::max(0.0, sum_squares / n - b.mean * b.mean);
  b.standard_error = std::sqrt(var / n);
  b.z = b.standard_error > 0 ? std::fabs(b.mean) / b.standard_error : (b.mean == 0 ? 0.0 : INFINITY);
  b.ok = b.z <= kBiasMaxZ;
  b.detail = fmt::format("mean {:.3g}, standard error {:.3g}, z = {:.3g} over {} samples (limit |z| <= {})", b.mean,
                         b.standard_error, b.standard_error > 0 ? b.mean / b.standard_error : 0.0, count, kBiasMaxZ);
  return b;
}

}  // namespace kc::checks
