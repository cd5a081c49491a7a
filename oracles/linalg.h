// Exact functions of the matmul family: each output element is a dot
// product of a row of a and a column of b, folded by the reference in kk
// order; the data movers (transposes, permute) use oracle::identity
// (oracles/cast.h), bit for bit.
#pragma once

#include <span>

#include "core/dtype.h"

namespace kc::oracle {
struct Dot;
struct Rotation;
struct Exact;
void dot(const Dot&, Exact&);
// rope's rotation as the two-term dot product x_a c + (-x_b or x_b) s
// (the negation is exact).
void rope(const Rotation&, Exact&);
// The dot product bound of `pairs` (a_0, b_0, a_1, b_1, ...) folded in T,
// gamma_n sum |a_k b_k| + n eta (1 + u)^(n - 1) (oracles/linalg.cpp), in
// double, rounded up for its own roundings (relative 2^-40, n < 2^12):
// what the relational checks compare two dot products' results against.
double dot_bound_upper(DType t, std::span<const double> pairs);
}  // namespace kc::oracle
