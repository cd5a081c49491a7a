// How far a property may miss on a kernel's own outputs (odd, even,
// monotone) under the accuracy model the run grades against. A property of
// the function (cos(-x) = cos(x), erf increasing) holds bit for bit for an
// exact or correctly rounded kernel, since rounding is monotone and
// symmetric. A kernel held to a bound of B ulps may return any value within
// B ulp_T(z) of each exact z, so two results whose exact values are equal
// (or ordered) may lie up to B (ulp_T(z1) + ulp_T(z2)) apart in the wrong
// direction and both be correct (libmvec's cosf at 4 ulp gives cos(-x) !=
// cos(x) on some x): the conformance profile accepts that much, and no
// more. ulp_T(z) <= 2 ulp_T(y) for a result y within B ulps of z (B 2^(1-p)
// < 1/2 for every model here), so each side counts 2 B ulp_T(y).
#pragma once

#include <algorithm>
#include <cmath>

#include "contracts/contract.h"
#include "engine/context.h"

namespace kc::checks {

// The absolute amount by which results a and b (of equal or ordered exact
// values) may break the property; 0 where the model admits none (exact,
// correctly rounded, condition-aware, a parameter-dependent bound) or a
// value is not finite.
inline double property_latitude(const engine::Context& c, double a, double b) {
  const contract::Accuracy* m = c.accuracy();
  if (!m || m->kind != contract::AccuracyKind::ulp_bound || m->param_bound || !std::isfinite(a) || !std::isfinite(b))
    return 0;
  const FloatFormat f = float_format(c.out_dtype());
  const auto ulp = [&](double v) {
    const int e = v == 0 ? f.emin : std::max(std::ilogb(v), f.emin);
    return std::ldexp(1.0, e - f.precision + 1);
  };
  return 2 * m->max_frac_ulp * (ulp(a) + ulp(b));
}

}  // namespace kc::checks
