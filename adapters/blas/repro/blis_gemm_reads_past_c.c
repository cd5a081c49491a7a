/* BLIS 0.9.0 (Debian libblis4-openmp): cblas_sgemm with beta != 0 reads
 * past the end of C. Standalone (no kconform): each matrix is placed at the
 * very end of a mapping whose next page is PROT_NONE, as kconform's worker
 * places a kernel's buffers, so a read past its last element faults.
 *   cc blis_gemm_reads_past_c.c -I/usr/include/x86_64-linux-gnu/blis-openmp \
 *      -L/usr/lib/x86_64-linux-gnu/blis-openmp -lblis -o repro && ./repro
 * Prints "ok" and exits 0 when every read is within bounds; the defect
 * dies of SIGSEGV. Found by kconform's fused_linear f32 (seed 1, case 65,
 * shrunk to a [1, 2, 1], b [1, 1, 3]). */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cblas.h>

/* n floats ending where an inaccessible page starts. */
static float* guarded(int n) {
  const long page = sysconf(_SC_PAGESIZE);
  char* map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED || mprotect(map + page, page, PROT_NONE) != 0) return NULL;
  return (float*)(map + page) - n;
}

int main(void) {
  const int m = 2, k = 1, n = 3;
  float *a = guarded(m * k), *b = guarded(k * n), *c = guarded(m * n);
  if (!a || !b || !c) return 2;
  for (int i = 0; i < m * k; ++i) a[i] = 1.0f + i;
  for (int i = 0; i < k * n; ++i) b[i] = 0.5f * i;
  for (int i = 0; i < m * n; ++i) c[i] = 1.0f; /* the bias */
  fprintf(stderr, "C is at %p..%p\n", (void*)c, (void*)(c + m * n));
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 1.0f, c, n);
  printf("ok: c[0] = %g\n", c[0]);
  return 0;
}
