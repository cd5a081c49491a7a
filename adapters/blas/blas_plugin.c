/* A CBLAS library graded as a kernel library: matmul, matmul_2d and
 * fused_linear through cblas_sgemm (f32) and cblas_dgemm (f64), written as
 * a BLAS user writes them. The same source builds against OpenBLAS and BLIS
 * (adapters/CMakeLists.txt, KC_BLAS_NAME names which): their version is read
 * at load time where the library says it.
 *
 * - matmul: one gemm per batch matrix (row-major, no transposes, alpha 1,
 *   beta 0). A zero-sized batch dim, or m or n zero, returns the empty
 *   product without calling the library (BLAS leading dimensions must be
 *   >= 1); k = 0 is the library's (C = 0).
 * - fused_linear: the bias broadcast into C, then gemm with beta = 1, so the
 *   bias joins the library's accumulation (the BLAS idiom), not a separate
 *   rounding as the reference adds it: the contract's bound admits both.
 * - Halves: neither library's CBLAS offers a bf16 or f16 gemm in these
 *   Debian builds (OpenBLAS 0.3.21 has no sbgemm symbol, BLIS 0.9's CBLAS is
 *   s/d/c/z), so only f32 and f64 are declared; nothing is widened.
 * - No claims: the contract's condition-aware bound is the one a BLAS is
 *   documented against (each result within gamma_k sum |a b| of the exact
 *   product, any summation order; Higham 3.5).
 * The contract's preconditions are checked here and answered in its terms
 * (status, operand and, for rules without a status, the rule's name). */
#include <stdlib.h>

#include "adapters/adapter.h"
#include KC_BLAS_HEADER

#ifndef KC_ADAPTER_FLAGS
#define KC_ADAPTER_FLAGS "unknown"
#endif
#ifndef KC_BLAS_NAME
#define KC_BLAS_NAME "blas"
#endif

static kc_status blas_rule(kc_error* err, const char* rule, const char* operand, const char* message) {
  snprintf(err->rule, sizeof err->rule, "%s", rule);
  return ad_fail(err, KC_ERR_OTHER, operand, message);
}

/* The product's shape: a [..., m, k] @ b [..., k, n], equal batch prefixes. */
typedef struct {
  int32_t rank;
  int64_t batch, m, k, n;
  int64_t dims[8];
} blas_shape;

static kc_status blas_check_product(const kc_tensor* a, const kc_tensor* b, kc_dtype want, int exact_rank2,
                                    kc_error* err, blas_shape* s) {
  int64_t na = 0, nb = 0;
  kc_status st = ad_check_operand(a, "a", want, err, &na);
  if (st != KC_OK) return st;
  if (b->dtype != a->dtype) return ad_fail(err, KC_ERR_DTYPE_MISMATCH, "b", "b's dtype differs from a's");
  st = ad_check_operand(b, "b", want, err, &nb);
  if (st != KC_OK) return st;
  if (exact_rank2) {
    if (a->rank != 2) return blas_rule(err, "rank.exact", "a", "a is not a matrix");
    if (b->rank != 2) return blas_rule(err, "rank.exact", "b", "b is not a matrix");
  } else {
    if (a->rank < 2 || b->rank < 2) return blas_rule(err, "rank.min", a->rank < 2 ? "a" : "b", "rank below 2");
    if (b->rank != a->rank) return blas_rule(err, "rank.mismatch", "b", "b's rank differs from a's");
  }
  if (a->rank > 8) return blas_rule(err, "rank.max", "a", "more than 8 dims");
  const int32_t r = a->rank;
  s->rank = r;
  s->batch = 1;
  for (int32_t d = 0; d + 2 < r; ++d) {
    if (a->dims[d] != b->dims[d]) return blas_rule(err, "batch.mismatch", "b", "b's batch dims differ from a's");
    s->batch *= a->dims[d];
    s->dims[d] = a->dims[d];
  }
  s->m = a->dims[r - 2], s->k = a->dims[r - 1], s->n = b->dims[r - 1];
  if (b->dims[r - 2] != s->k) return blas_rule(err, "inner.mismatch", "b", "b's rows differ from a's columns");
  if (s->m > 0x7fffffff || s->k > 0x7fffffff || s->n > 0x7fffffff)
    return blas_rule(err, "shape.too_large", "a", "a dimension does not fit the BLAS's 32-bit int");
  s->dims[r - 2] = s->m, s->dims[r - 1] = s->n;
  return KC_OK;
}

/* bias broadcasts to dims (right-aligned, each dim equal or 1). */
static kc_status blas_check_bias(const kc_tensor* bias, const blas_shape* s, kc_error* err) {
  if (bias->dtype != KC_F32 && bias->dtype != KC_F64) return ad_fail(err, KC_ERR_DTYPE_MISMATCH, "bias", "bias's dtype");
  int64_t count = 0;
  kc_status st = ad_check_operand(bias, "bias", bias->dtype, err, &count);
  if (st != KC_OK) return st;
  if (bias->rank > s->rank) return blas_rule(err, "shape.broadcast", "bias", "bias has more dims than the product");
  for (int32_t d = 0; d < bias->rank; ++d) {
    const int64_t bd = bias->dims[bias->rank - 1 - d], pd = s->dims[s->rank - 1 - d];
    if (bd != 1 && bd != pd) return blas_rule(err, "shape.broadcast", "bias", "bias does not broadcast to the product");
  }
  return KC_OK;
}

