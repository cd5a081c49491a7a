/* BLIS 0.9.0 (Debian libblis4-openmp): cblas_dgemm returns -inf for a dot
 * product with a 0 x inf term, whose IEEE value is NaN (-0 x -inf = NaN,
 * and NaN + anything = NaN). With n = 1 it gives NaN; with n = 2 (another
 * kernel path) -inf. Standalone (no kconform):
 *   cc blis_dgemm_loses_nan.c -I/usr/include/x86_64-linux-gnu/blis-openmp \
 *      -L/usr/lib/x86_64-linux-gnu/blis-openmp -lblis -o repro && ./repro
 * Prints the result for beta 0 and 1; exits 1 where one is not NaN. Found
 * by kconform's fused_linear f64 (seed 1, case 98). */
#include <math.h>
#include <stdio.h>

#include <cblas.h>

int main(void) {
  /* a = [6.4e-4, -0] (1 x 2), b = [[1, -inf], [1, -inf]] (2 x 2): column 1 is
   * 6.4e-4 x -inf + -0 x -inf = -inf + NaN = NaN. */
  const double a[2] = {6.4e-4, -0.0}, b[4] = {1.0, -INFINITY, 1.0, -INFINITY};
  int bad = 0;
  for (int beta = 0; beta <= 1; ++beta) {
    double c[2] = {1.0, 1.0};
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 2, 2, 1.0, a, 2, b, 2, beta, c, 2);
    printf("beta = %d: c[1] = %g (IEEE: nan)\n", beta, c[1]);
    bad |= !isnan(c[1]);
  }
  return bad;
}
