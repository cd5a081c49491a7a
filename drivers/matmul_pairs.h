// Reading an f32 x f32 matmul output's pairs as doubles (drivers/matmul.cpp's
// element_at), vectorized where the CPU allows.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kc::drivers {

// An f32 x f32 output's k pairs (a row of a: a[kk]; a column of b:
// b[kk stride]) as doubles into args (a_0, b_0, a_1, b_1, ...); true
// where one is NaN (the caller re-reads them exactly: a signalling NaN
// converts quiet). Four pairs a step where the CPU has AVX2 (two vectors
// of four, two conversions): one at a time, the pairs were a quarter of a
// 64^3 matmul oracle's time (bench/exact_sum_bench.cpp).
bool f32_pairs(const std::byte* a, const std::byte* b, std::int64_t stride, std::int64_t k, double* args);

}  // namespace kc::drivers
