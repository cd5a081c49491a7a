/* glibc libmvec's vector functions at one width, compiled once per width
 * with its -m flags (KC_MVEC_WIDTH = 512, 256 or 128: the x86_64 vector
 * ABI's 'e' (AVX-512), 'd' (AVX2) and 'b' (SSE4) variants), so that the
 * vector arguments pass in the registers the variant expects; called only
 * when the CPU runs that width (libmvec_plugin.c). y[i] = F(x[i]) in blocks
 * of lanes, the tail padded with ones so that every element goes through
 * the vector function. libmvec has no header that declares its symbols
 * outside -fopenmp-simd, so they are declared here by their ABI names. */
#include <stdint.h>
#include <string.h>

#include "adapters/libmvec/libmvec_functions.h"

#if KC_MVEC_WIDTH == 512
#define NF 16
#define ND 8
#define ISA e
#elif KC_MVEC_WIDTH == 256
#define NF 8
#define ND 4
#define ISA d
#else
#define NF 4
#define ND 2
#define ISA b
#endif
typedef float vf __attribute__((vector_size(NF * 4)));
typedef double vd __attribute__((vector_size(ND * 8)));

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
/* _ZGV<isa>N<lanes><v|vv>_<name>: the vector function ABI's mangled name. */
#define VNAME(lanes, args, name) CAT(CAT(CAT(CAT(_ZGV, ISA), N), lanes), CAT(CAT(args, _), name))
#define KNAME(id, s) CAT(CAT(CAT(kc_mvec_, id), CAT(_, s)), KC_MVEC_WIDTH)

#define LOOP(NAME, T, V, N, F)                                            \
  V F(V);                                                                 \
  void NAME(const T* x, T* y, int64_t n) {                                \
    for (int64_t i = 0; i < n; i += N) {                                  \
      V in, out;                                                          \
      for (int k = 0; k < N; ++k) in[k] = i + k < n ? x[i + k] : (T)1;    \
      out = F(in);                                                        \
      for (int k = 0; k < N && i + k < n; ++k) y[i + k] = out[k];         \
    }                                                                     \
  }
#define LOOP2(NAME, T, V, N, F)                                                                                \
  V F(V, V);                                                                                                   \
  void NAME(const T* a, const T* b, T* y, int64_t n) {                                                         \
    for (int64_t i = 0; i < n; i += N) {                                                                       \
      V ia, ib, out;                                                                                           \
      for (int k = 0; k < N; ++k) ia[k] = i + k < n ? a[i + k] : (T)1, ib[k] = i + k < n ? b[i + k] : (T)1;   \
      out = F(ia, ib);                                                                                         \
      for (int k = 0; k < N && i + k < n; ++k) y[i + k] = out[k];                                              \
    }                                                                                                          \
  }
#define DEFINE(id, fn)                                       \
  LOOP(KNAME(id, f), float, vf, NF, VNAME(NF, v, CAT(fn, f))) \
  LOOP(KNAME(id, d), double, vd, ND, VNAME(ND, v, fn))
MVEC_UNARY(DEFINE)
LOOP2(KNAME(pow, f), float, vf, NF, VNAME(NF, vv, powf))
LOOP2(KNAME(pow, d), double, vd, ND, VNAME(ND, vv, pow))
