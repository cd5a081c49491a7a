/* Plug-ins that attack the worker or cheat the verdict, for the isolation
 * tests (tests/hostile_plugins_test.sh). One source, one library per MODE;
 * each implements f32 `exp` (glibc's expf: correct) and f32 `sqrt`
 * (correctly rounded in the default environment), and misbehaves as its
 * mode says, in `exp` unless noted:
 *
 *   MODE_BAD_UTF8     bytes that are not UTF-8 in every text it supplies
 *   MODE_REG_HANG     kconform_plugin_register never returns
 *   MODE_REG_CRASH    kconform_plugin_register dereferences NULL
 *   MODE_REG_DUP      registers exp f32 twice
 *   MODE_REG_CLAIM    claims a metric that is not a kc_claim_metric
 *   MODE_REG_COUNT    n_kernels = 2^31 - 1 for an array of 2
 *   MODE_HUGE_NAME    a 2 MB library name
 *   MODE_STALE        right the first time it sees an input, 1 ulp off after
 *   MODE_NOISE        1 ulp off on 1 finite non-zero result in 1000, from a
 *                     pseudo-random stream that runs on across calls
 *   MODE_OOB_WRITE    writes 256 bytes past the end of its output
 *   MODE_WRITE_BEFORE writes 4 bytes before the start of its output
 *   MODE_OOB_READ     reads 3 KB past the end of its input (results correct)
 *   MODE_ROUNDING     leaves the rounding mode toward +inf
 *   MODE_FTZ          leaves FTZ and DAZ set
 *   MODE_FORK         starts a process that outlives the call (it sleeps)
 *   MODE_LATE_WRITER  starts a thread that keeps writing into the output
 *   MODE_LEAK         leaks 50 MB per call (touched)
 *   MODE_HUGE_OUTPUT  asks alloc_output for 2^40 elements
 *   MODE_OVERFLOW     asks alloc_output for dims whose product overflows
 *   MODE_BIG_OUTPUT   asks alloc_output for 3 GiB with the address space limited to
 *                     what the process has mapped (RLIMIT_AS, restored after)
 *   MODE_PRINTS       prints FAIL and PASS lines to stdout and stderr
 *   MODE_CLOSE_FDS    closes every descriptor
 *   MODE_XFAIL_HTML   declares exp's expected failure "a < b & c" and fails it
 *   MODE_UNKNOWN_RULE names its dtype rejection "dtype.unsuported" (kc_error.rule),
 *                     a rule kconform does not know
 *
 * Modes that need an input to misbehave on do it on every call of exp, or
 * as they say; sqrt is always correct, so that a kernel graded after a
 * misbehaving one in the same run shows the damage stays with its kernel. */
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <xmmintrin.h>

#include "kconform/plugin.h"
#include "unary_f32.h"

__attribute__((unused)) static float next_up(float y) {
  uint32_t b;
  memcpy(&b, &y, 4);
  if (y != y || y == INFINITY) return y;
  b = y >= 0 ? b + 1 : b - 1;
  memcpy(&y, &b, 4);
  return y;
}

#if defined(MODE_STALE)
/* The inputs seen so far, by a hash of their bytes. */
static uint64_t seen[1 << 16];
static int seen_before(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ ((const unsigned char*)p)[i]) * 1099511628211ull;
  h |= 1;
  for (uint64_t i = h % (1 << 16);; i = (i + 1) % (1 << 16)) {
    if (seen[i] == h) return 1;
    if (seen[i] == 0) {
      seen[i] = h;
      return 0;
    }
  }
}
#endif

#if defined(MODE_NOISE)
static uint64_t noise_state = 0x9E3779B97F4A7C15ull;
static uint64_t noise_next(void) {
  noise_state ^= noise_state << 13, noise_state ^= noise_state >> 7, noise_state ^= noise_state << 17;
  return noise_state;
}
#endif

#if defined(MODE_LATE_WRITER)
static void* keep_writing(void* arg) {
  volatile float* y = (volatile float*)arg;
  for (int i = 0; i < 200000; ++i) {
    y[0] = 12345.0f;
    usleep(50);
  }
  return NULL;
}
#endif

/* What the behaviour does before the output is asked for (extra
   outputs: a huge, an overflowing, a big one past the address limit). */
static kc_status misbehave_before(int64_t numel, kc_alloc_output alloc, void* ctx) {
  (void)numel, (void)alloc, (void)ctx;
#if defined(MODE_HUGE_OUTPUT)
  if (numel > 0) {
    const int64_t huge[2] = {1 << 20, 1 << 20};
    if (!alloc(ctx, KC_F32, 2, huge)) return KC_ERR_OTHER;
  }
#elif defined(MODE_OVERFLOW)
  if (numel > 0) {
    const int64_t over[3] = {INT64_C(1) << 40, INT64_C(1) << 40, 4};
    if (!alloc(ctx, KC_F32, 3, over)) return KC_ERR_OTHER;
  }
#elif defined(MODE_BIG_OUTPUT)
  if (numel > 0) {
    struct rlimit was;
    getrlimit(RLIMIT_AS, &was);
    struct rlimit none = {1, was.rlim_max};  /* below what is mapped: every new mapping fails */
    setrlimit(RLIMIT_AS, &none);
    const int64_t big[1] = {INT64_C(3) << 28};
    void* y = alloc(ctx, KC_F32, 1, big);
    setrlimit(RLIMIT_AS, &was);
    if (!y) return KC_ERR_OTHER;
  }
#endif
  return KC_OK;
}

/* What the behaviour does after the results are written (a stray write,
   the floating-point environment changed, a process, thread or leak left
   behind, output printed, descriptors closed). */
