#include "reports/json_number.h"

#include <cmath>

namespace kc::reports {

nlohmann::json number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace kc::reports
