/* The input checks of a one-input f32 kernel in the contract's terms,
 * shared by the test plug-ins: returns KC_OK and the element count, or the
 * rule broken with its operand. */
#ifndef KC_TEST_UNARY_F32_H
#define KC_TEST_UNARY_F32_H

#include <stdint.h>
#include <stdio.h>

#include "kconform/plugin.h"

static kc_status check_unary_f32(const kc_tensor* in, int32_t n, kc_error* err, int64_t* numel) {
  if (n != 1) {
    snprintf(err->operand, sizeof err->operand, "inputs");
    return KC_ERR_ARITY;
  }
  int64_t count = 1;
  for (int32_t d = 0; d < in->rank; ++d) {
    if (in->dims[d] < 0) {
      snprintf(err->operand, sizeof err->operand, "x");
      return KC_ERR_SHAPE_NEGATIVE_DIM;
    }
    count *= in->dims[d];
  }
  if (in->dtype != KC_F32) {
    snprintf(err->operand, sizeof err->operand, "x");
    return KC_ERR_DTYPE_UNSUPPORTED;
  }
  if (in->bytes != (size_t)count * 4) {
    snprintf(err->operand, sizeof err->operand, "x");
    return KC_ERR_BUFFER_SIZE;
  }
  *numel = count;
  return KC_OK;
}

/* A one-input f32 kernel applying f to every element. */
typedef float (*unary_f32_fn)(float);
static __attribute__((unused)) kc_status map_f32(const kc_tensor* in, int32_t n, kc_alloc_output alloc, void* ctx,
                                                 kc_error* err, unary_f32_fn f) {
  int64_t numel = 0;
  const kc_status st = check_unary_f32(in, n, err, &numel);
  if (st != KC_OK) return st;
  float* y = (float*)alloc(ctx, KC_F32, in->rank, in->dims);
  if (!y) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
  for (int64_t i = 0; i < numel; ++i) y[i] = f(x[i]);
  return KC_OK;
}

#endif
