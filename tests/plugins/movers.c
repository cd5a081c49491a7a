/* A plug-in of the newer families, for tests/plugin_test.sh: slice (a data
 * mover) and cumsum (a fold), f32 only, written from their contracts as an
 * outside author would. Rules the kc_status list has no value for
 * ("range.out_of_bounds") are named through kc_error.rule (ABI 2). cumsum
 * folds in a double accumulator, rounded once per prefix: more accurate
 * than the reference's f32 fold, so it passes the conformance profile and
 * differs from the reference's bits (the reference profile's semantics). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kconform/plugin.h"
#include "unary_f32.h"

static kc_status fail(kc_error* err, const char* operand, const char* rule, kc_status st, const char* msg) {
  snprintf(err->operand, sizeof err->operand, "%s", operand);
  if (rule) snprintf(err->rule, sizeof err->rule, "%s", rule);
  snprintf(err->message, sizeof err->message, "%s", msg);
  return st;
}

/* An integer parameter `name` with value >= lo: KC_OK, or the rule broken. */
static kc_status int_param(const kc_param* p, int32_t np, const char* name, int64_t lo, int64_t* out, kc_error* err) {
  for (int32_t i = 0; i < np; ++i) {
    if (strcmp(p[i].name, name) != 0) continue;
    if (p[i].kind != KC_PARAM_INT) return fail(err, name, NULL, KC_ERR_PARAM_TYPE, "expected an integer");
    if (p[i].integer < lo || p[i].integer > INT32_MAX) return fail(err, name, NULL, KC_ERR_PARAM_DOMAIN, "out of range");
    *out = p[i].integer;
    return KC_OK;
  }
  return fail(err, name, NULL, KC_ERR_PARAM_MISSING, "required parameter is not given");
}

/* outer x d x inner around `dim`. */
static void along(const kc_tensor* x, int64_t dim, int64_t* outer, int64_t* d, int64_t* inner) {
  *outer = 1, *inner = 1;
  for (int32_t a = 0; a < x->rank; ++a) {
    if (a < dim) *outer *= x->dims[a];
    else if (a > dim) *inner *= x->dims[a];
  }
  *d = x->dims[dim];
}

static kc_status k_slice(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc, void* ctx,
                         kc_error* err) {
  int64_t numel = 0, dim = 0, start = 0, len = 0;
  kc_status st = check_unary_f32(in, n, err, &numel);
  if (st != KC_OK) return st;
  if ((st = int_param(p, np, "dim", 0, &dim, err)) != KC_OK) return st;
  if ((st = int_param(p, np, "start", 0, &start, err)) != KC_OK) return st;
  if ((st = int_param(p, np, "len", 0, &len, err)) != KC_OK) return st;
  if (dim >= in->rank) return fail(err, "dim", NULL, KC_ERR_DIM_OUT_OF_RANGE, "dim out of range");
  int64_t outer, d, inner;
  along(in, dim, &outer, &d, &inner);
  if (start > d || len > d - start) return fail(err, "len", "range.out_of_bounds", KC_ERR_OTHER, "past the end of dim");
  int64_t dims[64];
  for (int32_t a = 0; a < in->rank; ++a) dims[a] = a == dim ? len : in->dims[a];
  float* y = (float*)alloc(ctx, KC_F32, in->rank, dims);
  if (!y && outer * len * inner > 0) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < len; ++j)
      if (inner > 0) memcpy(y + (o * len + j) * inner, x + (o * d + start + j) * inner, (size_t)inner * sizeof(float));
  return KC_OK;
}

static kc_status k_cumsum(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc, void* ctx,
                          kc_error* err) {
  int64_t numel = 0, dim = 0;
  kc_status st = check_unary_f32(in, n, err, &numel);
  if (st != KC_OK) return st;
  if ((st = int_param(p, np, "dim", 0, &dim, err)) != KC_OK) return st;
  if (dim >= in->rank) return fail(err, "dim", NULL, KC_ERR_DIM_OUT_OF_RANGE, "dim out of range");
  int64_t outer, d, inner;
  along(in, dim, &outer, &d, &inner);
  float* y = (float*)alloc(ctx, KC_F32, in->rank, in->dims);
  if (!y && numel > 0) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double acc = 0;  /* wider than the reference's f32 accumulator */
      for (int64_t j = 0; j < d; ++j) {
        acc += x[(o * d + j) * inner + i];
        y[(o * d + j) * inner + i] = (float)acc;
      }
    }
  return KC_OK;
}

static const kc_kernel kKernels[] = {
    {"slice", KC_F32, k_slice, KC_CLAIM_DISTANCE, 0, NULL},
    {"cumsum", KC_F32, k_cumsum, KC_CLAIM_NONE, 0, NULL},
};

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "movers";
  info->version = "1";
  info->build_flags = "-O2";
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
  return KC_PLUGIN_ABI_VERSION;
}
