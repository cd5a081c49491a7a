// Reference unary kernels (ops.rs:30-273, 1495-1524, 1802) and their exec
// arms. Each formula keeps the reference's order of
// operations and its roundings in T; comments cite reference-semantics.md.
#include "kernels/unary.h"

#include <array>
#include <cmath>
#include <optional>

#include "core/rust_libm.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"

namespace kc::kern {

float (*volatile libm_floorf)(float) = ::floorf;
double (*volatile libm_floor)(double) = ::floor;
float (*volatile libm_ceilf)(float) = ::ceilf;
double (*volatile libm_ceil)(double) = ::ceil;

namespace {

enum class UnaryOp : std::uint8_t {
  neg, relu, sqr, sqrt, exp, sign, log, sin, cos, abs, recip, tanh, floor, ceil,
  erf, gelu_erf, round, sigmoid, silu, gelu, step, rsqrt, powi,
  add_scalar, mul_scalar, clamp,
};

// Scalar arguments; only the ones the op uses are read.
struct UnaryArgs {
  std::int32_t n = 0;     // powi
  double c = 0;           // add_scalar, mul_scalar
  double lo = 0, hi = 0;  // clamp
};

constexpr std::array<std::string_view, 26> kNames = {
    "neg", "relu", "sqr", "sqrt", "exp", "sign", "log", "sin", "cos", "abs", "recip", "tanh", "floor",
    "ceil", "erf", "gelu_erf", "round", "sigmoid", "silu", "gelu", "step", "rsqrt", "powi",
    "add_scalar", "mul_scalar", "clamp"};

template <class T> T zero() { return cst<T>(0.0); }
template <class T> T one() { return cst<T>(1.0); }

// §1 sigmoid: split on x >= 0 (true for -0); NaN takes the second branch.
template <class T>
T sigmoid_of(T x) {
  if (x >= zero<T>()) {
    T e = m_exp(-x);
    return one<T>() / (one<T>() + e);
  }
  T e = m_exp(x);
  return e / (one<T>() + e);
}

// §1 round: ties to even through trunc, then Float::round (never at a tie).
template <class T>
T round_even(T x) {
  T t = m_trunc(x);
  T f = m_abs(x - t);
  if (f == cst<T>(0.5)) {
    T half_t = t / cst<T>(2.0);
    if (half_t - m_trunc(half_t) == zero<T>()) return t;
    return x >= zero<T>() ? t + one<T>() : t - one<T>();
  }
  return m_round_away(x);
}

// §1 erf: rne_T(libm erf(f64(x))), the narrowing through cst (double rounding
// for halves). The libm is the Rust crate's (core/rust_libm.h), not glibc's:
// they differ in the last bit on some f64 inputs.
template <class T>
T erf_of(T x) {
  return cst<T>(rust_libm::erf(to_f64(x)));
}

// §1 gelu_erf, all in f64: a = f * (1/sqrt 2) with the f64 constant
// 0x3FE6A09E667F3BCD, r = (0.5 f)(1 + erf(a)), then T(r).
template <class T>
T gelu_erf_of(T x) {
  const double f = to_f64(x);
  const double inv_sqrt2 = 0x1.6a09e667f3bcdp-1;
  const double a = f * inv_sqrt2;
  const double e = rust_libm::erf(a);
  const double r = (0.5 * f) * (1.0 + e);
  return cst<T>(r);
}

template <class T> T gelu_c() { return m_sqrt(cst<T>(2.0 / M_PI)); }
template <class T> T gelu_k() { return cst<T>(0.044715); }

// §1 gelu (tanh form), constants in T: inner = c(x + ((k x) x) x),
// y = (0.5 x)(1 + tanh(inner)).
template <class T>
T gelu_of(T x) {
  const T c = gelu_c<T>(), k = gelu_k<T>();
  T inner = c * (x + ((k * x) * x) * x);
  return (cst<T>(0.5) * x) * (one<T>() + m_tanh(inner));
}

template <class T>
T apply(UnaryOp op, T x, const UnaryArgs& a) {
  switch (op) {
    case UnaryOp::neg: return -x;
    case UnaryOp::relu: return x > zero<T>() ? x : zero<T>();  // NaN, -0 -> +0
    case UnaryOp::sqr: return x * x;
    case UnaryOp::sqrt: return m_sqrt(x);
    case UnaryOp::exp: return m_exp(x);
    case UnaryOp::sign:  // NaN and +-0 -> +0
      return x > zero<T>() ? one<T>() : (x < zero<T>() ? -one<T>() : zero<T>());
    case UnaryOp::log: return m_log(x);
    case UnaryOp::sin: return m_sin(x);
    case UnaryOp::cos: return m_cos(x);
    case UnaryOp::abs: return m_abs(x);
    case UnaryOp::recip: return one<T>() / x;
    case UnaryOp::tanh: return m_tanh(x);
    case UnaryOp::floor: return m_floor(x);
    case UnaryOp::ceil: return m_ceil(x);
    case UnaryOp::erf: return erf_of(x);
    case UnaryOp::gelu_erf: return gelu_erf_of(x);
    case UnaryOp::round: return round_even(x);
    case UnaryOp::sigmoid: return sigmoid_of(x);
    case UnaryOp::silu: {  // two passes: sigmoid, then x * s
      T s = sigmoid_of(x);
      return x * s;
    }
    case UnaryOp::gelu: return gelu_of(x);
    case UnaryOp::step: return x > zero<T>() ? one<T>() : zero<T>();
    case UnaryOp::rsqrt: return one<T>() / m_sqrt(x);  // two roundings
    case UnaryOp::powi: return m_powi(x, a.n);
    case UnaryOp::add_scalar: return x + cst<T>(a.c);
    case UnaryOp::mul_scalar: return x * cst<T>(a.c);
    case UnaryOp::clamp: {  // no min <= max check; NaN passes through
      const T lo = cst<T>(a.lo), hi = cst<T>(a.hi);
      if (x < lo) return lo;
      if (x > hi) return hi;
      return x;
    }
  }
  return x;
}

template <class T>
Tensor map_unary(UnaryOp op, const Tensor& x, const UnaryArgs& a) {
  Tensor y(x.dtype(), x.dims());
  auto in = x.as<T>();
  auto out = y.as_mutable<T>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = apply<T>(op, in[i], a);
  return y;
}

Tensor unary(UnaryOp op, const Tensor& x, const UnaryArgs& args) {
  switch (x.dtype()) {
    case DType::f32: return map_unary<float>(op, x, args);
    case DType::f64: return map_unary<double>(op, x, args);
    case DType::bf16: return map_unary<bf16>(op, x, args);
    case DType::f16: return map_unary<f16>(op, x, args);
    default: return Tensor(x.dtype(), x.dims());  // unreachable: the executor rejects these
  }
}

// One value per float dtype, as a double.
template <class F>
double by_float_dtype(DType t, F f) {
  switch (t) {
    case DType::f32: return to_f64(f.template operator()<float>());
    case DType::f64: return to_f64(f.template operator()<double>());
    case DType::bf16: return to_f64(f.template operator()<bf16>());
    case DType::f16: return to_f64(f.template operator()<f16>());
    default: return 0;
  }
}
}  // namespace

double gelu_constant_c(DType t) { return by_float_dtype(t, []<class T>() { return gelu_c<T>(); }); }
double gelu_constant_k(DType t) { return by_float_dtype(t, []<class T>() { return gelu_k<T>(); }); }

// Exec arms: the reference's `unary!` dispatch accepts f32, f64, bf16, f16
// and rejects U32 (reference-semantics.md §19); the scalar ops take their
// parameter as f64 (powi as i32).
void register_unary(Arms& arms) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    const auto op = static_cast<UnaryOp>(i);
    std::vector<ParamDecl> params;
    switch (op) {
      case UnaryOp::powi: params = {{"n", ParamKind::integer, INT32_MIN, INT32_MAX}}; break;
      case UnaryOp::add_scalar:
      case UnaryOp::mul_scalar: params = {{"c", ParamKind::real}}; break;
      case UnaryOp::clamp: params = {{"min", ParamKind::real}, {"max", ParamKind::real}}; break;
      default: break;
    }
    arms.push_back(Arm{
        .op = kNames[i],
        .dtypes = kFloatSet,
        .arity = 1,
        .params = std::move(params),
        .eval = [op](std::span<const Tensor> in, const Params& p) {
          UnaryArgs a;
          if (op == UnaryOp::powi) a.n = static_cast<std::int32_t>(p.integer("n"));
          if (op == UnaryOp::add_scalar || op == UnaryOp::mul_scalar) a.c = p.real("c");
          if (op == UnaryOp::clamp) {
            a.lo = p.real("min");
            a.hi = p.real("max");
          }
          return std::vector<Tensor>{unary(op, in[0], a)};
        },
    });
  }
}

}  // namespace kc::kern
