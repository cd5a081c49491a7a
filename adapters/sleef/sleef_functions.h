/* The SLEEF functions of one accuracy class (SLEEF_U = 10 or 35), shared by
 * the plug-in and its per-width vector loops. */
#ifndef KC_SLEEF_FUNCTIONS_H
#define KC_SLEEF_FUNCTIONS_H

#include <stdint.h>

#ifndef SLEEF_U
#define SLEEF_U 10
#endif

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define U CAT(_u, SLEEF_U)
#if SLEEF_U == 10
#define SQRT_U _u05
#define CLAIM 1.0
#define SQRT_CLAIM 0.5001
#else
#define SQRT_U _u35
#define CLAIM 3.5
#define SQRT_CLAIM 3.5
#endif

/* The functions of this accuracy class: (kernel, SLEEF name, suffix, claim). */
#if SLEEF_U == 10
#define SLEEF_UNARY(X) X(exp, exp, U, CLAIM) X(log, log, U, CLAIM) X(sin, sin, U, CLAIM) X(cos, cos, U, CLAIM) \
  X(tanh, tanh, U, CLAIM) X(erf, erf, U, CLAIM) X(sqrt, sqrt, SQRT_U, SQRT_CLAIM)
#define HAS_POW 1
#else  /* exp, erf and pow have no _u35 form */
#define SLEEF_UNARY(X) X(log, log, U, CLAIM) X(sin, sin, U, CLAIM) X(cos, cos, U, CLAIM) X(tanh, tanh, U, CLAIM) \
  X(sqrt, sqrt, SQRT_U, SQRT_CLAIM)
#define HAS_POW 0
#endif


/* The vector loops of each width (sleef_width.c, compiled once per width
 * with that width's -m flags): y = F(x) over n elements, the tail padded. */
#define DECLARE(id, fn, u, claim)                                   \
  void kc_sleef_##id##_f512(const float*, float*, int64_t);        \
  void kc_sleef_##id##_f256(const float*, float*, int64_t);        \
  void kc_sleef_##id##_f128(const float*, float*, int64_t);        \
  void kc_sleef_##id##_d512(const double*, double*, int64_t);      \
  void kc_sleef_##id##_d256(const double*, double*, int64_t);      \
  void kc_sleef_##id##_d128(const double*, double*, int64_t);
SLEEF_UNARY(DECLARE)
#if HAS_POW
void kc_sleef_pow_f512(const float*, const float*, float*, int64_t);
void kc_sleef_pow_f256(const float*, const float*, float*, int64_t);
void kc_sleef_pow_f128(const float*, const float*, float*, int64_t);
void kc_sleef_pow_d512(const double*, const double*, double*, int64_t);
void kc_sleef_pow_d256(const double*, const double*, double*, int64_t);
void kc_sleef_pow_d128(const double*, const double*, double*, int64_t);
#endif

#endif
