// Contracts of the 16 casts (inventory "Dtype casts"; reference-semantics.md
// §17, whose corrections to the inventory these follow).
#include <cmath>

#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/cast.cpp).
KC_MATH_OF(Scalar, cast)
KC_MATH_OF(Scalar, cast_saturating_u32)
KC_MATH_OF(Scalar, identity)

namespace kc::contract {

namespace {

namespace pts = thresholds;

// The sixteen casts of the inventory ("Dtype casts"), listed here, by the
// spec, not taken from the port: exec's eval_cast rejects every other pair.
struct Cast {
  std::string_view name;
  DType src, dst;
};
constexpr Cast kCasts[] = {
    {"cast_f32_to_f64", DType::f32, DType::f64},   {"cast_f32_to_bf16", DType::f32, DType::bf16},
    {"cast_f32_to_f16", DType::f32, DType::f16},   {"cast_f64_to_f32", DType::f64, DType::f32},
    {"cast_f64_to_bf16", DType::f64, DType::bf16}, {"cast_f64_to_f16", DType::f64, DType::f16},
    {"cast_bf16_to_f32", DType::bf16, DType::f32}, {"cast_bf16_to_f64", DType::bf16, DType::f64},
    {"cast_bf16_to_f16", DType::bf16, DType::f16}, {"cast_f16_to_f32", DType::f16, DType::f32},
    {"cast_f16_to_f64", DType::f16, DType::f64},   {"cast_f16_to_bf16", DType::f16, DType::bf16},
    {"cast_u32_to_f32", DType::u32, DType::f32},   {"cast_u32_to_f64", DType::u32, DType::f64},
    {"cast_f32_to_u32", DType::f32, DType::u32},   {"cast_f64_to_u32", DType::f64, DType::u32},
};

struct CastFacts {
  Accuracy accuracy;
  oracle::OracleFn<oracle::Scalar> oracle;
  std::string_view summary, oracle_text, notes;
};

bool widening(DType src, DType dst) {
  if (src == dst) return true;
  if (dst == DType::f64) return true;                    // everything embeds in f64
  if (dst == DType::f32) return src == DType::bf16 || src == DType::f16;
  return false;
}

CastFacts facts(DType src, DType dst) {
  if (dst == DType::u32)
    return {models::exact(), oracle::cast_saturating_u32, "Rust `as`: truncate toward zero, saturate",
            "trunc(x) clamped to [0, 4294967295]; NaN and negatives -> 0",
            "Saturates (well-defined Rust `as`), not UB as the inventory says: 3.99 -> 3, -0.5 -> 0, +inf and "
            "values >= 2^32 -> 4294967295. Where trunc(x) is outside [0, 2^32) (NaN and infinities included) IEEE "
            "754 5.8 leaves the result unspecified: the conformance profile accepts any u32 there, the reference "
            "profile the saturated value."};
  if (widening(src, dst)) return {models::exact(), oracle::identity, "exact widening", "x", ""};
  if (src == DType::f64 && dst == DType::bf16)
    return {models::near_correct(std::ldexp(1.0, -13),
                                 "the low 32 significand bits are dropped (< 2^-13 ulp_bf16), then RNE: "
                                 "within 1/2 + 2^-13 ulp, at most one step from RN"),
            oracle::identity, "half's bf16::from_f64: low 32 bits dropped, then RNE (not correctly rounded)",
            "x; the semantics check replays RN_bf16(x with its low 32 significand bits cleared)",
            "Not correctly rounded: 1 + 2^-8 + 2^-22 gives 0x3F80 where RN is 0x3F81 (half-rs#151). The generic "
            "kernels' f64 -> bf16 path (NumCast, via f32) is a different rounding."};
  if (src == DType::f64 && dst == DType::f16)
    return {models::near_correct(std::ldexp(1.0, -14), "RN_f16(RN_f32(x)): the first rounding moves x by at most "
                                                       "2^-14 ulp_f16, then RNE: within 1/2 + 2^-14, one step"),
            oracle::identity, "f64 -> f32 -> f16, RNE twice (x86 F16C)",
            "x; the semantics check replays RN_f16(RN_f32(x))",
            "Double rounding on x86 with F16C (any modern x86-64); without F16C the reference uses a truncating "
            "software routine like bf16's."};
  return {models::correctly_rounded(), oracle::identity, "round to nearest, ties to even", "x",
          src == DType::bf16 || src == DType::f16 ? "Via f32: the widening is exact, then one RNE." : ""};
}

std::vector<double> (*points_for(DType src, DType dst))(DType) {
  if (dst == DType::u32) return pts::integral;
  if (src == DType::u32) return pts::integral;
  return pts::scalar;
}

// The result classes a cast can produce, from the two formats: a class of
// the destination is reachable when some source value rounds into it.
// u32 sources have no NaN, inf or fractions, and none of the casts'
// destinations overflows below 2^32; a widening float cast keeps every
// value exact, so the destination's extremes stay out of reach.
ResultSet cast_reaches(DType src, DType dst) {
  using RC = ResultClass;
  const double smallest = src == DType::u32 ? 1.0 : min_subnormal(src);
  const double largest = src == DType::u32 ? 4294967295.0 : max_finite(src);
  ResultSet r{RC::zero, RC::normal};
  if (is_float(src)) r = r.with({RC::inf, RC::nan});
  if (smallest < min_normal(dst)) r = r.with({RC::subnormal});
  if (smallest < 2 * min_normal(dst)) r = r.with({RC::near_underflow});
  if (largest >= std::ldexp(1.0, float_format(dst).emax)) r = r.with({RC::near_overflow});
  if (largest > max_finite(dst)) r = r.with({RC::inf});
  return r;
}

}  // namespace

void register_cast(std::vector<KernelSpec>& out) {
  for (const Cast& c : kCasts) {
    const CastFacts f = facts(c.src, c.dst);
    KernelSpec k{.name = c.name,
                 .family = "cast",
                 .driver = "elementwise",
                 .summary = f.summary,
                 .source = "ops.rs:1135-1241",
                 .inputs = {{.name = "x", .dtypes = {c.src}}},
                 .outputs = {{.dtype = c.dst}},
                 .preconditions = tensor_rules("exactly one input tensor", "x",
                                               "x has the cast's source dtype (other pairs panic)"),
                 .accuracy = {{c.src, f.accuracy}},
                 .values = {.lo = c.src == DType::u32 ? 0 : -1e5, .hi = c.src == DType::u32 ? 4.3e9 : 1e5,
                            .points = points_for(c.src, c.dst), .ties = true, .integers = true,
                            .near_ties_of = (is_float(c.src) && is_float(c.dst) &&
                                             float_format(c.dst).precision < float_format(c.src).precision)
                                                ? std::optional<DType>(c.dst)
                                                : std::nullopt,
                            .reaches = is_float(c.dst) ? cast_reaches(c.src, c.dst) : ResultSet{}},
                 .math = {f.oracle, oracle::replay::cast},
                 .oracle_text = f.oracle_text,
                 .notes = f.notes};
    out.push_back(std::move(k));
  }
}

}  // namespace kc::contract
