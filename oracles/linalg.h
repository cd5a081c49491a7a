// What the matmul family's oracle file (oracles/linalg.cpp) offers beyond
// its kernels' evaluations (declared by KC_MATH_OF where they are bound):
// the dot product bound the relational checks compare two dot products'
// results against.
#pragma once

#include <span>

#include "core/dtype.h"

namespace kc::oracle {
// The dot product bound of `pairs` (a_0, b_0, a_1, b_1, ...) folded in T,
// gamma_n sum |a_k b_k| + n eta (1 + u)^(n - 1) (oracles/linalg.cpp), in
// double, rounded up for its own roundings (relative 2^-40, n < 2^12):
// what the relational checks compare two dot products' results against.
double dot_bound_upper(DType t, std::span<const double> pairs);
}  // namespace kc::oracle
