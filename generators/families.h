// Case generators of the binary, reduction and cast families, and the
// exhaustive / sweep cases of the default run. Each builds on values.h.
#pragma once

#include "generators/values.h"

namespace kc::gen {

// A random case of the kernel's family (unary included).
rc::Gen<Case> family_case(const contract::KernelSpec& k, DType t);

// Sweeps run before the random cases (a fixed count per kernel x dtype):
// every 16-bit input for unary kernels and casts from a 16-bit dtype, every
// f32 exponent with random mantissas and ties for f32 -> bf16/f16, every
// 16-bit a against generated b plus all pairs of special values for binary
// kernels on halves. `index` < sweep_count(k, t).
int sweep_count(const contract::KernelSpec& k, DType t, int param_sweeps);
Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, int index);

// The dedicated case of the per-case statistics (sums with many output
// cells): 128 outputs of 48 terms each, values i.i.d. uniform on [-1, 1]
// rounded to T, as TOSA's statistical tests use random data (structured
// data makes rounding errors correlated and the statistic meaningless).
Case statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed);

// Shapes whose dims, right-aligned into `big`, are each equal or 1 (and
// possibly fewer leading dims): broadcast sources / reduce targets.
rc::Gen<Dims> compatible_sub_shape(const Dims& big);

}  // namespace kc::gen
