// The gelu (tanh form) constants as the reference computes them in T:
// c = sqrt_T(T(2/pi)), k = T(0.044715) (reference-semantics.md §1), exposed
// so that a test checks them against the published bit patterns. The unary
// kernels themselves are reached through their exec arms (kernels/arms.h).
#pragma once

#include "core/dtype.h"

namespace kc::kern {

double gelu_constant_c(DType t);
double gelu_constant_k(DType t);

}  // namespace kc::kern
