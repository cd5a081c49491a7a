/* A plug-in of a three-output kernel, for tests/plugin_test.sh:
 * attention_flash_backward in f32, written from its contract (`kconform
 * list --json`: inputs, params, preconditions) as an outside author would.
 * It recomputes each row's softmax with the reference's f32 steps but
 * accumulates dQ, dK and dV in double, rounded once at the end: more
 * accurate than the reference's f32 accumulators, so it passes the
 * conformance profile and differs from the reference's bits (the
 * reference profile's semantics). Its outputs come back through three
 * alloc_output calls, in the contract's order dQ, dK, dV. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconform/plugin.h"

static kc_status fail(kc_error* err, const char* operand, const char* rule, kc_status st, const char* msg) {
  snprintf(err->operand, sizeof err->operand, "%s", operand);
  if (rule) snprintf(err->rule, sizeof err->rule, "%s", rule);
  snprintf(err->message, sizeof err->message, "%s", msg);
  return st;
}

static const kc_param* find(const kc_param* p, int32_t np, const char* name) {
  for (int32_t i = 0; i < np; ++i)
    if (strcmp(p[i].name, name) == 0) return &p[i];
  return NULL;
}

static kc_status real_param(const kc_param* p, int32_t np, const char* name, double* out, kc_error* err) {
  const kc_param* q = find(p, np, name);
  if (!q) return fail(err, name, NULL, KC_ERR_PARAM_MISSING, "required parameter is not given");
  if (q->kind != KC_PARAM_REAL) return fail(err, name, NULL, KC_ERR_PARAM_TYPE, "expected a real");
  *out = q->real;
  return KC_OK;
}

/* An integer in [lo, hi]. */
static kc_status int_param(const kc_param* p, int32_t np, const char* name, int64_t lo, int64_t hi, int64_t* out,
                           kc_error* err) {
  const kc_param* q = find(p, np, name);
  if (!q) return fail(err, name, NULL, KC_ERR_PARAM_MISSING, "required parameter is not given");
  if (q->kind != KC_PARAM_INT) return fail(err, name, NULL, KC_ERR_PARAM_TYPE, "expected an integer");
  if (q->integer < lo || q->integer > hi) return fail(err, name, NULL, KC_ERR_PARAM_DOMAIN, "out of range");
  *out = q->integer;
  return KC_OK;
}

/* One tensor's own rules: dims >= 0, the buffer's size, f32 (the first
 * input: dtype.unsupported; the others: dtype.mismatch with it). */
static kc_status check_tensor(const kc_tensor* t, const char* name, int first, kc_error* err) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d) {
    if (t->dims[d] < 0) return fail(err, name, NULL, KC_ERR_SHAPE_NEGATIVE_DIM, "negative dimension");
    n *= t->dims[d];
  }
  if (t->dtype != KC_F32)
    return first ? fail(err, name, NULL, KC_ERR_DTYPE_UNSUPPORTED, "this library implements f32 only")
                 : fail(err, name, NULL, KC_ERR_DTYPE_MISMATCH, "not q's dtype");
  if (t->bytes != (size_t)n * 4) return fail(err, name, NULL, KC_ERR_BUFFER_SIZE, "buffer size is not numel x 4");
  return KC_OK;
}

static int same_dims(const kc_tensor* a, const kc_tensor* b) {
  if (a->rank != b->rank) return 0;
  for (int32_t d = 0; d < a->rank; ++d)
    if (a->dims[d] != b->dims[d]) return 0;
  return 1;
}

typedef struct {
  float scale, cap;
  int64_t causal, left, right;
} mask_t;

/* The contract's admissible (qi, kj): causal top-left aligned, windows. */
static int admissible(const mask_t* m, int64_t qi, int64_t kj) {
  if (m->causal && kj > qi) return 0;
  if (m->left >= 0 && kj + m->left < qi) return 0;
  if (m->right >= 0 && kj > qi + m->right) return 0;
  return 1;
}

