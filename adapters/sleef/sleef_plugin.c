/* SLEEF 3.5 graded as a kernel library. One source, four plug-ins:
 *   SLEEF_U = 10 or 35       the _u10 or _u35 functions (sqrt: _u05 / _u35);
 *   SLEEF_VECTOR = 0 or 1    scalar functions, or the widest vector
 *                            functions the machine runs (AVX-512F, else AVX2,
 *                            else SSE2), chosen at load time; the tail of a
 *                            tensor goes through the same vector call, padded.
 * Claims, from SLEEF's documentation (sleef.org, "Math library reference"):
 * the _u10 functions are accurate to 1.0 ulp, the _u35 ones to 3.5 ulp, and
 * sqrt_u05 to 0.5001 ulp; each is declared as this plug-in's claim
 * (KC_CLAIM_FRAC_ULP), which the run grades beside the contract. */
#include <math.h>
#include <sleef.h>

#include "adapters/adapter.h"
#include "adapters/sleef/sleef_functions.h"

#ifndef SLEEF_VECTOR
#define SLEEF_VECTOR 0
#endif
#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif

#if !SLEEF_VECTOR
/* Scalar: Sleef_expf_u10(float), Sleef_exp_u10(double). */
#define DEFINE(id, fn, u, claim) AD_UNARY(id, float, KC_F32, CAT(Sleef_##fn##f, u)) AD_UNARY(id, double, KC_F64, CAT(Sleef_##fn, u))
SLEEF_UNARY(DEFINE)
#if HAS_POW
AD_BINARY(pow, float, KC_F32, Sleef_powf_u10)
AD_BINARY(pow, double, KC_F64, Sleef_pow_u10)
#endif
static const char* isa(void) { return "scalar"; }
#else
/* Vector: the widest width the CPU runs, chosen per call (cheap: the CPU
 * model is read once by __builtin_cpu_init). */
typedef enum { W512, W256, W128 } width;
static width widest(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? W512 : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? W256 : W128;
}
static const char* isa(void) {
  const width w = widest();
  return w == W512 ? "avx512f (16 f32 / 8 f64 lanes)" : w == W256 ? "avx2 (8 f32 / 4 f64 lanes)" : "sse2 (4 f32 / 2 f64 lanes)";
}
/* ad_<id>_<T>'s buffer function: the loop of the widest width. */
#define WIDEST(id, T, S)                                                                                          \
  static void id##_##S##_widest(const T* x, T* y, int64_t n) {                                                   \
    const width w = widest();                                                                                    \
    (w == W512 ? kc_sleef_##id##_##S##512 : w == W256 ? kc_sleef_##id##_##S##256 : kc_sleef_##id##_##S##128)(x, y, n); \
  }
#define DEFINE(id, fn, u, claim)                                                              \
  WIDEST(id, float, f) WIDEST(id, double, d) AD_UNARY_BLOCK(id, float, KC_F32, id##_f_widest) \
  AD_UNARY_BLOCK(id, double, KC_F64, id##_d_widest)
SLEEF_UNARY(DEFINE)
#if HAS_POW
#define POW_WIDEST(T, S)                                                                                 \
  static void pow_##S##_widest(const T* a, const T* b, T* y, int64_t n) {                                \
    const width w = widest();                                                                           \
    (w == W512 ? kc_sleef_pow_##S##512 : w == W256 ? kc_sleef_pow_##S##256 : kc_sleef_pow_##S##128)(a, b, y, n); \
  }
POW_WIDEST(float, f)
POW_WIDEST(double, d)
AD_BINARY_BLOCK(pow, float, KC_F32, pow_f_widest)
AD_BINARY_BLOCK(pow, double, KC_F64, pow_d_widest)
#endif
#endif

#define ENTRIES(id, fn, u, claim) AD_ENTRY(#id, id, float, KC_F32, KC_CLAIM_FRAC_ULP, claim), AD_ENTRY(#id, id, double, KC_F64, KC_CLAIM_FRAC_ULP, claim),
static const kc_kernel kKernels[] = {SLEEF_UNARY(ENTRIES)
#if HAS_POW
                                     AD_ENTRY("pow", pow, float, KC_F32, KC_CLAIM_FRAC_ULP, 1.0),
                                     AD_ENTRY("pow", pow, double, KC_F64, KC_CLAIM_FRAC_ULP, 1.0)
#endif
};

int kconform_plugin_register(kc_plugin_info* info) {
  static char name[64], version[96];
  snprintf(name, sizeof name, "sleef-u%d-%s", SLEEF_U, SLEEF_VECTOR ? "vector" : "scalar");
  snprintf(version, sizeof version, "SLEEF %d.%d.%d, %s", SLEEF_VERSION_MAJOR, SLEEF_VERSION_MINOR, SLEEF_VERSION_PATCHLEVEL, isa());
  return ad_register(info, name, version, KC_ADAPTER_FLAGS, kKernels, sizeof kKernels / sizeof kKernels[0]);
}