static void misbehave_after(float* y, int64_t numel) {
  (void)y, (void)numel;
#if defined(MODE_OOB_WRITE)
  ((volatile char*)(y + numel))[256 - 1] = 1;
#elif defined(MODE_WRITE_BEFORE)
  ((volatile float*)y)[-1] = 1.0f;
#elif defined(MODE_ROUNDING)
  fesetround(FE_UPWARD);
#elif defined(MODE_FTZ)
  _mm_setcsr(_mm_getcsr() | 0x8040);
#elif defined(MODE_FORK)
  if (fork() == 0) {
    sleep(30);
    _exit(0);
  }
#elif defined(MODE_LATE_WRITER)
  pthread_t t;
  if (pthread_create(&t, NULL, keep_writing, y) == 0) pthread_detach(t);
#elif defined(MODE_LEAK)
  char* leak = malloc(50 << 20);
  if (leak) memset(leak, 1, 50 << 20);
#elif defined(MODE_PRINTS)
  printf("FAIL exp f32 (the kernel's own line)\n");
  fprintf(stderr, "PASS everything (the kernel's own line)\n");
#elif defined(MODE_CLOSE_FDS)
  for (int fd = 0; fd < 1024; ++fd) close(fd);
#endif
}

static kc_status k_exp(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc,
                       void* ctx, kc_error* err) {
  (void)p, (void)np;
  int64_t numel = 0;
  const kc_status st = check_unary_f32(in, n, err, &numel);
#if defined(MODE_BAD_UTF8)
  if (st != KC_OK) {
    snprintf(err->message, sizeof err->message, "bad \xff\xfe input \xc3");
    snprintf(err->rule, sizeof err->rule, "%s", "");
    return st;
  }
#endif
#if defined(MODE_UNKNOWN_RULE)
  if (st == KC_ERR_DTYPE_UNSUPPORTED) snprintf(err->rule, sizeof err->rule, "%s", "dtype.unsuported");
#endif
  if (st != KC_OK) return st;
  kc_status before = misbehave_before(numel, alloc, ctx);
  if (before != KC_OK) return before;
  float* y = (float*)alloc(ctx, KC_F32, in->rank, in->dims);
  if (!y) return KC_ERR_OTHER;
  const float* x = (const float*)in->data;
#if defined(MODE_OOB_READ)
  volatile float sink = 0;
  if (numel > 0) sink += x[numel + 750];  /* 3000 bytes past the end */
  (void)sink;
#endif
#if defined(MODE_STALE)
  const int stale = seen_before(x, (size_t)numel * 4);
#endif
  for (int64_t i = 0; i < numel; ++i) {
    y[i] = expf(x[i]);
#if defined(MODE_STALE)
    if (stale) y[i] = next_up(y[i]);
#elif defined(MODE_NOISE)
    /* (finite non-zero results only: a special value's rule would catch the rest) */
    if (noise_next() % 1000 == 0 && isfinite(y[i]) && y[i] != 0) y[i] = next_up(y[i]);
#elif defined(MODE_XFAIL_HTML)
    y[i] = next_up(next_up(next_up(y[i])));  /* 3 ulps: the expected failure happens */
#endif
  }
  if (numel == 0) return KC_OK;
  misbehave_after(y, numel);
  return KC_OK;
}

static float sqrt_f(float x) { return sqrtf(x); }  /* in the current rounding mode */
static kc_status k_sqrt(const kc_tensor* in, int32_t n, const kc_param* p, int32_t np, kc_alloc_output alloc,
                        void* ctx, kc_error* err) {
  (void)p, (void)np;
  return map_f32(in, n, alloc, ctx, err, sqrt_f);
}

#if defined(MODE_XFAIL_HTML)
#define EXP_XFAIL "a < b & c"
#else
#define EXP_XFAIL NULL
#endif

#if defined(MODE_REG_CLAIM)
#define EXP_CLAIM ((kc_claim_metric)7)
#else
#define EXP_CLAIM KC_CLAIM_NONE
#endif

#if defined(MODE_BAD_UTF8)
static const kc_kernel kKernels[] = {
    {"exp", KC_F32, k_exp, KC_CLAIM_NONE, 0, "flaky \xe2\x28\xa1 reason"},
    {"sqrt", KC_F32, k_sqrt, KC_CLAIM_NONE, 0, NULL},
};
#else
static const kc_kernel kKernels[] = {
    {"exp", KC_F32, k_exp, EXP_CLAIM, 1.0, EXP_XFAIL},
    {"sqrt", KC_F32, k_sqrt, KC_CLAIM_NONE, 0, NULL},
#if defined(MODE_REG_DUP)
    {"exp", KC_F32, k_exp, KC_CLAIM_NONE, 0, NULL},
#endif
};
#endif

int kconform_plugin_register(kc_plugin_info* info) {
#if defined(MODE_REG_HANG)
  for (volatile int spin = 0;; spin = spin + 1) {
  }
#elif defined(MODE_REG_CRASH)
  *(volatile int*)(uintptr_t)0 = 1;
#endif
  info->name = "hostile";
  info->version = "1";
  info->build_flags = "";
#if defined(MODE_BAD_UTF8)
  info->name = "hostile \xc0\xaf";
  info->version = "1.\xff";
  info->build_flags = "-O2 \xed\xa0\x80";
#elif defined(MODE_HUGE_NAME)
  static char huge[2 << 20];
  memset(huge, 'n', sizeof huge - 1);
  info->name = huge;
#endif
  info->kernels = kKernels;
  info->n_kernels = (int32_t)(sizeof kKernels / sizeof kKernels[0]);
#if defined(MODE_REG_COUNT)
  info->n_kernels = INT32_MAX;
#endif
  return KC_PLUGIN_ABI_VERSION;
}
