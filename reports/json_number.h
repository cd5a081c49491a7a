// How a results document writes a double: JSON has no infinities or NaN,
// so those are the strings "inf", "-inf" and "NaN" (html_util's as_double
// reads them back).
#pragma once

#include <nlohmann/json.hpp>

namespace kc::reports {

nlohmann::json number(double v);

}  // namespace kc::reports
