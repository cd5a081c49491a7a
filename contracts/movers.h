// What the data-movement contracts share (linalg's transposes and permute,
// sequence, indexing, masking, padding): the dtypes a mover takes, its
// value profile, and the precondition lists of a `dim` parameter.
#pragma once

#include <vector>

#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/cast.cpp).
KC_MATH_OF(Scalar, identity)

namespace kc::contract {

// The floats and u32 (T: Clone/Copy + Default in the reference: index data
// moves too); u32 has no result classes, which are of floats.
inline constexpr DTypeSet kFloatAndU32{DType::f32, DType::f64, DType::bf16, DType::f16, DType::u32};

// Ordinary values and the zeros' thresholds; each mover's sweep carries
// every special value through it (NaN payloads, signalling NaNs, -0).
inline const ValueProfile kMoveValues{.lo = -10, .hi = 10, .points = thresholds::zero};

// A data mover's entry: exact on its first operand's dtypes, graded bit for
// bit against the source element its driver finds (oracle and replay: identity).
inline KernelSpec mover(KernelSpec k, std::string_view family, std::string_view driver) {
  k.family = family;
  k.driver = driver;
  k.accuracy = models::exact_on(k.inputs[0].dtypes);
  k.values = kMoveValues;
  k.math = {oracle::identity, oracle::replay::identity, oracle::fast::identity};
  return k;
}

// The `dim` parameter: its presence, type, domain and range (`op` names the
// reference's panic message).
inline Param dim_param(std::string_view domain = "0 <= dim < rank(x)") {
  return {.name = "dim", .kind = ParamKind::integer, .domain = domain, .min = 0, .max = INT32_MAX};
}
inline std::vector<Precondition> dim_rules(std::string_view operand_rank = "rank(x)") {
  std::vector<Precondition> v = param_rules("dim", "an integer");
  v.push_back({Rule::param_domain, "dim", "dim >= 0"});
  v.push_back({Rule::dim_out_of_range, "dim", std::string("dim < ") + std::string(operand_rank) +
                                              " (the reference panics: `dim D out of range`)"});
  return v;
}

}  // namespace kc::contract
