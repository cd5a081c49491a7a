// Planted defects of the unary family. Most wrap the reference and alter
// its outputs where the defect would show; a few reimplement the kernel the
// wrong way.
#include "backends/mutants/mutants.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "core/error.h"

namespace kc::mutants {

namespace {

Outputs exp_f32_2ulp(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Off by two ulps on [1, 2): a polynomial with a bad coefficient there.
  return rewrite("exp", in, p, {DType::f32}, [](double x, std::uint64_t y) { return (x >= 1 && x < 2) ? y + 2 : y; });
}

Outputs round_half_away(std::string_view, std::span<const Tensor> in, const Params& p) {
  // std::round (half away from zero) in place of ties-to-even.
  return rewrite("round", in, p, kFloatSet,
                 [t = in[0].dtype()](double x, std::uint64_t y) {
                   return std::isfinite(x) ? double_to_bits(t, std::round(x)) : y;
                 });
}

Outputs sign_neg_zero(std::string_view, std::span<const Tensor> in, const Params& p) {
  // sign(-0.0) = -1: tests the sign bit instead of comparing with 0.
  return rewrite("sign", in, p, kFloatSet,
                 [t = in[0].dtype()](double x, std::uint64_t y) {
                   return (x == 0 && std::signbit(x)) ? double_to_bits(t, -1.0) : y;
                 });
}

Outputs relu_nan_propagates(std::string_view, std::span<const Tensor> in, const Params& p) {
  // max(x, 0) with NaN propagation (PyTorch's behaviour, not the reference's).
  return rewrite("relu", in, p, kFloatSet,
                 [t = in[0].dtype()](double x, std::uint64_t y) { return std::isnan(x) ? double_to_bits(t, x) : y; });
}

Outputs gelu_cr_constant(std::string_view, std::span<const Tensor> in, const Params& p) {
  // gelu in f32 with the correctly rounded sqrt(2/pi) literal 0x3F4C422A
  // instead of the reference's sqrt_T(T(2/pi)) = 0x3F4C4229.
  if (in.size() != 1 || in[0].dtype() != DType::f32 || !in[0].consistent()) return ref::execute("gelu", in, p);
  const float c = std::bit_cast<float>(0x3F4C422Au), k = 0.044715f;
  Tensor y(DType::f32, in[0].dims());
  auto xs = in[0].as<float>();
  auto ys = y.as_mutable<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    const float inner = c * (x + ((k * x) * x) * x);
    ys[i] = (0.5f * x) * (1.0f + std::tanh(inner));
  }
  return {y};
}

Outputs exp_overflow_finite(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Saturates overflow to the largest finite value instead of +inf.
  return rewrite("exp", in, p, {DType::f32}, [](double x, std::uint64_t y) {
    return (std::isfinite(x) && y == 0x7f800000u) ? 0x7f7fffffu : y;
  });
}

Outputs log_zero_nan(std::string_view, std::span<const Tensor> in, const Params& p) {
  // log(+-0) = NaN (a domain check written x <= 0 instead of x < 0).
  return rewrite("log", in, p, kFloatSet,
                 [t = in[0].dtype()](double x, std::uint64_t y) { return x == 0 ? double_to_bits(t, NAN) : y; });
}

Outputs neg_accepts_u32(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Forgets the dtype gate: a u32 tensor goes through as raw bits.
  if (in.size() == 1 && in[0].dtype() == DType::u32 && in[0].consistent()) return {in[0].reshaped(in[0].dims())};
  return ref::execute("neg", in, p);
}

Outputs sqrt_bf16_truncate(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Narrows the f32 sqrt to bf16 by truncation instead of RNE.
  if (in.size() != 1 || in[0].dtype() != DType::bf16 || !in[0].consistent()) return ref::execute("sqrt", in, p);
  Tensor y(DType::bf16, in[0].dims());
  for (std::int64_t i = 0; i < y.numel(); ++i) {
    const float r = std::sqrt(static_cast<float>(in[0].value_at(i)));
    y.set_bits(i, std::bit_cast<std::uint32_t>(r) >> 16);
  }
  return {y};
}

Outputs recip_f16_ftz(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Flushes subnormal f16 results to zero (a denormals-are-zero mode).
  return rewrite("recip", in, p, {DType::f16}, [](double, std::uint64_t y) {
    return ((y & 0x7c00u) == 0 && (y & 0x3ffu) != 0) ? (y & 0x8000u) : y;
  });
}

Outputs floor_pos_zero(std::string_view, std::span<const Tensor> in, const Params& p) {
  // floor computed as x - fmod-style remainder: -0 comes out as +0.
  return rewrite("floor", in, p, kFloatSet,
                 [t = in[0].dtype()](double x, std::uint64_t y) { return (x == 0) ? double_to_bits(t, 0.0) : y; });
}

Outputs tanh_bf16_1ulp(std::string_view, std::span<const Tensor> in, const Params& p) {
  // One ulp high on (0.5, 1): a table entry off by one.
  return rewrite("tanh", in, p, {DType::bf16}, [](double x, std::uint64_t y) { return (x > 0.5 && x < 1) ? y + 1 : y; });
}

Outputs sigmoid_naive(std::string_view, std::span<const Tensor> in, const Params& p) {
  // 1/(1 + e^-x) for every x: e^-x overflows for x < -88.7, giving 0 where
  // the result is a subnormal.
  if (in.size() != 1 || in[0].dtype() != DType::f32 || !in[0].consistent()) return ref::execute("sigmoid", in, p);
  Tensor y(DType::f32, in[0].dims());
  auto xs = in[0].as<float>();
  auto ys = y.as_mutable<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) ys[i] = 1.0f / (1.0f + std::exp(-xs[i]));
  return {y};
}

