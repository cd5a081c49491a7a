// The f32 x f32 pairs of a matmul output (matmul_pairs.h): one at a time,
// or four a step with AVX2.
#include "drivers/matmul_pairs.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KC_PAIRS_AVX2 1
#include <immintrin.h>
#endif

#include "core/cpu.h"
#include "core/tensor.h"

namespace kc::drivers {

namespace {

// The pairs one at a time (f32_pairs without AVX2, and the tail of its
// steps of four).
bool f32_pairs_scalar(const std::byte* a, const std::byte* b, std::int64_t stride, std::int64_t k, double* args) {
  bool any_nan = false;
  for (std::int64_t kk = 0; kk < k; ++kk) {  // (no call in the loop: its counters stay in registers)
    const double va = Tensor::load_f32(a, kk), vb = Tensor::load_f32(b, kk * stride);
    args[2 * kk] = va, args[2 * kk + 1] = vb;
    any_nan |= va != va || vb != vb;
  }
  return any_nan;
}
#ifdef KC_PAIRS_AVX2
// The pairs four a step: two vectors of four, two conversions.
[[gnu::target("avx2,fma")]] bool f32_pairs_avx2(const std::byte* a, const std::byte* b, std::int64_t stride, std::int64_t k,
                                                double* args) {
  const auto* fa = reinterpret_cast<const float*>(a);
  const auto* fb = reinterpret_cast<const float*>(b);
  __m128 nan = _mm_setzero_ps();
  std::int64_t kk = 0;
  for (; kk + 4 <= k; kk += 4) {
    // (four loads into one vector: AMD's gather took longer)
    const float* col = fb + kk * stride;
    const __m128 va = _mm_loadu_ps(fa + kk), vb = _mm_setr_ps(col[0], col[stride], col[2 * stride], col[3 * stride]);
    nan = _mm_or_ps(nan, _mm_cmpunord_ps(va, vb));
    _mm256_storeu_pd(args + 2 * kk, _mm256_cvtps_pd(_mm_unpacklo_ps(va, vb)));      // a0 b0 a1 b1
    _mm256_storeu_pd(args + 2 * kk + 4, _mm256_cvtps_pd(_mm_unpackhi_ps(va, vb)));  // a2 b2 a3 b3
  }
  return (_mm_movemask_ps(nan) != 0) | f32_pairs_scalar(a + 4 * kk, b + 4 * kk * stride, stride, k - kk, args + 2 * kk);
}
#endif

}  // namespace

bool f32_pairs(const std::byte* a, const std::byte* b, std::int64_t stride, std::int64_t k, double* args) {
#ifdef KC_PAIRS_AVX2
  if (cpu_has_avx2_fma()) return f32_pairs_avx2(a, b, stride, k, args);
#endif
  return f32_pairs_scalar(a, b, stride, k, args);
}

}  // namespace kc::drivers
