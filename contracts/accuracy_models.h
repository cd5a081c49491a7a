// Accuracy models shared by many contracts, each with its derivation
// (long form: docs/accuracy-bounds.md). A model is a function of the dtype
// because the reference evaluates halves through f32 (reference-semantics.md
// §0.2) and narrows some f64 results (§0.3).
#pragma once

#include "contracts/contract.h"

#include <functional>
#include <vector>

namespace kc::contract::models {

// One model per float dtype, from a function of the dtype.
std::vector<DTypeAccuracy> per_float_dtype(const std::function<Accuracy(DType)>& model);
std::vector<DTypeAccuracy> exact_everywhere();
// Exact on each of `ts` (data movers, which also take u32).
std::vector<DTypeAccuracy> exact_on(DTypeSet ts);
std::vector<DTypeAccuracy> correctly_rounded_everywhere();

// Glibc 2.36 x86_64 libm-test-ulps figures (integer distance) for the
// functions the reference calls; accuracy.md lists the float ones.
inline constexpr int kGlibcUlpsExp = 1, kGlibcUlpsLog = 1, kGlibcUlpsSin = 1, kGlibcUlpsCos = 1,
                     kGlibcUlpsTanh = 2, kGlibcUlpsErf = 1, kGlibcUlpsPow = 1;

Accuracy exact();
Accuracy correctly_rounded();  // one basic operation (or halves via f32, 24 >= 2p+2)
// A libm function with integer-distance bound L in the format it runs in:
// f32/f64 call it directly, halves call the f32 one and round.
Accuracy libm(DType t, int L);
// erf: f64 libm erf, then narrowed to T (twice for halves).
Accuracy libm_f64_narrowed(DType t, int L);
// 1 / sqrt(x): two correct roundings in T.
Accuracy two_roundings(DType t);
// sigmoid: exp, one add, one divide in T.
Accuracy sigmoid(DType t);
// silu: sigmoid, then a multiply; condition-aware for the subnormal sigmoid region.
Accuracy silu(DType t);
// gelu_erf: f64 evaluation with 1 + erf cancelling, then narrowed.
Accuracy gelu_erf(DType t);
// gelu (tanh form), all in T, 1 + tanh cancelling.
Accuracy gelu_tanh(DType t);
// powi: square-and-multiply; the bound depends on n (see powi_frac_bound).
Accuracy powi(DType t);
double powi_frac_bound(DType t, std::int64_t n);
// Recursive summation in T (sum_all, sum_dim, reduce_sum_to): Higham's
// |y - z| <= gamma_{n-1} sum |a_i|; the oracle puts gamma_{n-1}/u into S.
Accuracy recursive_sum(DType t);
// A dot product folded in T (matmul): Higham's gamma_n sum |a_k b_k| plus
// the products' underflow; the oracle puts the whole bound over u into S.
Accuracy dot_product(DType t);
// pad_backward: a sum folded in f64 and narrowed to T (NumCast):
// |y - z| <= A ulp_T(z) + K u_f64 S, S = gamma_{k-1}(u_f64)/u_f64 sum |a|,
// A = 0 (f64), 1/2 (f32), 1/2 + 2^-(24-p) (halves: f64 -> f32 -> T); K = 1, 2, 4.
Accuracy wide_sum_narrowed(DType t);
// A composite kernel whose oracle computes its whole bound per element
// (softmax, the norms, their backwards: a bound built from its stages,
// derived where the oracle computes it and in docs/accuracy-bounds.md):
// |y - z| <= u_T S with S that bound over u_T. The oracle also gives each
// element's rms error bound (Exact::error_variance, rows::Stage::r) and
// the driver a statistics case: the case statistics check runs.
Accuracy stage_bound(DType t, std::string_view derivation);
// mean: the sum's bound divided by T(n), plus the division's rounding.
Accuracy mean(DType t);
// A cast or operation that is not correctly rounded but within one step:
// fractional <= 1/2 + slack, distance <= 1 (f64 -> bf16 truncating, f64 -> f16 via f32).
Accuracy near_correct(double slack, std::string_view derivation);

// Fractional-ulp allowance of libm(t, L) etc., exposed for tests.
double libm_frac(DType t, int L);

}  // namespace kc::contract::models