Outputs rsqrt_fast(std::string_view, std::span<const Tensor> in, const Params& p) {
  // The bit-trick inverse square root with two Newton steps (~5e-6 relative).
  if (in.size() != 1 || in[0].dtype() != DType::f32 || !in[0].consistent()) return ref::execute("rsqrt", in, p);
  Outputs out = ref::execute("rsqrt", in, p);
  auto xs = in[0].as<float>();
  auto ys = out[0].as_mutable<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    if (!(x > 0) || !std::isfinite(x) || x < 1e-30f) continue;  // keep the reference on the edges
    float r = std::bit_cast<float>(0x5f3759dfu - (std::bit_cast<std::uint32_t>(x) >> 1));
    r = r * (1.5f - 0.5f * x * r * r);
    r = r * (1.5f - 0.5f * x * r * r);
    ys[i] = r;
  }
  return out;
}

Outputs gelu_erf_in_f32(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Evaluates gelu_erf in f32 (erff, 1 + e in f32) instead of f64.
  if (in.size() != 1 || in[0].dtype() != DType::f32 || !in[0].consistent()) return ref::execute("gelu_erf", in, p);
  Tensor y(DType::f32, in[0].dims());
  auto xs = in[0].as<float>();
  auto ys = y.as_mutable<float>();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float x = xs[i];
    ys[i] = (0.5f * x) * (1.0f + std::erf(x * 0.70710677f));
  }
  return {y};
}

Outputs clamp_minmax_order(std::string_view, std::span<const Tensor> in, const Params& p) {
  // min(max(x, lo), hi): differs from the reference when min > max, where
  // it is torch.clamp's answer (max everywhere): correct in the conformance
  // profile, not the reference's choice.
  Outputs out = ref::execute("clamp", in, p);
  const double lo = std::get<double>(*p.find("min")), hi = std::get<double>(*p.find("max"));
  const DType t = in[0].dtype();
  const double lo_t = round_to_format(round_to_format(lo, DType::f32), t);
  const double hi_t = round_to_format(round_to_format(hi, DType::f32), t);
  if (t == DType::f64 ? lo > hi : lo_t > hi_t) {
    for (std::int64_t i = 0; i < out[0].numel(); ++i)
      if (!std::isnan(in[0].value_at(i))) out[0].set_bits(i, double_to_bits(t, t == DType::f64 ? hi : hi_t));
  }
  return out;
}

