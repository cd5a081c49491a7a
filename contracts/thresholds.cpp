// Each threshold is written where it comes from: the function, its libm
// implementation, or the format's range. Its transcendental values come
// from oracles/det_math.h (libm's differ by CPU, and each threshold is a
// generated input).
#include "contracts/thresholds.h"

#include <cmath>

#include "oracles/det_math.h"

namespace kc::contract::thresholds {

namespace det = oracle::det;

namespace {
std::vector<double> mirrored(std::vector<double> v) {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) v.push_back(-v[i]);
  return v;
}
}  // namespace

std::vector<double> none(DType) { return {1.0}; }
std::vector<double> zero(DType t) { return mirrored({0.0, min_subnormal(t), 1.0}); }

std::vector<double> exp(DType t) {
  // e^x overflows past ln(max), becomes subnormal below ln(min_normal),
  // and rounds to 0 below ln(min_sub / 2).
  return {det::log(max_finite(t)), det::log(min_normal(t)), det::log(min_subnormal(t)), det::log(min_subnormal(t) / 2),
          0.0, 1e-8, -1e-8, 1.0, -1.0};
}

std::vector<double> log(DType t) {
  return {1.0, 2.0, 0.5, min_subnormal(t), min_normal(t), max_finite(t), det::exp(1.0), 0.0};
}

std::vector<double> trig(DType t) {
  std::vector<double> v;
  for (int k = 1; k <= 12; ++k) v.push_back(k * M_PI / 2);
  for (double big : {1e4, 1e6, 16777216.0, 1e22, max_finite(t)})
    if (big <= max_finite(t)) v.push_back(big);
  return mirrored(v);
}

std::vector<double> tanh(DType t) {
  // tanh(x) rounds to 1 once 1 - tanh(x) = 2 e^-2x < u/2, i.e. x > ln(2^(p+2))/2.
  const int p = float_format(t).precision;
  return mirrored({0.5 * det::log(std::ldexp(1.0, p + 2)), 0.55, 1.0, 1e-4, 22.0});
}

std::vector<double> erf(DType t) {
  // 0.84375, 1.25, 1/0.35 and 6 are the interval edges of FreeBSD/glibc s_erf.c;
  // erf rounds to 1 near sqrt(ln(2^p)) + 1.
  const int p = float_format(t).precision;
  return mirrored({0.84375, 1.25, 1 / 0.35, 6.0, 28.0, std::sqrt(p * det::log(2.0)) + 0.5, 1e-5});
}

std::vector<double> gelu(DType t) {
  // 1 + erf / 1 + tanh cancel for x << 0; k x^3 overflows near cbrt(max / k).
  return {-3.0, -5.0, -9.0, -38.0, -0.75, 0.0, 3.0, det::cbrt(max_finite(t) / 0.044715),
          -det::cbrt(max_finite(t) / 0.044715)};
}

std::vector<double> logistic(DType t) {
  std::vector<double> v = exp(t);
  for (double& x : v) x = -x;  // sigmoid evaluates exp(-x) for x >= 0
  std::vector<double> w = exp(t);
  v.insert(v.end(), w.begin(), w.end());
  return v;
}

std::vector<double> reciprocal(DType t) {
  return mirrored({1.0, 2.0, 3.0, 1 / max_finite(t), 1 / min_normal(t), 1 / min_subnormal(t), min_subnormal(t), max_finite(t)});
}

std::vector<double> roots(DType t) {
  return {1.0, 2.0, 4.0, 0.25, min_subnormal(t), min_normal(t), max_finite(t), -1.0, -min_subnormal(t)};
}

std::vector<double> powers(DType t) {
  const double m = max_finite(t);
  return mirrored({1.0, 2.0, 0.5, std::sqrt(m), det::cbrt(m), det::pow(m, 0.25), det::pow(m, 0.125),
                   std::sqrt(min_normal(t)), det::pow(min_normal(t), 0.25)});
}

std::vector<double> integral(DType t) {
  const int p = float_format(t).precision;
  return mirrored({0.5, 1.5, 2.5, std::ldexp(1.0, p - 1), std::ldexp(1.0, p), std::ldexp(1.0, p - 1) + 0.5});
}

std::vector<double> scalar(DType t) {
  const int p = float_format(t).precision;
  return mirrored({0.0, 1.0, 2.0, 0.5, std::ldexp(1.0, p), std::ldexp(1.0, -p), max_finite(t), min_subnormal(t)});
}

}  // namespace kc::contract::thresholds
