// What the unary family's entries share (contracts/unary.cpp, the
// elementary functions and the scalar ops; contracts/activations.cpp, the
// composed activations): the one-operand shape, its preconditions, the
// accuracy model builders, the result classes a kernel cannot reach, and
// the entry's defaults (family, driver, operand, preconditions).
#pragma once

#include <cmath>
#include <functional>
#include <string_view>
#include <vector>

#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"

namespace kc::contract::unary_family {

namespace pts = thresholds;
using VC = ValueClass;
using OC = Outcome;

inline const auto each_dtype = models::per_float_dtype;
inline std::vector<DTypeAccuracy> all_exact() { return models::exact_everywhere(); }
inline std::vector<DTypeAccuracy> all_cr() { return models::correctly_rounded_everywhere(); }
inline std::vector<DTypeAccuracy> libm(int L) { return each_dtype([L](DType t) { return models::libm(t, L); }); }

// Preconditions every unary kernel shares (checked by the bad-input rule
// generators, generators/invalid.cpp).
inline std::vector<Precondition> unary_preconditions(std::vector<Precondition> extra = {}) {
  return tensor_rules("exactly one input tensor", "x",
                      "x is f32, f64, bf16 or f16; u32 and u8 are rejected (exec.rs unary!)", std::move(extra));
}
inline std::vector<Precondition> real_param_rules(std::string_view name) { return param_rules(name, "a real (f64)"); }

inline Operand x_operand() { return {.name = "x", .dtypes = kFloatSet, .min_rank = 0, .max_rank = 6}; }

// Result classes a kernel cannot produce, by why (ValueProfile::reaches).
using RC = ResultClass;
// Bounded by 1 in magnitude: never near overflow, never infinite.
constexpr ResultSet kBounded = ResultSet::all().without({RC::near_overflow, RC::inf});
// Integer-valued: nothing between 0 and 1.
constexpr ResultSet kIntegral = ResultSet::all().without({RC::subnormal, RC::near_underflow});
// A root (or its reciprocal) of a float: far from both ends of the range.
constexpr ResultSet kRoot{RC::zero, RC::normal, RC::inf, RC::nan};
// cos of a float never comes near 0 in f32, f64 or bf16 (the closest
// approach is far above their smallest normal); in f16 it can.
inline ResultSet cos_reaches(DType t) {
  return t == DType::f16 ? ResultSet::all().without({RC::zero, RC::near_overflow, RC::inf}) : ResultSet{RC::normal, RC::nan};
}

// NaN in, NaN out: the rule most kernels share.
inline const std::vector<SpecialRule> kNanPropagates{{VC::nan, OC::nan}};

inline Param real_param(std::string_view name, std::string_view domain) {
  return {.name = name,
          .kind = ParamKind::real,
          .domain = domain,
          .samples = {0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 3.0e38, 1e300, -1e-300, 1.7e308, INFINITY, -INFINITY},
          .lo = -8.0,
          .hi = 8.0};
}

inline KernelSpec unary(KernelSpec k) {
  k.family = "unary";
  k.driver = "elementwise";
  if (k.inputs.empty()) k.inputs = {x_operand()};
  if (k.preconditions.empty()) k.preconditions = unary_preconditions();
  return k;
}

}  // namespace kc::contract::unary_family