Outputs abs_skips_buffer_check(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Trusts the shape and never looks at the buffer length.
  if (in.size() == 1 && !in[0].consistent() && in[0].numel() >= 0)
    return {Tensor(in[0].dtype(), in[0].dims())};
  return ref::execute("abs", in, p);
}

Outputs powi_wraps_exponent(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Takes n as an i64 and truncates it to i32 silently.
  const ParamValue* n = p.find("n");
  if (n && std::holds_alternative<std::int64_t>(*n)) {
    Params q = p;
    q.set("n", static_cast<std::int64_t>(static_cast<std::int32_t>(std::get<std::int64_t>(*n))));
    return ref::execute("powi", in, q);
  }
  return ref::execute("powi", in, p);
}

// Three defects only results reveal: the inputs are ordinary, the results
// are in a class of their own (subnormal, just below overflow) or in a
// narrow window around an interval edge of the function.
Outputs exp_f32_ftz_results(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Flushes subnormal results to zero (a denormals-are-zero output stage).
  return rewrite("exp", in, p, {DType::f32}, [](double, std::uint64_t y) {
    return ((y & 0x7f800000u) == 0 && (y & 0x7fffffu) != 0) ? (y & 0x80000000u) : y;
  });
}

Outputs exp_f32_overflows_early(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Returns +inf from ln(FLT_MAX) - 2^-12 on: a range check a little too tight.
  const double limit = std::log(static_cast<double>(max_finite(DType::f32))) - std::ldexp(1.0, -12);
  return rewrite("exp", in, p, {DType::f32}, [limit](double x, std::uint64_t y) { return x > limit ? 0x7f800000u : y; });
}

Outputs tanh_f32_edge_window(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Two ulps high on |x -+ 0.55| < 2^-17 (a window of width 2^-16 around
  // the edge where tanhf changes its method).
  return rewrite("tanh", in, p, {DType::f32}, [](double x, std::uint64_t y) {
    return std::fabs(std::fabs(x) - 0.55) < std::ldexp(1.0, -17) ? y + 2 : y;
  });
}

// Correct, more accurate evaluations than the reference's: each rounds the
// long double value of the function once. They pass the conformance
// profile and fail the reference profile's semantics replay.
Outputs rsqrt_rounded_once(std::string_view, std::span<const Tensor> in, const Params& p) {
  return rounded_once("rsqrt", in, p, [](long double x) { return 1.0L / std::sqrt(x); });
}
Outputs silu_rounded_once(std::string_view, std::span<const Tensor> in, const Params& p) {
  return rounded_once("silu", in, p, [](long double x) { return x / (1.0L + std::exp(-x)); });
}
Outputs gelu_erf_rounded_once(std::string_view, std::span<const Tensor> in, const Params& p) {
  return rounded_once("gelu_erf", in, p,
                      [](long double x) { return 0.5L * x * (1.0L + std::erf(x / std::sqrt(2.0L))); });
}
// gelu with the exact constants sqrt(2/pi) and 0.044715, in long double.
Outputs gelu_rounded_once(std::string_view, std::span<const Tensor> in, const Params& p) {
  return rounded_once("gelu", in, p, [](long double x) {
    const long double c = std::sqrt(2.0L / 3.141592653589793238462643383279502884L);
    return 0.5L * x * (1.0L + std::tanh(c * (x + 0.044715L * x * x * x)));
  });
}

}  // namespace

