// Pointwise algebraic properties, as predicates over (x, y) with y the
// kernel's own output. They must hold exactly after rounding: each one is a
// consequence of the exact function's property and of rounding being
// monotone (a bound that holds for z holds for RN(z) when the bound is a
// representable number).
#pragma once

#include <cmath>

namespace kc::contract::props {

inline bool nonneg(double, double y) { return y >= 0; }                    // NaN fails
inline bool nonneg_or_nan(double, double y) { return std::isnan(y) || y >= 0; }
inline bool positive_for_positive(double x, double y) { return !(x > 0) || y > 0 || std::isinf(x); }
inline bool le_input(double x, double y) { return std::isinf(x) || y <= x; }
inline bool ge_input(double x, double y) { return std::isinf(x) || y >= x; }
inline bool integer_valued(double x, double y) { return std::isinf(x) || y == std::trunc(y); }
inline bool within_half(double x, double y) { return std::isinf(x) || std::fabs(y - x) <= 0.5; }
inline bool in_unit_interval(double, double y) { return y >= 0 && y <= 1; }
inline bool in_pm_one(double, double y) { return std::isnan(y) || (y >= -1 && y <= 1); }
inline bool sign_values(double, double y) { return y == -1 || y == 0 || y == 1; }
inline bool step_values(double, double y) { return y == 0 || y == 1; }
inline bool relu_values(double x, double y) { return y == x || (y == 0 && !std::signbit(y)); }
inline bool sign_of_input(double x, double y) { return x == 0 || std::isnan(x) || std::signbit(x) == std::signbit(y); }
inline bool below_max_x_0(double x, double y) { return std::isnan(y) || y <= std::fmax(x, 0.0); }
// gelu's minimum is -0.1700 (x = -0.75), silu's -0.2785 (x = -1.28); the floors
// -0.25 / -0.3 sit more than 0.07 below them, far beyond any rounding error.
inline bool gelu_floor(double, double y) { return std::isnan(y) || y >= -0.25; }
inline bool silu_floor(double, double y) { return std::isnan(y) || y >= -0.3; }

}  // namespace kc::contract::props
