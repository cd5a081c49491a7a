// Thresholds of the kernels' functions, data of their contract entries
// (ValueProfile::points): where a function overflows, underflows,
// saturates, switches algorithm inside libm, or where its result changes
// binade. The value generator probes each at a few ulps either side.
#pragma once

#include <vector>

#include "core/dtype.h"

namespace kc::contract::thresholds {

std::vector<double> none(DType);
std::vector<double> zero(DType);            // relu, step, sign, neg, abs
std::vector<double> exp(DType);             // overflow / underflow thresholds
std::vector<double> log(DType);
std::vector<double> trig(DType);            // multiples of pi/2, huge arguments
std::vector<double> tanh(DType);            // saturation
std::vector<double> erf(DType);             // libm interval edges, saturation
std::vector<double> gelu(DType);            // cancellation region, cube overflow
std::vector<double> logistic(DType);        // sigmoid / silu: exp's thresholds, mirrored
std::vector<double> reciprocal(DType);      // results that are subnormal / overflow
std::vector<double> roots(DType);           // sqrt / rsqrt
std::vector<double> powers(DType);          // powi: overflow roots
std::vector<double> integral(DType);        // floor / ceil / round: 2^(p-1), 2^p
std::vector<double> scalar(DType);          // add/mul_scalar, clamp: around the sampled parameters

}  // namespace kc::contract::thresholds
