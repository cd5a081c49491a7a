// The casts' evaluations (reference-semantics.md §17; oracles/oracle.h):
// the exact value of every cast is its source value (rounding it into the
// destination is the grader's job), `identity`, which also serves the data
// movers and broadcast_to; Rust's `as u32` is cast_saturating_u32. The
// replay of every cast is the rounding each source -> target pair performs
// on x86-64 (`replay::cast`, the reference's own roundings, not all
// correct); the identity's fast path is the value itself.
#include <bit>
#include <cmath>
#include <cstdint>

#include "oracles/exact.h"
#include "oracles/fast.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

KC_MATH_OF(Scalar, identity)
KC_MATH_OF(Scalar, cast)
KC_MATH_OF(Scalar, cast_saturating_u32)

namespace kc::oracle {

namespace bm = boost::multiprecision;

void identity(const Scalar& given, Exact& out) { const MpScalar in = mp(given); out.value = in.x; }

// Rust `as u32`: truncate toward zero, saturate, NaN -> 0 (§17). Where
// trunc(x) is not in [0, 2^32) (NaN and the infinities included) the
// conversion is an invalid operation whose result IEEE 754 (5.8) leaves
// unspecified (C and C++: undefined; x86's cvttss2si gives 2^31, CUDA
// saturates, PyTorch's result depends on the device): the saturated value
// is the reference's choice, which only the reference profile grades
// (`unbounded`), and any u32 is a correct answer.
void cast_saturating_u32(const Scalar& given, Exact& out) { const MpScalar in = mp(given);
  const bool invalid = is_nan(in.x) || in.x <= Mp(-1) || in.x >= Mp(4294967296.0);
  out.replayed = out.unbounded = invalid;
  if (is_nan(in.x) || in.x < 0) out.value = Mp(0);
  else if (in.x >= Mp(4294967296.0)) out.value = Mp(4294967295.0);
  else out.value = bm::trunc(in.x);
}

}  // namespace kc::oracle

namespace kc::oracle::replay {

namespace {
// Rust `as u32`: truncate toward zero, saturate, NaN -> 0.
double saturate_u32(double x) {
  if (std::isnan(x) || x <= 0) return 0.0;
  if (x >= 4294967296.0) return 4294967295.0;
  return std::trunc(x);
}
}  // namespace

double identity(const Scalar& in) { return in.x; }

double cast(const Scalar& in) {
  // Every conversion quiets a signalling NaN (cvtss2sd, F16C, half's
  // to_f32 and from_f32), keeping sign and payload.
  double x = in.x;
  if (std::isnan(x)) x = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) | 0x0008000000000000ull);
  if (in.ctx.out_dtype == DType::u32) return saturate_u32(x);
  if (in.ctx.dtype == DType::u32) return in.ctx.out_dtype == DType::f32 ? static_cast<double>(static_cast<float>(x)) : x;
  if (in.ctx.dtype == DType::f64 && in.ctx.out_dtype == DType::bf16 && !std::isnan(x)) {
    // half's bf16::from_f64: the low 32 bits of the significand dropped, then RNE.
    const double truncated = std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) & ~0xFFFFFFFFull);
    return narrow(DType::bf16, truncated);
  }
  // f64 -> f16 on F16C: f64 -> f32 (RNE) -> f16 (RNE); every other narrowing
  // is one RNE from the exact source, every widening exact.
  if (in.ctx.dtype == DType::f64 && in.ctx.out_dtype == DType::f16) return narrow(DType::f16, narrow(DType::f32, x));
  return narrow(in.ctx.out_dtype, x);
}

}  // namespace kc::oracle::replay

namespace kc::oracle::fast {
// The element's value itself (the data movers', dequantize_blocks': the
// driver's model gives the exact value as the element's one argument).
bool identity(const Scalar& in, Approx& out) { return exact(in.x, out); }
}  // namespace kc::oracle::fast
