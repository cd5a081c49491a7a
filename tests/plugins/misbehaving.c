/* Plug-ins that misbehave, for the isolation tests (tests/plugin_test.sh).
 * One source, one library per MODE: each implements f32 `neg` correctly
 * except on the cases whose element count is 3 mod 5, where it
 *   MODE_CRASH   writes through a null pointer (SIGSEGV),
 *   MODE_ABORT   calls abort(),
 *   MODE_HANG    never returns,
 *   MODE_OOB     writes one element past the end of its output,
 *   MODE_THROW   lets a C++ exception escape (built as C++: throwing.cpp),
 *   MODE_SHAPE   returns an output of the wrong shape (a contract failure),
 *   MODE_INPUT   writes into its (read-only) input;
 * and the load errors:
 *   MODE_ABI     registers for another ABI version,
 *   MODE_UNKNOWN registers a kernel that is not in the inventory. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kconform/plugin.h"
#include "unary_f32.h"

static kc_status k_neg(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc,
                       void* ctx, kc_error* err) {
  (void)p, (void)np;
  int64_t numel = 0;
  const kc_status st = check_unary_f32(in, n, err, &numel);
  if (st != KC_OK) return st;
#if defined(MODE_SHAPE)
  const int64_t wrong[1] = {numel + 1};
  float* y = numel % 5 == 3 ? (float*)alloc(ctx, KC_F32, 1, wrong) : (float*)alloc(ctx, KC_F32, in->rank, in->dims);
#else
  float* y = (float*)alloc(ctx, KC_F32, in->rank, in->dims);
#endif
  if (!y) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
  for (int64_t i = 0; i < numel; ++i) y[i] = -x[i];
  if (numel % 5 == 3) {
#if defined(MODE_CRASH)
    *(volatile int*)(uintptr_t)0 = 1;
#elif defined(MODE_ABORT)
    abort();
#elif defined(MODE_HANG)
    for (volatile int spin = 0;; spin = spin + 1) {
    }
#elif defined(MODE_OOB)
    y[numel] = 1.0f;
#elif defined(MODE_INPUT)
    ((float*)(uintptr_t)in->data)[0] = 0.0f;
#elif defined(MODE_THROW)
    KC_TEST_THROW();
#endif
  }
  return KC_OK;
}

static const kc_kernel kKernels[] = {
#if defined(MODE_UNKNOWN)
    {"frobnicate", KC_F32, k_neg, KC_CLAIM_NONE, 0, NULL},
#endif
    {"neg", KC_F32, k_neg, KC_CLAIM_NONE, 0, NULL},
};

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "misbehaving";
  info->version = "1";
  info->build_flags = "";
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
#if defined(MODE_ABI)
  return KC_PLUGIN_ABI_VERSION + 98;
#else
  return KC_PLUGIN_ABI_VERSION;
#endif
}
