/* An example kconform plug-in: a small f32 math library with a fast expf.
 *
 * Build:  cc -O2 -shared -fPIC -I<kconform>/include fastmath.c -o libfastmath.so -lm
 * Grade:  kconform run --backend plugin:./libfastmath.so
 *
 * The fast expf has a deliberate flaw the default run catches: its
 * polynomial stops at degree 4 (a Taylor series on [-ln2/2, ln2/2]), which
 * leaves errors of several ulps where the contract allows 2.5. Its claim of
 * 1 ulp is refuted by the measurement. The other kernels are correct:
 * sqrt and neg match the reference bit for bit, and relu returns NaN for a
 * NaN input (PyTorch's answer), which the conformance profile accepts and
 * lists as a difference from the reference. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kconform/plugin.h"

#ifndef FASTMATH_BUILD_FLAGS
#define FASTMATH_BUILD_FLAGS "unknown"
#endif

/* The checks every one-input f32 kernel makes, in the contract's terms. */
static kc_status check_unary(const kc_tensor* in, int32_t n, kc_error* err, int64_t* numel) {
  if (n != 1) {
    snprintf(err->operand, sizeof err->operand, "inputs");
    snprintf(err->message, sizeof err->message, "expected 1 input, got %d", (int)n);
    return KC_ERR_ARITY;
  }
  int64_t count = 1;
  for (int32_t d = 0; d < in->rank; ++d) {
    if (in->dims[d] < 0) {
      snprintf(err->operand, sizeof err->operand, "x");
      snprintf(err->message, sizeof err->message, "dimension %d is negative", (int)d);
      return KC_ERR_SHAPE_NEGATIVE_DIM;
    }
    count *= in->dims[d];
  }
  if (in->dtype != KC_F32) {
    snprintf(err->operand, sizeof err->operand, "x");
    snprintf(err->message, sizeof err->message, "only f32 is implemented");
    return KC_ERR_DTYPE_UNSUPPORTED;
  }
  if (in->bytes != (size_t)count * sizeof(float)) {
    snprintf(err->operand, sizeof err->operand, "x");
    snprintf(err->message, sizeof err->message, "buffer of %zu bytes for %lld elements", in->bytes, (long long)count);
    return KC_ERR_BUFFER_SIZE;
  }
  *numel = count;
  return KC_OK;
}

typedef float (*unary_f32)(float);

static kc_status map_f32(const kc_tensor* in, int32_t n, kc_alloc_output alloc, void* ctx, kc_error* err, unary_f32 f) {
  int64_t numel = 0;
  const kc_status st = check_unary(in, n, err, &numel);
  if (st != KC_OK) return st;
  float* y = (float*)alloc(ctx, KC_F32, in->rank, in->dims);
  if (!y) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
  for (int64_t i = 0; i < numel; ++i) y[i] = f(x[i]);
  return KC_OK;
}

/* The fast expf: x = k ln2 + r, e^x = 2^k e^r, e^r by a degree-4 Taylor
 * polynomial (the flaw: degree 6 would be needed for 1 ulp). */
static float fast_expf(float x) {
  if (x != x) return x;
  if (x > 88.72283935546875f) return INFINITY;
  if (x < -103.972084045410156f) return 0.0f;
  const float k = nearbyintf(x * 1.44269502162933349609f);
  const float r = (x - k * 0.693145751953125f) - k * 1.428606765330187045e-06f;
  const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24))));
  return ldexpf(p, (int)k);
}
static float neg_f(float x) { return -x; }
static float relu_f(float x) { return x != x ? x : (x > 0 ? x : 0.0f); }

static kc_status k_exp(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output a, void* c,
                       kc_error* e) {
  (void)p, (void)np;
  return map_f32(in, n, a, c, e, fast_expf);
}
static kc_status k_sqrt(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output a, void* c,
                        kc_error* e) {
  (void)p, (void)np;
  return map_f32(in, n, a, c, e, sqrtf);
}
static kc_status k_neg(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output a, void* c,
                       kc_error* e) {
  (void)p, (void)np;
  return map_f32(in, n, a, c, e, neg_f);
}
static kc_status k_relu(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output a, void* c,
                        kc_error* e) {
  (void)p, (void)np;
  return map_f32(in, n, a, c, e, relu_f);
}

static const kc_kernel kKernels[] = {
    {"exp", KC_F32, k_exp, KC_CLAIM_FRAC_ULP, 1.0, NULL},
    {"sqrt", KC_F32, k_sqrt, KC_CLAIM_FRAC_ULP, 0.5, NULL},
    {"neg", KC_F32, k_neg, KC_CLAIM_NONE, 0, NULL},
    {"relu", KC_F32, k_relu, KC_CLAIM_NONE, 0, NULL},
};

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "fastmath";
  info->version = "0.1.0";
  info->build_flags = FASTMATH_BUILD_FLAGS;
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
  return KC_PLUGIN_ABI_VERSION;
}
