// Scalar arithmetic in each element type exactly as the reference performs it
// (reference-semantics.md §0.2, §0.3). Internal to kernels/: included only by
// kernel .cpp files, which instantiate per dtype.
//
// - f32/f64: one IEEE operation; libm's float/double functions.
// - bf16/f16: widen to f32 (exact), one f32 operation or f32 libm call, RNE
//   back (the `half` crate's Add/Mul/... and num_traits::Float methods).
// - Constants and f64 parameters enter T through `cst`, which for halves is
//   f64 -> f32 -> T, two roundings (num-traits NumCast).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/dtype.h"

namespace kc::kern {

// ---- 16-bit arithmetic through f32 ------------------------------------------
template <class H>
struct HalfTraits;
template <>
struct HalfTraits<bf16> {
  static float widen(bf16 h) { return bf16_to_f32(h); }
  static bf16 narrow(float x) { return f32_to_bf16(x); }
};
template <>
struct HalfTraits<f16> {
  static float widen(f16 h) { return f16_to_f32(h); }
  static f16 narrow(float x) { return f32_to_f16(x); }
};

template <class H>
concept Half = std::is_same_v<H, bf16> || std::is_same_v<H, f16>;

template <Half H> inline float w(H h) { return HalfTraits<H>::widen(h); }
template <Half H> inline H nr(float x) { return HalfTraits<H>::narrow(x); }

// One f32 operation, then RNE. A NaN operand gives its own NaN (quieted by
// the widening), the first operand's when both are NaN: the x86 rule the
// reference's f32 operation follows, written out because the compiler may
// commute w(a) + w(b) (the f16 sums returned the element's NaN, not the
// accumulator's).
template <Half H, class Op>
inline H half_op(H a, H b, Op op) {
  const float x = w(a), y = w(b);
  if (std::isnan(x) || std::isnan(y)) return nr<H>(std::isnan(x) ? x : y);
  return nr<H>(op(x, y));
}
template <Half H> inline H operator+(H a, H b) { return half_op(a, b, [](float x, float y) { return x + y; }); }
template <Half H> inline H operator-(H a, H b) { return half_op(a, b, [](float x, float y) { return x - y; }); }
template <Half H> inline H operator*(H a, H b) { return half_op(a, b, [](float x, float y) { return x * y; }); }
template <Half H> inline H operator/(H a, H b) { return half_op(a, b, [](float x, float y) { return x / y; }); }
// Negation flips the sign bit, NaN included (half's Neg impl).
template <Half H> inline H operator-(H a) { return H{static_cast<std::uint16_t>(a.bits ^ 0x8000u)}; }
template <Half H> inline bool operator<(H a, H b) { return w(a) < w(b); }
template <Half H> inline bool operator>(H a, H b) { return w(a) > w(b); }
template <Half H> inline bool operator>=(H a, H b) { return w(a) >= w(b); }
template <Half H> inline bool operator==(H a, H b) { return w(a) == w(b); }

// op(a, b) in f32/f64 with x86's NaN rule written out: the first operand's
// NaN (quieted) when both are NaN. A compiler may commute a + b and a * b
// and rewrite a - b as a + (-b); the reference's `acc + term`, `x0 * cos`
// keep their first operand's NaN (half_op above does the same for the
// halves).
template <class F, class Op>
inline F first_nan(F a, F b, Op op) {
  if (std::isnan(a) || std::isnan(b)) return (std::isnan(a) ? a : b) + F(0);
  return op(a, b);
}
template <class F>
inline F add_first_nan(F a, F b) {
  return first_nan(a, b, [](F x, F y) { return x + y; });
}

// op(a, b) in T with the first operand's NaN: the halves through f32
// (half_op's NaN rule), f32/f64 through first_nan. acc_add: acc + v.
template <class T, class Op>
inline T in_order(T a, T b, Op op) {
  if constexpr (std::is_floating_point_v<T>) return first_nan(a, b, op);
  else return op(a, b);
}
template <class T>
inline T acc_add(T acc, T v) {
  return in_order(acc, v, [](T x, T y) { return x + y; });
}
// a - b, a * b, a / b in T with the first operand's NaN (the composite
// kernels' steps: softmax, the norms, attention).
template <class T>
inline T sub_in_order(T a, T b) {
  return in_order(a, b, [](T x, T y) { return x - y; });
}
template <class T>
inline T mul_in_order(T a, T b) {
  return in_order(a, b, [](T x, T y) { return x * y; });
}
template <class T>
inline T div_in_order(T a, T b) {
  return in_order(a, b, [](T x, T y) { return x / y; });
}

// ---- dtype dispatch ------------------------------------------------------------
// f.template operator()<T>() for the element type of a float dtype (nothing for u32).
template <class F>
void by_dtype(DType t, F f) {
  switch (t) {
    case DType::f32: f.template operator()<float>(); break;
    case DType::f64: f.template operator()<double>(); break;
    case DType::bf16: f.template operator()<bf16>(); break;
    case DType::f16: f.template operator()<f16>(); break;
    default: break;
  }
}

// ---- conversions of constants: T::from(f64) ---------------------------------
template <class T> T cst(double c);
template <> inline double cst<double>(double c) { return c; }
template <> inline float cst<float>(double c) { return static_cast<float>(c); }
template <> inline bf16 cst<bf16>(double c) { return f32_to_bf16(static_cast<float>(c)); }
template <> inline f16 cst<f16>(double c) { return f32_to_f16(static_cast<float>(c)); }

inline double to_f64(float x) { return x; }
inline double to_f64(double x) { return x; }
template <Half H> inline double to_f64(H h) { return w(h); }

// ---- powi: compiler-builtins __powisf2 / __powidf2 --------------------------
// Square-and-multiply from the least significant bit; 1/r for n < 0.
template <class F>
F powi_loop(F a, std::int32_t n) {
  const bool recip = n < 0;
  std::uint32_t m = recip ? 0u - static_cast<std::uint32_t>(n) : static_cast<std::uint32_t>(n);
  F r = 1;
  while (true) {
    if (m & 1u) r *= a;
    m >>= 1;
    if (m == 0) break;
    a *= a;
  }
  return recip ? F(1) / r : r;
}

// ---- libm-backed functions, one name per operation ---------------------------
#define KC_LIBM_UNARY(NAME, FFN, DFN)                                   \
  inline float NAME(float x) { return FFN(x); }                        \
  inline double NAME(double x) { return DFN(x); }                      \
  template <Half H> inline H NAME(H x) { return nr<H>(FFN(w(x))); }
KC_LIBM_UNARY(m_exp, std::exp, std::exp)
KC_LIBM_UNARY(m_log, std::log, std::log)
KC_LIBM_UNARY(m_sin, std::sin, std::sin)
KC_LIBM_UNARY(m_cos, std::cos, std::cos)
KC_LIBM_UNARY(m_tanh, std::tanh, std::tanh)
KC_LIBM_UNARY(m_sqrt, std::sqrt, std::sqrt)
// floor and ceil are libm calls in the reference (LLVM lowers them to
// floorf/floor on baseline x86-64), and glibc's quiet a signalling NaN; GCC
// would inline a sequence that returns it unquieted. Volatile pointers
// (kernels/unary.cpp) keep them calls.
extern float (*volatile libm_floorf)(float);
extern double (*volatile libm_floor)(double);
extern float (*volatile libm_ceilf)(float);
extern double (*volatile libm_ceil)(double);
inline float call_floorf(float x) { return libm_floorf(x); }
inline double call_floor(double x) { return libm_floor(x); }
inline float call_ceilf(float x) { return libm_ceilf(x); }
inline double call_ceil(double x) { return libm_ceil(x); }
KC_LIBM_UNARY(m_floor, call_floorf, call_floor)
KC_LIBM_UNARY(m_ceil, call_ceilf, call_ceil)
KC_LIBM_UNARY(m_trunc, std::trunc, std::trunc)
KC_LIBM_UNARY(m_abs, std::fabs, std::fabs)
KC_LIBM_UNARY(m_round_away, std::round, std::round)  // Float::round: half away from zero
#undef KC_LIBM_UNARY

inline float m_pow(float a, float b) { return std::pow(a, b); }
inline double m_pow(double a, double b) { return std::pow(a, b); }
template <Half H> inline H m_pow(H a, H b) { return nr<H>(std::pow(w(a), w(b))); }

inline float m_powi(float x, std::int32_t n) { return powi_loop<float>(x, n); }
inline double m_powi(double x, std::int32_t n) { return powi_loop<double>(x, n); }
template <Half H> inline H m_powi(H x, std::int32_t n) { return nr<H>(powi_loop<float>(w(x), n)); }

}  // namespace kc::kern
