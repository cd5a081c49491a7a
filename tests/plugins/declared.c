/* A plug-in that declares claims and expected failures, for
 * tests/plugin_test.sh: exp's claim (0.5001 ulp) is confirmed, neg's
 * (distance 0) is confirmed, log flushes subnormal inputs to zero and is
 * declared to fail (it does: XFAIL), sqrt is declared to fail but is
 * correct (an unexpected pass: XPASS, never hidden). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "kconform/plugin.h"
#include "unary_f32.h"

static float exp_via_double(float x) { return (float)exp((double)x); }
static float log_ftz(float x) { return fabsf(x) < 0x1p-126f ? logf(0.0f) : logf(x); }
static float neg_f(float x) { return -x; }

#define KERNEL(fn, f)                                                                                          \
  static kc_status fn(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output a, void* c, \
                      kc_error* e) {                                                                           \
    (void)p, (void)np;                                                                                         \
    return map_f32(in, n, a, c, e, f);                                                                         \
  }
KERNEL(k_exp, exp_via_double)
KERNEL(k_log, log_ftz)
KERNEL(k_sqrt, sqrtf)
KERNEL(k_neg, neg_f)

static const kc_kernel kKernels[] = {
    {"exp", KC_F32, k_exp, KC_CLAIM_FRAC_ULP, 0.5001, NULL},
    {"neg", KC_F32, k_neg, KC_CLAIM_DISTANCE, 0, NULL},
    {"log", KC_F32, k_log, KC_CLAIM_NONE, 0, "subnormal inputs are flushed to zero"},
    {"sqrt", KC_F32, k_sqrt, KC_CLAIM_NONE, 0, "not yet validated"},
};

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "declared";
  info->version = "2";
  info->build_flags = "-O2";
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
  /* Built against ABI version 1 on purpose (its kc_error has no `rule`): an
   * older plug-in still loads and runs (plugin.cli). */
  return KC_PLUGIN_ABI_OLDEST;
}