void register_unary(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"exp_f32_2ulp", {"exp"}, {DType::f32}, "accuracy", "f32 exp two ulps high on [1, 2)", exp_f32_2ulp},
      {"round_half_away", {"round"}, kFloatSet, "accuracy", "round half away from zero instead of to even", round_half_away},
      {"sign_neg_zero", {"sign"}, kFloatSet, "special", "sign(-0.0) = -1", sign_neg_zero},
      {"relu_nan_propagates", {"relu"}, kFloatSet, "reference-choice", "relu(NaN) = NaN where the reference gives +0",
       relu_nan_propagates, "reference", true},
      {"gelu_cr_constant", {"gelu"}, {DType::f32}, "bias",
       "f32 gelu with the correctly rounded sqrt(2/pi) 0x3F4C422A instead of the reference's 0x3F4C4229",
       gelu_cr_constant, "reference", true},
      {"rsqrt_rounded_once", {"rsqrt"}, kFloatSet, "semantics",
       "rsqrt correctly rounded (one rounding of 1/sqrt x) instead of the reference's two", rsqrt_rounded_once,
       "reference", true},
      {"silu_rounded_once", {"silu"}, kFloatSet, "semantics",
       "silu as x / (1 + e^-x) rounded once instead of the reference's sigmoid then product", silu_rounded_once,
       "reference", true},
      {"gelu_erf_rounded_once", {"gelu_erf"}, kFloatSet, "semantics",
       "gelu_erf in long double with the system erfl, rounded once", gelu_erf_rounded_once, "reference", true},
      {"gelu_rounded_once", {"gelu"}, kFloatSet, "semantics",
       "gelu with the exact constants, in long double, rounded once", gelu_rounded_once, "reference", true},
      {"exp_overflow_finite", {"exp"}, {DType::f32}, "accuracy", "overflow saturates to FLT_MAX instead of +inf",
       exp_overflow_finite},
      {"log_zero_nan", {"log"}, kFloatSet, "special", "log(+-0) = NaN instead of -inf", log_zero_nan},
      {"neg_accepts_u32", {"neg"}, kFloatSet, "bad-input", "accepts a u32 tensor the contract rejects", neg_accepts_u32},
      {"sqrt_bf16_truncate", {"sqrt"}, {DType::bf16}, "accuracy", "bf16 sqrt narrowed by truncation, not RNE",
       sqrt_bf16_truncate},
      {"recip_f16_ftz", {"recip"}, {DType::f16}, "accuracy", "f16 recip flushes subnormal results to zero",
       recip_f16_ftz},
      {"floor_pos_zero", {"floor"}, kFloatSet, "special", "floor(-0.0) = +0", floor_pos_zero},
      {"tanh_bf16_1ulp", {"tanh"}, {DType::bf16}, "accuracy", "bf16 tanh one ulp high on (0.5, 1)", tanh_bf16_1ulp},
      {"sigmoid_naive", {"sigmoid"}, {DType::f32}, "accuracy", "f32 sigmoid as 1/(1+exp(-x)) for all x (overflow)",
       sigmoid_naive},
      {"rsqrt_fast", {"rsqrt"}, {DType::f32}, "accuracy", "f32 rsqrt by the bit trick and two Newton steps",
       rsqrt_fast},
      {"gelu_erf_in_f32", {"gelu_erf"}, {DType::f32}, "accuracy", "f32 gelu_erf evaluated in f32 instead of f64",
       gelu_erf_in_f32},
      {"clamp_minmax_order", {"clamp"}, kFloatSet, "reference-choice",
       "min(max(x, lo), hi): max everywhere where min > max, torch.clamp's documented rule: correct, not the "
       "reference's choice (docs/conformance-audit.md)",
       clamp_minmax_order, "reference", true},
      {"abs_skips_buffer_check", {"abs"}, kFloatSet, "bad-input", "never checks the buffer length against the shape",
       abs_skips_buffer_check},
      {"powi_wraps_exponent", {"powi"}, kFloatSet, "bad-input", "truncates an out-of-range n to i32 instead of rejecting",
       powi_wraps_exponent},
      {"exp_f32_ftz_results", {"exp"}, {DType::f32}, "accuracy", "f32 exp flushes subnormal results to zero",
       exp_f32_ftz_results},
      {"exp_f32_overflows_early", {"exp"}, {DType::f32}, "accuracy",
       "f32 exp returns +inf from ln(FLT_MAX) - 2^-12 on (a range check a little too tight)", exp_f32_overflows_early},
      {"tanh_f32_edge_window", {"tanh"}, {DType::f32}, "accuracy",
       "f32 tanh two ulps high on a window of width 2^-16 around |x| = 0.55", tanh_f32_edge_window},
  });
}

}  // namespace kc::mutants