/* The operands' count, ranks and shapes, as the contract states them. */
static kc_status check_operands(const kc_tensor* in, int32_t n, kc_error* err) {
  static const char* names[] = {"q", "k", "v", "do_grad", "alibi"};
  if (n != 4 && n != 5) return fail(err, "inputs", NULL, KC_ERR_ARITY, "expects q, k, v, do_grad and the optional alibi");
  kc_status st;
  for (int32_t i = 0; i < n; ++i)
    if ((st = check_tensor(&in[i], names[i], i == 0, err)) != KC_OK) return st;
  for (int32_t i = 0; i < 3; ++i)
    if (in[i].rank != 4) return fail(err, names[i], "rank.exact", KC_ERR_OTHER, "expected rank 4 [B, H, S, D]");
  const int64_t *q = in[0].dims, *k = in[1].dims, *v = in[2].dims;
  if (q[0] != k[0]) return fail(err, "k", "batch.mismatch", KC_ERR_OTHER, "B mismatch q vs k");
  if (k[0] != v[0]) return fail(err, "v", "batch.mismatch", KC_ERR_OTHER, "B mismatch k vs v");
  if (k[1] != v[1]) return fail(err, "v", "heads.mismatch", KC_ERR_OTHER, "Hk mismatch k vs v");
  if (k[2] != v[2]) return fail(err, "v", "seq.mismatch", KC_ERR_OTHER, "Sk mismatch k vs v");
  if (q[3] != k[3]) return fail(err, "k", "head_dim.mismatch", KC_ERR_OTHER, "head_dim mismatch q vs k");
  if (k[3] != v[3]) return fail(err, "v", "head_dim.mismatch", KC_ERR_OTHER, "head_dim mismatch k vs v");
  if (k[1] == 0 || q[1] % k[1] != 0) return fail(err, "q", "gqa.group", KC_ERR_OTHER, "Hq must be a multiple of Hk");
  if (n == 5 && (in[4].rank != 1 || in[4].dims[0] != q[1]))
    return fail(err, "alibi", "alibi.shape", KC_ERR_OTHER, "alibi slopes must be shape [Hq]");
  if (in[3].rank != 4) return fail(err, "do_grad", "rank.exact", KC_ERR_OTHER, "expected rank 4 [B, Hq, Sq, D]");
  if (!same_dims(&in[3], &in[0])) return fail(err, "do_grad", NULL, KC_ERR_SHAPE_MISMATCH, "do_grad is not q's shape");
  return KC_OK;
}

/* The mask and score parameters. */
static kc_status read_mask(const kc_param* p, int32_t np, mask_t* m, kc_error* err) {
  double scale, cap;
  int64_t causal, left, right;
  kc_status st;
  if ((st = real_param(p, np, "softmax_scale", &scale, err)) != KC_OK) return st;
  if ((st = real_param(p, np, "softcap", &cap, err)) != KC_OK) return st;
  if ((st = int_param(p, np, "causal", 0, 1, &causal, err)) != KC_OK) return st;
  if ((st = int_param(p, np, "window_left", -1, INT32_MAX, &left, err)) != KC_OK) return st;
  if ((st = int_param(p, np, "window_right", -1, INT32_MAX, &right, err)) != KC_OK) return st;
  /* softmax_scale and softcap are f32 parameters (the contract's domain). */
  const mask_t r = {(float)scale, (float)cap, causal, left, right};
  *m = r;
  return KC_OK;
}

/* One query row's gradients, accumulated into dq, dk and dv (double):
   the scores in f32 (the dot, the scale, the softcap, ALiBi), the softmax,
   then dV, dP and dS. Four scratch rows of sk floats in `row`. */
