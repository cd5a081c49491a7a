// Exact functions of the matmul family: each output element is a dot
// product of a row of a and a column of b, folded by the reference in kk
// order; the data movers (transposes, permute) use oracle::identity
// (oracles/cast.h), bit for bit.
#pragma once

namespace kc::oracle {
struct Dot;
struct Exact;
void dot(const Dot&, Exact&);
}  // namespace kc::oracle
