// Oracles of the casts (reference-semantics.md §17).
#include "oracles/cast.h"

#include <bit>
#include <cmath>

#include "oracles/exact.h"
#include "oracles/rounding.h"

namespace kc::oracle {

namespace bm = boost::multiprecision;

void identity(const Scalar& in, Exact& out) { out.value = in.x; }

// Rust `as u32`: truncate toward zero, saturate, NaN -> 0 (§17).
void cast_saturating_u32(const Scalar& in, Exact& out) {
  if (is_nan(in.x) || in.x < 0) out.value = Mp(0);
  else if (in.x >= Mp(4294967296.0)) out.value = Mp(4294967295.0);
  else out.value = bm::trunc(in.x);
}

// The exact value is the source; the reference rounds it by half's
// from_f64: the low 32 bits of the f64 significand cleared, then RNE.
void cast_f64_to_bf16(const Scalar& in, Exact& out) {
  out.value = in.x;
  const double x = in.x.convert_to<double>();  // exact: the source is an f64
  const double truncated = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) & ~0xFFFFFFFFull);
  out.replay = std::isnan(x) ? Mp(x) : rn(DType::bf16, Mp(truncated));
}

// x86 F16C (any modern x86-64): f64 -> f32 (RNE) -> f16 (RNE).
void cast_f64_to_f16(const Scalar& in, Exact& out) {
  out.value = in.x;
  out.replay = rn(DType::f16, rn(DType::f32, in.x));
}

}  // namespace kc::oracle
