/* glibc's vector math library (libmvec) graded as a kernel library: each
 * inventory kernel it has a function for (libmvec_functions.h), f32 and
 * f64, through the widest variant of the x86_64 vector function ABI the CPU
 * runs (AVX-512 'e', else AVX2 'd', else SSE4 'b'), whole blocks of lanes
 * with the tail padded. Claim: glibc documents libmvec's functions as
 * accurate to 4 ulp (glibc 2.22 NEWS, "Added vector math library ...
 * with 4 ulps accuracy"; the manual's "Errors in Math Functions" lists
 * no per-function figure for them), declared as frac_ulp 4 for each kernel
 * x dtype: `--accuracy claimed` grades against it. */
#include <gnu/libc-version.h>

#include "adapters/adapter.h"
#include "adapters/libmvec/libmvec_functions.h"

#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif

typedef enum { W512, W256, W128 } width;
static width widest(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? W512 : __builtin_cpu_supports("avx2") ? W256 : W128;
}
static const char* isa(void) {
  const width w = widest();
  return w == W512 ? "AVX-512 variants (_ZGVeN16v_*f, _ZGVeN8v_*)"
         : w == W256 ? "AVX2 variants (_ZGVdN8v_*f, _ZGVdN4v_*)"
                     : "SSE4 variants (_ZGVbN4v_*f, _ZGVbN2v_*)";
}

#define WIDEST(id, T, S)                                                                                       \
  static void id##_##S##_widest(const T* x, T* y, int64_t n) {                                                \
    const width w = widest();                                                                                 \
    (w == W512 ? kc_mvec_##id##_##S##512 : w == W256 ? kc_mvec_##id##_##S##256 : kc_mvec_##id##_##S##128)(x, y, n); \
  }
#define DEFINE(id, fn)                                                                        \
  WIDEST(id, float, f) WIDEST(id, double, d) AD_UNARY_BLOCK(id, float, KC_F32, id##_f_widest) \
  AD_UNARY_BLOCK(id, double, KC_F64, id##_d_widest)
MVEC_UNARY(DEFINE)
#define POW_WIDEST(T, S)                                                                                 \
  static void pow_##S##_widest(const T* a, const T* b, T* y, int64_t n) {                                \
    const width w = widest();                                                                           \
    (w == W512 ? kc_mvec_pow_##S##512 : w == W256 ? kc_mvec_pow_##S##256 : kc_mvec_pow_##S##128)(a, b, y, n); \
  }
POW_WIDEST(float, f)
POW_WIDEST(double, d)
AD_BINARY_BLOCK(pow, float, KC_F32, pow_f_widest)
AD_BINARY_BLOCK(pow, double, KC_F64, pow_d_widest)

#define CLAIM 4.0 /* glibc: libmvec's functions are accurate to 4 ulp */
#define ENTRIES(id, fn) \
  AD_ENTRY(#id, id, float, KC_F32, KC_CLAIM_FRAC_ULP, CLAIM), AD_ENTRY(#id, id, double, KC_F64, KC_CLAIM_FRAC_ULP, CLAIM),
static const kc_kernel kKernels[] = {MVEC_UNARY(ENTRIES) AD_ENTRY("pow", pow, float, KC_F32, KC_CLAIM_FRAC_ULP, CLAIM),
                                     AD_ENTRY("pow", pow, double, KC_F64, KC_CLAIM_FRAC_ULP, CLAIM)};

int kconform_plugin_register(kc_plugin_info* info) {
  static char version[128];
  snprintf(version, sizeof version, "glibc %s libmvec, %s", gnu_get_libc_version(), isa());
  return ad_register(info, "glibc-libmvec", version, KC_ADAPTER_FLAGS, kKernels, sizeof kKernels / sizeof kKernels[0]);
}
