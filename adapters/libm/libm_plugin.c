/* glibc's libm graded as a kernel library: its f32 and f64 functions called
 * directly, one element at a time (not through the reference's rounding
 * steps), for every kernel of the inventory that libm has a function for.
 *
 * glibc documents no bound per function in its headers; its manual's
 * "Errors in Math Functions" table lists measured maxima per release and
 * architecture, so no claim is declared here: the run measures them. */
#define _GNU_SOURCE 1 /* roundeven, roundevenf (glibc 2.25, ISO/IEC TS 18661-1) */
#include <gnu/libc-version.h>
#include <math.h>

#include "adapters/adapter.h"

#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif

/* roundeven: the inventory's round is half-to-even (banker's). */
#define LIBM_UNARY(X)                                                                                             \
  X(exp, expf, exp) X(log, logf, log) X(sin, sinf, sin) X(cos, cosf, cos) X(tanh, tanhf, tanh) X(erf, erff, erf)   \
  X(sqrt, sqrtf, sqrt) X(abs, fabsf, fabs) X(floor, floorf, floor) X(ceil, ceilf, ceil) X(round, roundevenf, roundeven)

#define DEFINE_UNARY(id, f32fn, f64fn) AD_UNARY(id, float, KC_F32, f32fn) AD_UNARY(id, double, KC_F64, f64fn)
LIBM_UNARY(DEFINE_UNARY)
AD_BINARY(pow, float, KC_F32, powf)
AD_BINARY(pow, double, KC_F64, pow)

#define ENTRIES(id, f32fn, f64fn) AD_ENTRY(#id, id, float, KC_F32, KC_CLAIM_NONE, 0), AD_ENTRY(#id, id, double, KC_F64, KC_CLAIM_NONE, 0),
static const kc_kernel kKernels[] = {LIBM_UNARY(ENTRIES) AD_ENTRY("pow", pow, float, KC_F32, KC_CLAIM_NONE, 0),
                                     AD_ENTRY("pow", pow, double, KC_F64, KC_CLAIM_NONE, 0)};

int kconform_plugin_register(kc_plugin_info* info) {
  static char version[64];
  snprintf(version, sizeof version, "glibc %s", gnu_get_libc_version());
  return ad_register(info, "glibc-libm", version, KC_ADAPTER_FLAGS, kKernels, sizeof kKernels / sizeof kKernels[0]);
}
