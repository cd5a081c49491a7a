// A C++ kernel library as a kconform plug-in: neg and sqrt in f32 and f64.
// It uses kconform's C++ API (kconform::core: dtypes and their sizes) and
// the plug-in ABI; its kernels validate their inputs in the contract's
// terms, so the bad-input checks pass too.
#include <cmath>
#include <cstdio>

#include "core/dtype.h"
#include "kconform/plugin.h"

namespace {

kc_status fail(kc_error* e, const char* operand, const char* message, kc_status status) {
  std::snprintf(e->operand, sizeof e->operand, "%s", operand);
  std::snprintf(e->message, sizeof e->message, "%s", message);
  return status;
}

template <class T, class F>
kc_status map(const kc_tensor* in, int32_t n, kc_alloc_output alloc, void* ctx, kc_error* e, F f) {
  if (n != 1) return fail(e, "inputs", "expected one input", KC_ERR_ARITY);
  std::int64_t numel = 1;
  for (int32_t d = 0; d < in->rank; ++d) {
    if (in->dims[d] < 0) return fail(e, "x", "negative dimension", KC_ERR_SHAPE_NEGATIVE_DIM);
    numel *= in->dims[d];
  }
  if (in->dtype != KC_F32 && in->dtype != KC_F64) return fail(e, "x", "f32 and f64 only", KC_ERR_DTYPE_UNSUPPORTED);
  const std::size_t size = kc::dtype_size(static_cast<kc::DType>(in->dtype));
  if (in->bytes != static_cast<std::size_t>(numel) * size) return fail(e, "x", "wrong buffer size", KC_ERR_BUFFER_SIZE);
  void* out = alloc(ctx, in->dtype, in->rank, in->dims);
  if (!out) return KC_ERR_OTHER;
  if (in->dtype == KC_F32) {
    const auto* x = static_cast<const float*>(in->data);
    auto* y = static_cast<float*>(out);
    for (std::int64_t i = 0; i < numel; ++i) y[i] = f(x[i]);
  } else {
    const auto* x = static_cast<const double*>(in->data);
    auto* y = static_cast<double*>(out);
    for (std::int64_t i = 0; i < numel; ++i) y[i] = f(x[i]);
  }
  return KC_OK;
}

kc_status neg(const kc_tensor* in, int32_t n, const kc_param*, int32_t, kc_alloc_output a, void* c, kc_error* e) {
  return map<float>(in, n, a, c, e, [](auto x) { return -x; });
}
kc_status sqrt_k(const kc_tensor* in, int32_t n, const kc_param*, int32_t, kc_alloc_output a, void* c, kc_error* e) {
  return map<float>(in, n, a, c, e, [](auto x) { return std::sqrt(x); });
}

const kc_kernel kKernels[] = {
    {"neg", KC_F32, neg, KC_CLAIM_DISTANCE, 0, nullptr},   {"neg", KC_F64, neg, KC_CLAIM_DISTANCE, 0, nullptr},
    {"sqrt", KC_F32, sqrt_k, KC_CLAIM_FRAC_ULP, 0.5, nullptr}, {"sqrt", KC_F64, sqrt_k, KC_CLAIM_FRAC_ULP, 0.5, nullptr},
};

}  // namespace

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "mykernels";
  info->version = "1.0";
  info->build_flags = "see CMakeLists.txt";
  info->kernels = kKernels;
  info->n_kernels = static_cast<int32_t>(sizeof kKernels / sizeof kKernels[0]);
  return KC_PLUGIN_ABI_VERSION;
}