/* Element `i` of the product (row-major over s->dims) -> its bias element. */
static int64_t blas_bias_index(const kc_tensor* bias, const blas_shape* s, int64_t i) {
  int64_t index = 0, stride = 1;
  for (int32_t d = 0; d < bias->rank; ++d) {
    const int64_t pd = s->dims[s->rank - 1 - d], bd = bias->dims[bias->rank - 1 - d];
    const int64_t coord = i % pd;
    i /= pd;
    if (bd != 1) index += coord * stride;
    stride *= bd;
  }
  return index;
}

#define BLAS_KERNELS(T, KC, GEMM)                                                                                   \
  static kc_status blas_product_##T(const kc_tensor* in, int32_t n, int rank2, int with_bias, kc_alloc_output alloc, \
                                    void* ctx, kc_error* err) {                                                      \
    if (n != (with_bias ? 3 : 2)) return ad_fail(err, KC_ERR_ARITY, "inputs", "wrong number of inputs");            \
    blas_shape s;                                                                                                    \
    kc_status st = blas_check_product(&in[0], &in[1], KC, rank2, err, &s);                                          \
    if (st != KC_OK) return st;                                                                                      \
    if (with_bias) {                                                                                                 \
      if (in[2].dtype != KC) return ad_fail(err, KC_ERR_DTYPE_MISMATCH, "bias", "bias's dtype differs from a's");   \
      if ((st = blas_check_bias(&in[2], &s, err)) != KC_OK) return st;                                               \
    }                                                                                                                \
    T* c = (T*)alloc(ctx, KC, s.rank, s.dims);                                                                       \
    if (!c) return KC_ERR_OTHER;                                                                                     \
    const int64_t per_c = s.m * s.n, total = s.batch * per_c;                                                        \
    for (int64_t i = 0; i < total; ++i) c[i] = with_bias ? ((const T*)in[2].data)[blas_bias_index(&in[2], &s, i)] : 0; \
    if (total == 0) return KC_OK;                                                                                    \
    const T* a = (const T*)in[0].data;                                                                               \
    const T* b = (const T*)in[1].data;                                                                               \
    const int m = (int)s.m, k = (int)s.k, nn = (int)s.n;                                                             \
    for (int64_t i = 0; i < s.batch; ++i)                                                                            \
      GEMM(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, nn, k, 1, a + i * s.m * s.k, k > 0 ? k : 1,                \
           b + i * s.k * s.n, nn, with_bias ? 1 : 0, c + i * per_c, nn);                                              \
    return KC_OK;                                                                                                    \
  }                                                                                                                  \
  static kc_status blas_matmul_##T(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc, \
                                   void* ctx, kc_error* err) {                                                       \
    (void)p, (void)np;                                                                                               \
    return blas_product_##T(in, n, 0, 0, alloc, ctx, err);                                                           \
  }                                                                                                                  \
  static kc_status blas_matmul_2d_##T(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np,               \
                                      kc_alloc_output alloc, void* ctx, kc_error* err) {                             \
    (void)p, (void)np;                                                                                               \
    return blas_product_##T(in, n, 1, 0, alloc, ctx, err);                                                           \
  }                                                                                                                  \
  static kc_status blas_fused_linear_##T(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np,             \
                                         kc_alloc_output alloc, void* ctx, kc_error* err) {                          \
    (void)p, (void)np;                                                                                               \
    return blas_product_##T(in, n, 0, 1, alloc, ctx, err);                                                           \
  }

BLAS_KERNELS(float, KC_F32, cblas_sgemm)
BLAS_KERNELS(double, KC_F64, cblas_dgemm)

#define BLAS_ENTRY(name, T, KC) {#name, KC, blas_##name##_##T, KC_CLAIM_NONE, 0, NULL}
static const kc_kernel kKernels[] = {
    BLAS_ENTRY(matmul, float, KC_F32),       BLAS_ENTRY(matmul, double, KC_F64),
    BLAS_ENTRY(matmul_2d, float, KC_F32),    BLAS_ENTRY(matmul_2d, double, KC_F64),
    BLAS_ENTRY(fused_linear, float, KC_F32), BLAS_ENTRY(fused_linear, double, KC_F64),
};

int kconform_plugin_register(kc_plugin_info* info) {
  static char version[160];
#ifdef KC_BLAS_OPENBLAS
  /* openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH ... Haswell MAX_THREADS=64", with the core it chose. */
  extern char* openblas_get_config(void);
  extern char* openblas_get_corename(void);
  snprintf(version, sizeof version, "%s (core %s)", openblas_get_config(), openblas_get_corename());
#elif defined(KC_BLAS_BLIS)
  extern const char* bli_info_get_version_str(void);
  snprintf(version, sizeof version, "BLIS %s", bli_info_get_version_str());
#else
  snprintf(version, sizeof version, "unknown");
#endif
  return ad_register(info, KC_BLAS_NAME, version, KC_ADAPTER_FLAGS, kKernels, sizeof kKernels / sizeof kKernels[0]);
}
