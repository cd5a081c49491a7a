// Oracles of the casts (reference-semantics.md §17).
#include "oracles/cast.h"

#include <bit>
#include <cmath>

#include "oracles/exact.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace bm = boost::multiprecision;

void identity(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = in.x; }

// Rust `as u32`: truncate toward zero, saturate, NaN -> 0 (§17).
void cast_saturating_u32(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  if (is_nan(in.x) || in.x < 0) out.value = Mp(0);
  else if (in.x >= Mp(4294967296.0)) out.value = Mp(4294967295.0);
  else out.value = bm::trunc(in.x);
}

}  // namespace kc::oracle
