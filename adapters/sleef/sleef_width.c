/* SLEEF's vector functions at one width, compiled once per width with its
 * -m flags (KC_SLEEF_WIDTH = 512, 256 or 128: AVX-512F, AVX2 + FMA, SSE2),
 * so that sleef.h declares them; called only when the CPU runs that width
 * (sleef_plugin.c). y[i] = F(x[i]) in blocks of lanes, the tail padded with
 * ones so that every element goes through the vector function. */
#include <immintrin.h>
#include <sleef.h>

#include "adapters/sleef/sleef_functions.h"

#if KC_SLEEF_WIDTH == 512
#define NF 16
#define ND 8
#define VF __m512
#define VD __m512d
#define LF _mm512_loadu_ps
#define SF _mm512_storeu_ps
#define LD _mm512_loadu_pd
#define SD _mm512_storeu_pd
#elif KC_SLEEF_WIDTH == 256
#define NF 8
#define ND 4
#define LF _mm256_loadu_ps
#define SF _mm256_storeu_ps
#define LD _mm256_loadu_pd
#define SD _mm256_storeu_pd
#else
#define NF 4
#define ND 2
#define LF _mm_loadu_ps
#define SF _mm_storeu_ps
#define LD _mm_loadu_pd
#define SD _mm_storeu_pd
#endif
#define FNAME(fn, lanes, suffix, u) CAT(CAT(CAT(Sleef_, fn), CAT(suffix, lanes)), u)
#define KNAME(id, s) CAT(CAT(CAT(kc_sleef_, id), CAT(_, s)), KC_SLEEF_WIDTH)

#define LOOP(NAME, T, N, LOAD, STORE, F)                                  \
  void NAME(const T* x, T* y, int64_t n) {                                \
    int64_t i = 0;                                                        \
    for (; i + N <= n; i += N) STORE(y + i, F(LOAD(x + i)));               \
    if (i < n) {                                                          \
      T in[N], out[N];                                                    \
      for (int k = 0; k < N; ++k) in[k] = i + k < n ? x[i + k] : (T)1;    \
      STORE(out, F(LOAD(in)));                                            \
      for (int k = 0; i + k < n; ++k) y[i + k] = out[k];                  \
    }                                                                     \
  }
#define LOOP2(NAME, T, N, LOAD, STORE, F)                                                                      \
  void NAME(const T* a, const T* b, T* y, int64_t n) {                                                         \
    int64_t i = 0;                                                                                             \
    for (; i + N <= n; i += N) STORE(y + i, F(LOAD(a + i), LOAD(b + i)));                                       \
    if (i < n) {                                                                                               \
      T ia[N], ib[N], out[N];                                                                                  \
      for (int k = 0; k < N; ++k) ia[k] = i + k < n ? a[i + k] : (T)1, ib[k] = i + k < n ? b[i + k] : (T)1;    \
      STORE(out, F(LOAD(ia), LOAD(ib)));                                                                       \
      for (int k = 0; i + k < n; ++k) y[i + k] = out[k];                                                       \
    }                                                                                                          \
  }
#define DEFINE(id, fn, u, claim)                                     \
  LOOP(KNAME(id, f), float, NF, LF, SF, FNAME(fn, NF, f, u))         \
  LOOP(KNAME(id, d), double, ND, LD, SD, FNAME(fn, ND, d, u))
SLEEF_UNARY(DEFINE)
#if HAS_POW
LOOP2(KNAME(pow, f), float, NF, LF, SF, FNAME(pow, NF, f, _u10))
LOOP2(KNAME(pow, d), double, ND, LD, SD, FNAME(pow, ND, d, _u10))
#endif
