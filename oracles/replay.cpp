#include "oracles/replay.h"

#include <algorithm>
#include <bit>
#include <cstdint>

namespace kc::oracle::replay {

double narrow(DType t, double v) {
  if (std::isnan(v)) {  // the operation's NaN: quiet, with the sign and the top payload bits
    const double q = std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | 0x0008000000000000ull);
    return t == DType::f64 ? q : bits_to_double(t, double_to_bits(t, q));
  }
  if (t == DType::f64) return v;
  if (t == DType::f32) return static_cast<double>(static_cast<float>(v));
  // Halves: v (an f32 value, or any double) is rounded once to a multiple
  // of its quantum in T, 2^(max(e, emin) - p + 1), ties to even, past
  // max_T to the infinity: round_to_format's rounding.
  return round_to_format(v, t);
}

namespace {

float f(double v) { return static_cast<float>(v); }  // exact for every value of f32 and the halves

// f64: the double operation; f32: the float one; halves: float, then RNE.
// NaNs follow x86's SSE rule, written out because a compiler may commute
// a + b: a NaN operand's NaN (quieted) is the result, the first operand's
// when both are NaN (the reference's `acc + term` keeps the accumulator's).
template <class Op>
double in_t(DType t, double a, double b, Op op) {
  if (std::isnan(a) || std::isnan(b)) return narrow(t, std::isnan(a) ? a : b);
  if (t == DType::f64) return op(a, b);
  const double r = static_cast<double>(op(f(a), f(b)));
  return t == DType::f32 ? r : narrow(t, r);
}

}  // namespace

double InT::add(double a, double b) const { return in_t(t, a, b, [](auto x, auto y) { return x + y; }); }
double InT::sub(double a, double b) const { return in_t(t, a, b, [](auto x, auto y) { return x - y; }); }
double InT::mul(double a, double b) const { return in_t(t, a, b, [](auto x, auto y) { return x * y; }); }
double InT::div(double a, double b) const { return in_t(t, a, b, [](auto x, auto y) { return x / y; }); }

double InT::call(float (*f32)(float), double (*f64)(double), double x) const {
  if (t == DType::f64) return f64(x);
  const double r = f32(f(x));
  return t == DType::f32 ? r : narrow(t, r);
}
double InT::call2(float (*f32)(float, float), double (*f64)(double, double), double a, double b) const {
  if (t == DType::f64) return f64(a, b);
  const double r = f32(f(a), f(b));
  return t == DType::f32 ? r : narrow(t, r);
}
double InT::sqrt(double x) const { return call(::sqrtf, static_cast<double (*)(double)>(::sqrt), x); }
// The platform's floor and ceil, called: GCC would otherwise expand the
// builtins inline, which return a signalling NaN unquieted where glibc's
// functions (the reference's libcalls) quiet it.
namespace {
float (*volatile platform_floorf)(float) = ::floorf;
double (*volatile platform_floor)(double) = ::floor;
float (*volatile platform_ceilf)(float) = ::ceilf;
double (*volatile platform_ceil)(double) = ::ceil;
float floorf_call(float x) { return platform_floorf(x); }
double floor_call(double x) { return platform_floor(x); }
float ceilf_call(float x) { return platform_ceilf(x); }
double ceil_call(double x) { return platform_ceil(x); }
}  // namespace
double InT::floor(double x) const { return call(floorf_call, floor_call, x); }
double InT::ceil(double x) const { return call(ceilf_call, ceil_call, x); }

double InT::from_f64(double c) const {
  if (t == DType::f64) return c;
  const double r = f(c);
  return t == DType::f32 ? r : narrow(t, r);
}

}  // namespace kc::oracle::replay
