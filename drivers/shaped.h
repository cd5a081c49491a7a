// What the drivers' shaped cases share (Driver::tail_shape, shaped_error,
// shaped_case; generators/problems.h): values drawn in time linear in
// their count, the parameters (given, else drawn), and the shape errors
// a problem line is refused with.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "drivers/driver.h"

namespace kc::drivers {

// n values of T from the kernel's value profile, linear in n: a pool of
// up to kShapedPool of the profile's draws (RapidCheck's, as a random
// case's, specials included), each element one of them picked by a
// SplitMix64 stream, a finite one's lowest fraction bits (a quarter of
// them) drawn too, so that a long tensor holds distinct values of the
// profile's spread (the elementwise kernels: each output element is its
// own, a NaN hides no other). The pool is what costs: a RapidCheck draw
// is ~100x a SplitMix64 step, and 1024 a case made the tails' inputs 4.2 s
// of the default run's CPU. The random cases and sweeps cover the values;
// a shaped case is there for its size.
inline constexpr std::size_t kShapedPool = 256;
std::vector<std::uint64_t> shaped_values(DType t, const contract::ValueProfile& p, std::size_t n, std::uint64_t seed);
// n values of T uniform on [lo, hi) (53 random bits each, rounded to T),
// linear in n: the moderate values of real layers, where a dropped block
// of a sum is not hidden under one huge term's share of the bound.
std::vector<std::uint64_t> uniform_values(DType t, std::size_t n, std::uint64_t seed, double lo = -1, double hi = 1);
// count indices uniform on [0, n) (SplitMix64 from seed), linear in
// count: an index tensor's values (n > 0 where count > 0).
std::vector<std::uint64_t> drawn_indices(std::size_t count, std::uint64_t n, std::uint64_t seed);
// The parameters of a shaped case: the given ones, the others drawn as a
// random case's.
Params shaped_params(const contract::KernelSpec& k, const Shaped& s, std::uint64_t seed);
// A Shaped of these dims, every operand given.
Shaped all_given(std::vector<Dims> dims, Params p = {});

// A problem line's error after the kernel's name ("" stays ""), and "" when
// the line gives each of `names` (parameters with no default), else which
// it does not.
std::string named_error(const contract::KernelSpec& k, const std::string& e);
std::string missing_params(const contract::KernelSpec& k, const Shaped& s, std::initializer_list<const char*> names);

// "" when every operand has the same dims, else which differs.
std::string same_dims_error(const contract::KernelSpec& k, const Shaped& s);
// The i-th operand's name and its dims, as errors show them: "b [3, 4]".
std::string operand_text(const contract::KernelSpec& k, const Shaped& s, std::size_t i);

// Each given operand of s, of dtypes[i], its values uniform on [-1, 1]
// (uniform_values, seed + i); the parameters given.
gen::Case uniform_case(const Shaped& s, const std::vector<DType>& dtypes, std::uint64_t seed);
// The folds along `dim` (prefix, reduce_dim): a tail is x [1, n] along
// dim 1 (one row: a prefix's element is a fold of up to n terms, graded
// exactly); a line's dim must be one of x's axes; none: the last axis.
Shaped along_dim_tail(std::int64_t n);
std::string dim_error(const contract::KernelSpec& k, const Shaped& s);
Params with_dim(const Shaped& s);
// x uniform on [-1, 1] (uniform_case), dim with_dim's.
gen::Case uniform_along_dim(const Shaped& s, DType t, std::uint64_t seed);

// Operand 0 of s (x) of dtype t, its values the kernel's profile's
// (shaped_values: NaN payloads and signed zeros travel through a mover),
// the parameters given, `dim` with_dim's where the kernel takes one.
gen::Case profile_along_dim(const contract::KernelSpec& k, const Shaped& s, DType t, std::uint64_t seed);

// The largest |x| of t's elements, nullopt where one is not finite (a
// shaped_magnitude's ingredient).
std::optional<double> max_abs(const Tensor& t);
// `m` where no order of a fold's roundings can overflow t: its exact partial
// sums at most `fold` in magnitude, each of its `steps` roundings moving a
// value by at most u of itself, so that every computed partial result is
// within fold (1 + u)^steps (rounded up, oracles/det_math.h) < t's largest
// finite value; else nullopt. (Where one could overflow, an infinity is a
// reachable answer the overflow latitude admits, not a defect.)
std::optional<double> unless_overflow_reachable(double m, double fold, DType t, std::int64_t steps);
// A fold of at most `terms` products of inputs 0 and 1, plus input 2 (a
// bias) where given: |z| <= terms max|in0| max|in1| + max|in2|, which
// bounds every partial sum too.
std::optional<double> products_magnitude(const gen::Case& c, std::int64_t terms);
// Attention of q [.., D] over k and v, a row attending at most `keys`
// keys: an output is a convex combination of v's rows (exact softmax
// weights, nonnegative, summing to 1) or +0 for a row with no admissible
// key, so |z| <= max|v|; its folds, of at most the keys' count terms each
// (the exponentials, at most 1; the weighted sums, at most max|v| each)
// and the scores (D products times softmax_scale, plus ALiBi's slope times
// a distance below the keys' count where `slopes` holds any; a softcap only
// shrinks them) may reach no overflow.
std::optional<double> attention_magnitude(const Tensor& q, const Tensor& k, const Tensor& v, std::int64_t keys,
                                          const Tensor* slopes, const Params& p);

// The last axis's row forwards (the entry's row_map), rows of n: softmax's
// z lies in [0, 1]; log_softmax's, x_i - m - ln sum e^(x_j - m), within
// [-(max - min) - ln n, 0], ln n <= bit_width(n); a norm's (x_i - mean) /
// sqrt(v + eps) and x_i / sqrt(mean x^2 + eps) are at most sqrt(n)
// (Cauchy-Schwarz) where eps > 0 (with eps = 0 a constant or zero row's is
// 0/0: NaN). Their folds, of n terms: the exponentials (at most 1), the
// sum and the squares (at most max(|x|, (2 |x|)^2)), none of which may
// reach an overflow (unless_overflow_reachable). Other entries (the
// backwards): none.
std::optional<double> row_magnitude(const contract::KernelSpec& k, const gen::Case& c);

// "" when `small` is a reduce_to / broadcast_to target of `big` (rank
// no higher, right-aligned, each dim big's or 1), else what differs.
std::string target_error(const Dims& big, const Dims& small);

// A matmul's shapes (a [.., m, k] times b [.., k, n], a bias broadcast to
// the output): "" or what disagrees.
std::string matmul_shape_error(const contract::KernelSpec& k, const Shaped& s);

}  // namespace kc::drivers
