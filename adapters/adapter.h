/* Shared by kconform's adapters (plug-ins that grade real libraries through
 * include/kconform/plugin.h): the input checks of one- and two-input
 * elementwise kernels in the contracts' terms, and macros that turn a
 * library's scalar or array function into a kernel entry point for f32 and
 * f64. Plain C99, header only: each adapter is one translation unit. */
#ifndef KC_ADAPTER_H
#define KC_ADAPTER_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kconform/plugin.h"

static inline size_t ad_dtype_size(kc_dtype t) { return t == KC_F64 ? 8 : t == KC_U8 ? 1 : t == KC_F32 || t == KC_U32 ? 4 : 2; }

static inline kc_status ad_fail(kc_error* err, kc_status st, const char* operand, const char* message) {
  snprintf(err->operand, sizeof err->operand, "%s", operand);
  snprintf(err->message, sizeof err->message, "%s", message);
  return st;
}

/* One operand: dims >= 0, a dtype the adapter implements, the byte count. */
static inline kc_status ad_check_operand(const kc_tensor* t, const char* name, kc_dtype want, kc_error* err, int64_t* numel) {
  int64_t count = 1;
  for (int32_t d = 0; d < t->rank; ++d) {
    if (t->dims[d] < 0) return ad_fail(err, KC_ERR_SHAPE_NEGATIVE_DIM, name, "a dimension is negative");
    count *= t->dims[d];
  }
  if (t->bytes != (size_t)count * ad_dtype_size(t->dtype))
    return ad_fail(err, KC_ERR_BUFFER_SIZE, name, "the buffer does not hold numel x dtype size bytes");
  if (t->dtype != want) return ad_fail(err, KC_ERR_DTYPE_UNSUPPORTED, name, "this library does not implement the dtype");
  *numel = count;
  return KC_OK;
}

static inline kc_status ad_check_unary(const kc_tensor* in, int32_t n, kc_dtype want, kc_error* err, int64_t* numel) {
  if (n != 1) return ad_fail(err, KC_ERR_ARITY, "inputs", "expected one input");
  return ad_check_operand(&in[0], "x", want, err, numel);
}

static inline kc_status ad_check_binary(const kc_tensor* in, int32_t n, kc_dtype want, kc_error* err, int64_t* numel) {
  if (n != 2) return ad_fail(err, KC_ERR_ARITY, "inputs", "expected two inputs");
  int64_t nb = 0;
  kc_status st = ad_check_operand(&in[0], "a", want, err, numel);
  if (st != KC_OK) return st;
  if (in[1].dtype != in[0].dtype) return ad_fail(err, KC_ERR_DTYPE_MISMATCH, "b", "b's dtype differs from a's");
  st = ad_check_operand(&in[1], "b", want, err, &nb);
  if (st != KC_OK) return st;
  if (in[1].rank != in[0].rank || memcmp(in[0].dims, in[1].dims, (size_t)in[0].rank * sizeof(int64_t)) != 0)
    return ad_fail(err, KC_ERR_SHAPE_MISMATCH, "b", "b's dims differ from a's");
  return KC_OK;
}

/* A kernel entry point `ad_<id>_<T>`: checks one input of T (float for
 * KC_F32, double for KC_F64), allocates the output and hands the whole
 * buffer to BLOCK(const T* x, T* y, int64_t n). */
#define AD_UNARY_BLOCK(id, T, KC, BLOCK)                                                                        \
  static kc_status ad_##id##_##T(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np,                  \
                                 kc_alloc_output alloc, void* ctx, kc_error* err) {                              \
    (void)p, (void)np;                                                                                           \
    int64_t numel = 0;                                                                                           \
    const kc_status st = ad_check_unary(in, n, KC, err, &numel);                                                 \
    if (st != KC_OK) return st;                                                                                  \
    T* y = (T*)alloc(ctx, KC, in[0].rank, in[0].dims);                                                           \
    if (!y) return KC_ERR_OTHER;                                                                                 \
    BLOCK((const T*)in[0].data, y, numel);                                                                       \
    return KC_OK;                                                                                                \
  }

/* The same for two same-shape inputs: BLOCK(const T* a, const T* b, T* y, int64_t n). */
#define AD_BINARY_BLOCK(id, T, KC, BLOCK)                                                                       \
  static kc_status ad_##id##_##T(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np,                  \
                                 kc_alloc_output alloc, void* ctx, kc_error* err) {                              \
    (void)p, (void)np;                                                                                           \
    int64_t numel = 0;                                                                                           \
    const kc_status st = ad_check_binary(in, n, KC, err, &numel);                                                \
    if (st != KC_OK) return st;                                                                                  \
    T* y = (T*)alloc(ctx, KC, in[0].rank, in[0].dims);                                                           \
    if (!y) return KC_ERR_OTHER;                                                                                 \
    BLOCK((const T*)in[0].data, (const T*)in[1].data, y, numel);                                                 \
    return KC_OK;                                                                                                \
  }

/* Entry points from a scalar function, element by element: F(T) -> T and F(T, T) -> T. */
#define AD_UNARY(id, T, KC, F)                                                                                  \
  static void ad_##id##_##T##_map(const T* x, T* y, int64_t n) {                                                 \
    for (int64_t i = 0; i < n; ++i) y[i] = F(x[i]);                                                              \
  }                                                                                                              \
  AD_UNARY_BLOCK(id, T, KC, ad_##id##_##T##_map)
#define AD_BINARY(id, T, KC, F)                                                                                 \
  static void ad_##id##_##T##_map(const T* a, const T* b, T* y, int64_t n) {                                     \
    for (int64_t i = 0; i < n; ++i) y[i] = F(a[i], b[i]);                                                        \
  }                                                                                                              \
  AD_BINARY_BLOCK(id, T, KC, ad_##id##_##T##_map)

/* kconform_plugin_register's body: the library's name and version, the
 * flags the adapter was built with, its kernel table. */
static inline int ad_register(kc_plugin_info* info, const char* name, const char* version, const char* flags,
                              const kc_kernel* kernels, size_t n) {
  info->name = name;
  info->version = version;
  info->build_flags = flags;
  info->kernels = kernels;
  info->n_kernels = (int32_t)n;
  return KC_PLUGIN_ABI_VERSION;
}

/* A kernel table entry for `ad_<id>_<T>`. */
#define AD_ENTRY(name, id, T, KC, claim, bound) {name, KC, ad_##id##_##T, claim, bound, NULL}

#endif
