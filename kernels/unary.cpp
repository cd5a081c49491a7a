// Reference unary kernels (ops.rs:30-273, 1495-1524, 1802) and their exec
// arms. Each formula keeps the reference's order of
// operations and its roundings in T; comments cite reference-semantics.md.
#include "kernels/unary.h"

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

// y = f(x) element by element, f a function of x in T (a template lambda,
// instantiated for each float dtype).
template <class T, class F>
Tensor map_unary(const Tensor& x, const F& f) {
  Tensor y(x.dtype(), x.dims());
  auto in = x.as<T>();
  auto out = y.as_mutable<T>();
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = f(in[i]);
  return y;
}

template <class F>
Tensor unary(const Tensor& x, const F& f) {
  switch (x.dtype()) {
    case DType::f32: return map_unary<float>(x, f);
    case DType::f64: return map_unary<double>(x, f);
    case DType::bf16: return map_unary<bf16>(x, f);
    case DType::f16: return map_unary<f16>(x, f);
    default: return Tensor(x.dtype(), x.dims());  // unreachable: the executor rejects these
  }
}

// The exec arm of one unary op: `make(params)` gives its function of x,
// its scalar parameters read once per call.
template <class Make>
Arm unary_arm(std::string_view name, std::vector<ParamDecl> params, Make make) {
  return Arm{.op = name,
             .dtypes = kFloatSet,
             .arity = 1,
             .params = std::move(params),
             .eval = [make](std::span<const Tensor> in, const Params& p) {
               return std::vector<Tensor>{unary(in[0], make(p))};
             }};
}
// ... of an op without parameters.
template <class F>
Arm unary_arm(std::string_view name, F f) {
  return unary_arm(name, {}, [f](const Params&) { return f; });
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
// parameter as f64 (powi as i32). Each op is its arm, its function beside
// its name: a new one is one line here (and its entry, contracts/unary.cpp).
void register_unary(Arms& arms) {
  arms.push_back(unary_arm("neg", []<class T>(T x) -> T { return -x; }));
  arms.push_back(unary_arm("relu", []<class T>(T x) -> T { return x > zero<T>() ? x : zero<T>(); }));  // NaN, -0 -> +0
  arms.push_back(unary_arm("sqr", []<class T>(T x) -> T { return x * x; }));
  arms.push_back(unary_arm("sqrt", []<class T>(T x) -> T { return m_sqrt(x); }));
  arms.push_back(unary_arm("exp", []<class T>(T x) -> T { return m_exp(x); }));
  arms.push_back(unary_arm("sign", []<class T>(T x) -> T {  // NaN and +-0 -> +0
    return x > zero<T>() ? one<T>() : (x < zero<T>() ? -one<T>() : zero<T>());
  }));
  arms.push_back(unary_arm("log", []<class T>(T x) -> T { return m_log(x); }));
  arms.push_back(unary_arm("sin", []<class T>(T x) -> T { return m_sin(x); }));
  arms.push_back(unary_arm("cos", []<class T>(T x) -> T { return m_cos(x); }));
  arms.push_back(unary_arm("abs", []<class T>(T x) -> T { return m_abs(x); }));
  arms.push_back(unary_arm("recip", []<class T>(T x) -> T { return one<T>() / x; }));
  arms.push_back(unary_arm("tanh", []<class T>(T x) -> T { return m_tanh(x); }));
  arms.push_back(unary_arm("floor", []<class T>(T x) -> T { return m_floor(x); }));
  arms.push_back(unary_arm("ceil", []<class T>(T x) -> T { return m_ceil(x); }));
  arms.push_back(unary_arm("erf", []<class T>(T x) -> T { return erf_of(x); }));
  arms.push_back(unary_arm("gelu_erf", []<class T>(T x) -> T { return gelu_erf_of(x); }));
  arms.push_back(unary_arm("round", []<class T>(T x) -> T { return round_even(x); }));
  arms.push_back(unary_arm("sigmoid", []<class T>(T x) -> T { return sigmoid_of(x); }));
  arms.push_back(unary_arm("silu", []<class T>(T x) -> T {  // two passes: sigmoid, then x * s
    T s = sigmoid_of(x);
    return x * s;
  }));
  arms.push_back(unary_arm("gelu", []<class T>(T x) -> T { return gelu_of(x); }));
  arms.push_back(unary_arm("step", []<class T>(T x) -> T { return x > zero<T>() ? one<T>() : zero<T>(); }));
  arms.push_back(unary_arm("rsqrt", []<class T>(T x) -> T { return one<T>() / m_sqrt(x); }));  // two roundings
  arms.push_back(unary_arm("powi", {{"n", ParamKind::integer, INT32_MIN, INT32_MAX}}, [](const Params& p) {
    return [n = static_cast<std::int32_t>(p.integer("n"))]<class T>(T x) -> T { return m_powi(x, n); };
  }));
  arms.push_back(unary_arm("add_scalar", {{"c", ParamKind::real}}, [](const Params& p) {
    return [c = p.real("c")]<class T>(T x) -> T { return x + cst<T>(c); };
  }));
  arms.push_back(unary_arm("mul_scalar", {{"c", ParamKind::real}}, [](const Params& p) {
    return [c = p.real("c")]<class T>(T x) -> T { return x * cst<T>(c); };
  }));
  // No min <= max check; NaN passes through.
  arms.push_back(unary_arm("clamp", {{"min", ParamKind::real}, {"max", ParamKind::real}}, [](const Params& p) {
    return [lo = p.real("min"), hi = p.real("max")]<class T>(T x) -> T {
      if (x < cst<T>(lo)) return cst<T>(lo);
      if (x > cst<T>(hi)) return cst<T>(hi);
      return x;
    };
  }));
}

}  // namespace kc::kern
