// RapidCheck generators of shapes, element values and parameters.
//
// RapidCheck's own float generator yields no NaN, infinities or subnormals,
// so element values are generated as bit patterns of the target dtype from a
// weighted mixture: the special values of the format (+-0, +-inf, NaNs with
// several payloads, smallest/largest subnormal and normal, largest finite),
// the kernel's own thresholds probed at a few ulps either side (exp's
// overflow and underflow points, ...), exact .5 ties and integers where the
// kernel cares, uniform draws over its ordinary range, and raw random bit
// patterns over the whole format.
//
// Only the Debian RapidCheck's generator API is used (Gen::operator()(Random,
// size)); sizes stay <= 100, the limit of that build.
#pragma once

#include <rapidcheck.h>

#include "contracts/contract.h"
#include "generators/case.h"

namespace kc::gen {

inline constexpr int kMaxSize = 100;       // Debian RapidCheck: never above 100
inline constexpr int kMaxElements = 1024;  // per generated tensor

rc::Gen<std::uint64_t> element_bits(DType t, const contract::ValueProfile& profile);
rc::Gen<Dims> shape(int min_rank, int max_rank);
// d with its dims shrunk left to right until the product of its nonzero
// dims is at most kMaxElements: stricter than shape() (which leaves the
// dims after a 0 alone), for generators that later turn a 0 into a size.
Dims capped(Dims d);
rc::Gen<Params> params(const std::vector<contract::Param>& specs);

// The special values of a float format, as bit patterns.
std::vector<std::uint64_t> special_bits(DType t);
// The next representable value up/down `steps` times (saturating at +-inf).
std::uint64_t step_bits(DType t, std::uint64_t bits, int steps);

}  // namespace kc::gen
