// What the reduction drivers share: an output cell is a fold of input
// elements, given to an oracle taking Terms in the reference's order
// (increasing source flat index).
#pragma once

#include "drivers/driver.h"

namespace kc::drivers {

// The element of output `out` folding x's elements `members` ("N elements
// (what)"): its input the Terms, in the context of its case.
Element cell_element(const oracle::Context& ctx, const Tensor& x, std::int64_t out,
                     const std::vector<std::int64_t>& members, const std::string& what);
// One input operand and an oracle taking Terms.
std::string check_fold_entry(const contract::KernelSpec& k, std::string_view driver);

// The special values of T and the contract's thresholds: a sweep of the
// folds pairs them so that every result class (a subnormal sum, an
// overflowing one, NaN, ...) is reached on every seed.
std::vector<std::uint64_t> sweep_values(const contract::KernelSpec& k, DType t);
// x of shape [n*n, 2] holding every ordered pair (a, b) of `values` as a row.
Tensor all_pairs(DType t, const std::vector<std::uint64_t>& values);

// Values i.i.d. uniform on [-1, 1] rounded to T, as TOSA's statistical
// tests use random data (structured data makes rounding errors correlated
// and the statistic meaningless): 128 x 48 of them for the statistics case
// (or `count`).
std::vector<std::uint64_t> statistics_values(DType t, std::uint64_t seed, std::size_t count = 128 * 48);

}  // namespace kc::drivers
