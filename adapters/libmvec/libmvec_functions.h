/* The inventory's kernels that glibc 2.36's libmvec has a vector function
 * for (X(kernel id, libmvec name)), shared by libmvec_plugin.c and the
 * per-width loops of libmvec_width.c. libmvec also exports acos, acosh,
 * asin, asinh, atan, atan2, atanh, cbrt, cosh, erfc, exp10, exp2, expm1,
 * hypot, log10, log1p, log2, sincos, sinh and tan: the kernel inventory has
 * no kernel for them, so nothing grades them. */
#ifndef KC_LIBMVEC_FUNCTIONS_H
#define KC_LIBMVEC_FUNCTIONS_H

#include <stdint.h>

#define MVEC_UNARY(X) X(exp, exp) X(log, log) X(sin, sin) X(cos, cos) X(tanh, tanh) X(erf, erf)

#define MVEC_DECLARE_WIDTH(id, w)                                        \
  void kc_mvec_##id##_f##w(const float* x, float* y, int64_t n);         \
  void kc_mvec_##id##_d##w(const double* x, double* y, int64_t n);
#define MVEC_DECLARE(id, fn) MVEC_DECLARE_WIDTH(id, 512) MVEC_DECLARE_WIDTH(id, 256) MVEC_DECLARE_WIDTH(id, 128)
MVEC_UNARY(MVEC_DECLARE)
#define MVEC_DECLARE_POW(w)                                                          \
  void kc_mvec_pow_f##w(const float* a, const float* b, float* y, int64_t n);        \
  void kc_mvec_pow_d##w(const double* a, const double* b, double* y, int64_t n);
MVEC_DECLARE_POW(512)
MVEC_DECLARE_POW(256)
MVEC_DECLARE_POW(128)

#endif