static void backward_row(const mask_t* m, const float* qs, const float* ks, const float* vs, const float* dos,
                         const float* slopes, int64_t hq, int64_t qi, int64_t at, int64_t kv, int64_t sk, int64_t d,
                         float* row, double* dq, double* dk, double* dv) {
  float *s = row, *pre = row + sk, *pj = row + 2 * sk, *dp = row + 3 * sk;
  const float cinv = 1.0f / m->cap;
  float mx = -INFINITY;
  for (int64_t j = 0; j < sk; ++j) {
    s[j] = pre[j] = -INFINITY;
    if (!admissible(m, qi, j)) continue;
    float dot = 0.0f;
    for (int64_t x = 0; x < d; ++x) dot += qs[at + x] * ks[kv + j * d + x];
    float sc = pre[j] = dot * m->scale;
    if (m->cap != 0) sc = tanhf(sc * cinv) * m->cap;
    if (slopes) sc += slopes[hq] * ((float)j - (float)qi);
    s[j] = sc;
    if (sc > mx) mx = sc;
  }
  if (!isfinite(mx)) return; /* no admissible key, or a +inf score: the row contributes nothing */
  float sum = 0.0f;
  for (int64_t j = 0; j < sk; ++j) sum += (pj[j] = isfinite(s[j]) ? expf(s[j] - mx) : 0.0f);
  const float inv = 1.0f / sum;
  float rd = 0.0f;
  for (int64_t j = 0; j < sk; ++j) {
    pj[j] *= inv;
    if (pj[j] != 0)
      for (int64_t x = 0; x < d; ++x) dv[kv + j * d + x] += pj[j] * dos[at + x];
    float f = 0.0f;
    for (int64_t x = 0; x < d; ++x) f += dos[at + x] * vs[kv + j * d + x];
    dp[j] = f;
    rd += pj[j] * f;
  }
  for (int64_t j = 0; j < sk; ++j) {
    float ds = (dp[j] - rd) * pj[j];
    if (m->cap != 0 && isfinite(pre[j])) {
      const float t = tanhf(pre[j] * cinv);
      ds *= 1.0f - t * t;
    }
    const float g = ds * m->scale;
    if (g == 0) continue;
    for (int64_t x = 0; x < d; ++x) dq[at + x] += g * ks[kv + j * d + x];
    for (int64_t x = 0; x < d; ++x) dk[kv + j * d + x] += g * qs[at + x];
  }
}

static kc_status k_attention_backward(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc,
                                      void* ctx, kc_error* err) {
  kc_status st;
  mask_t m;
  if ((st = check_operands(in, n, err)) != KC_OK || (st = read_mask(p, np, &m, err)) != KC_OK) return st;
  const int64_t *q = in[0].dims, *k = in[1].dims, *v = in[2].dims;
  const int64_t B = q[0], hq_n = q[1], sq = q[2], d = q[3], hk_n = k[1], sk = k[2], groups = hq_n / hk_n;
  const size_t nq = (size_t)(B * hq_n * sq * d), nk = (size_t)(B * hk_n * sk * d);
  float* out_q = (float*)alloc(ctx, KC_F32, 4, q);
  float* out_k = (float*)alloc(ctx, KC_F32, 4, k);
  float* out_v = (float*)alloc(ctx, KC_F32, 4, v);
  if ((!out_q && nq > 0) || ((!out_k || !out_v) && nk > 0)) return KC_ERR_OTHER;
  const float *qs = (const float*)in[0].data, *ks = (const float*)in[1].data, *vs = (const float*)in[2].data,
              *dos = (const float*)in[3].data, *slopes = n == 5 ? (const float*)in[4].data : NULL;
  /* The accumulators, in double (one allocation; calloc: +0). */
  double* acc = (double*)calloc(nq + 2 * nk + 1, sizeof(double));
  float* row = (float*)malloc((size_t)(4 * sk + 1) * sizeof(float));
  if (!acc || !row) {
    free(acc);
    free(row);
    return fail(err, "inputs", NULL, KC_ERR_OTHER, "out of memory");
  }
  double *dq = acc, *dk = acc + nq, *dv = acc + nq + nk;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t hq = 0; hq < hq_n; ++hq) {
      const int64_t kv = (b * hk_n + hq / groups) * sk * d;
      for (int64_t qi = 0; qi < sq; ++qi)
        backward_row(&m, qs, ks, vs, dos, slopes, hq, qi, ((b * hq_n + hq) * sq + qi) * d, kv, sk, d, row, dq, dk, dv);
    }
  for (size_t i = 0; i < nq; ++i) out_q[i] = (float)dq[i];
  for (size_t i = 0; i < nk; ++i) out_k[i] = (float)dk[i], out_v[i] = (float)dv[i];
  free(acc);
  free(row);
  return KC_OK;
}

static const kc_kernel kKernels[] = {
    {"attention_flash_backward", KC_F32, k_attention_backward, KC_CLAIM_NONE, 0, NULL},
};

int kconform_plugin_register(kc_plugin_info* info) {
  info->name = "attention-backward";
  info->version = "1";
  info->build_flags = "-O2";
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
  return KC_PLUGIN_ABI_VERSION;
}
