// Replay of every cast (reference-semantics.md §17): the rounding each
// source -> target pair performs on x86-64.
#include <bit>
#include <cstdint>

#include "oracles/replay.h"

namespace kc::oracle::replay {

namespace {
// Rust `as u32`: truncate toward zero, saturate, NaN -> 0.
double saturate_u32(double x) {
  if (std::isnan(x) || x <= 0) return 0.0;
  if (x >= 4294967296.0) return 4294967295.0;
  return std::trunc(x);
}
}  // namespace

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
