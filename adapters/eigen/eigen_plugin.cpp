// Eigen 3.4 graded as a kernel library: its vectorized array functions
// (Eigen::Map over the input buffer, one array expression per kernel), f32
// and f64, with the packet width the build's flags give (recorded). Eigen's
// documentation states no ulp bound for these functions, so no claim is
// declared; the run measures them. Built twice: with Eigen's default
// EIGEN_FAST_MATH=1 (its fast vectorized sqrt, exp, log, tanh, erf) and
// with EIGEN_FAST_MATH=0; the plug-in's name says which.
//
// Unary: exp, log, tanh, erf (unsupported/SpecialFunctions), sigmoid
// (logistic), sqrt, rsqrt. Binary, same shape: add, sub, mul, div, maximum,
// minimum (cwiseMax/cwiseMin, Eigen's default NaN propagation). Reductions
// to one element: sum_all, max_all, min_all, mean_all (sum, maxCoeff,
// minCoeff, mean). An empty tensor, which Eigen's reductions do not define
// (maxCoeff asserts), gets the contract's answer from the adapter: 0, -inf,
// +inf, NaN; those cases grade the adapter, not Eigen, and say so here.
#include <Eigen/Core>
#include <unsupported/Eigen/SpecialFunctions>
#include <cmath>
#include <limits>

extern "C" {
#include "adapters/adapter.h"
}

#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif

namespace {

template <class T>
constexpr kc_dtype kc_of = std::is_same_v<T, float> ? KC_F32 : KC_F64;
template <class T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
template <class T>
using In = Eigen::Map<const Array<T>>;
template <class T>
using Out = Eigen::Map<Array<T>>;

enum class U { exp, log, tanh, erf, sigmoid, sqrt, rsqrt };
enum class B { add, sub, mul, div, maximum, minimum };
enum class R { sum, max, min, mean };

template <class T, U op>
kc_status unary(const kc_tensor* in, int32_t n, const kc_param*, int32_t, kc_alloc_output alloc, void* ctx, kc_error* err) {
  int64_t numel = 0;
  if (const kc_status st = ad_check_unary(in, n, kc_of<T>, err, &numel); st != KC_OK) return st;
  T* y = static_cast<T*>(alloc(ctx, kc_of<T>, in[0].rank, in[0].dims));
  if (!y) return KC_ERR_OTHER;
  const In<T> x(static_cast<const T*>(in[0].data), numel);
  Out<T> out(y, numel);
  if constexpr (op == U::exp) out = x.exp();
  if constexpr (op == U::log) out = x.log();
  if constexpr (op == U::tanh) out = x.tanh();
  if constexpr (op == U::erf) out = x.erf();
  if constexpr (op == U::sigmoid) out = x.logistic();
  if constexpr (op == U::sqrt) out = x.sqrt();
  if constexpr (op == U::rsqrt) out = x.rsqrt();
  return KC_OK;
}

template <class T, B op>
kc_status binary(const kc_tensor* in, int32_t n, const kc_param*, int32_t, kc_alloc_output alloc, void* ctx, kc_error* err) {
  int64_t numel = 0;
  if (const kc_status st = ad_check_binary(in, n, kc_of<T>, err, &numel); st != KC_OK) return st;
  T* y = static_cast<T*>(alloc(ctx, kc_of<T>, in[0].rank, in[0].dims));
  if (!y) return KC_ERR_OTHER;
  const In<T> a(static_cast<const T*>(in[0].data), numel), b(static_cast<const T*>(in[1].data), numel);
  Out<T> out(y, numel);
  if constexpr (op == B::add) out = a + b;
  if constexpr (op == B::sub) out = a - b;
  if constexpr (op == B::mul) out = a * b;
  if constexpr (op == B::div) out = a / b;
  if constexpr (op == B::maximum) out = a.max(b);
  if constexpr (op == B::minimum) out = a.min(b);
  return KC_OK;
}

template <class T, R op>
kc_status reduce(const kc_tensor* in, int32_t n, const kc_param*, int32_t, kc_alloc_output alloc, void* ctx, kc_error* err) {
  int64_t numel = 0;
  if (const kc_status st = ad_check_unary(in, n, kc_of<T>, err, &numel); st != KC_OK) return st;
  T* y = static_cast<T*>(alloc(ctx, kc_of<T>, 0, nullptr));
  if (!y) return KC_ERR_OTHER;
  const In<T> x(static_cast<const T*>(in[0].data), numel);
  constexpr T inf = std::numeric_limits<T>::infinity();
  if constexpr (op == R::sum) *y = numel ? x.sum() : T(0);
  if constexpr (op == R::max) *y = numel ? x.maxCoeff() : -inf;
  if constexpr (op == R::min) *y = numel ? x.minCoeff() : inf;
  if constexpr (op == R::mean) *y = numel ? x.mean() : std::numeric_limits<T>::quiet_NaN();
  return KC_OK;
}

#define BOTH(name, fn) {name, KC_F32, fn<float>, KC_CLAIM_NONE, 0, nullptr}, {name, KC_F64, fn<double>, KC_CLAIM_NONE, 0, nullptr}
template <class T> constexpr kc_kernel_fn exp_ = unary<T, U::exp>;
template <class T> constexpr kc_kernel_fn log_ = unary<T, U::log>;
template <class T> constexpr kc_kernel_fn tanh_ = unary<T, U::tanh>;
template <class T> constexpr kc_kernel_fn erf_ = unary<T, U::erf>;
template <class T> constexpr kc_kernel_fn sigmoid_ = unary<T, U::sigmoid>;
template <class T> constexpr kc_kernel_fn sqrt_ = unary<T, U::sqrt>;
template <class T> constexpr kc_kernel_fn rsqrt_ = unary<T, U::rsqrt>;
template <class T> constexpr kc_kernel_fn add_ = binary<T, B::add>;
template <class T> constexpr kc_kernel_fn sub_ = binary<T, B::sub>;
template <class T> constexpr kc_kernel_fn mul_ = binary<T, B::mul>;
template <class T> constexpr kc_kernel_fn div_ = binary<T, B::div>;
template <class T> constexpr kc_kernel_fn maximum_ = binary<T, B::maximum>;
template <class T> constexpr kc_kernel_fn minimum_ = binary<T, B::minimum>;
template <class T> constexpr kc_kernel_fn sum_ = reduce<T, R::sum>;
template <class T> constexpr kc_kernel_fn max_ = reduce<T, R::max>;
template <class T> constexpr kc_kernel_fn min_ = reduce<T, R::min>;
template <class T> constexpr kc_kernel_fn mean_ = reduce<T, R::mean>;

const kc_kernel kKernels[] = {BOTH("exp", exp_),       BOTH("log", log_),         BOTH("tanh", tanh_),   BOTH("erf", erf_),
                              BOTH("sigmoid", sigmoid_), BOTH("sqrt", sqrt_),     BOTH("rsqrt", rsqrt_), BOTH("add", add_),
                              BOTH("sub", sub_),       BOTH("mul", mul_),         BOTH("div", div_),     BOTH("maximum", maximum_),
                              BOTH("minimum", minimum_), BOTH("sum_all", sum_),   BOTH("max_all", max_), BOTH("min_all", min_),
                              BOTH("mean_all", mean_)};

}  // namespace

extern "C" int kconform_plugin_register(kc_plugin_info* info) {
  static char version[96];
  snprintf(version, sizeof version, "Eigen %d.%d.%d, %s", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION,
           Eigen::SimdInstructionSetsInUse());
  info->name = EIGEN_FAST_MATH ? "eigen" : "eigen-no-fast-math";
  info->version = version;
  info->build_flags = KC_ADAPTER_FLAGS;
  info->kernels = kKernels;
  info->n_kernels = static_cast<int32_t>(sizeof kKernels / sizeof kKernels[0]);
  return KC_PLUGIN_ABI_VERSION;
}
