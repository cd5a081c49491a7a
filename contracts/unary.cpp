// Contracts of the unary elementwise family (inventory "Unary elementwise"
// and "Scalar-by-tensor / clamp"; reference-semantics.md §1, §4), but for
// its composed activations (contracts/activations.cpp).
// One entry per kernel: kernel name, contract, generator profile, oracle.
#include <functional>

#include "contracts/properties.h"
#include "contracts/unary_family.h"
#include "oracles/oracle.h"

// Each kernel's exact function, replay and fast path (oracles/oracle.h),
// defined in oracles/unary.cpp.
KC_MATH_OF(Scalar, neg)
KC_MATH_OF(Scalar, relu)
KC_MATH_OF(Scalar, sqr)
KC_MATH_OF(Scalar, sqrt)
KC_MATH_OF(Scalar, exp)
KC_MATH_OF(Scalar, sign)
KC_MATH_OF(Scalar, log)
KC_MATH_OF(Scalar, sin)
KC_MATH_OF(Scalar, cos)
KC_MATH_OF(Scalar, abs)
KC_MATH_OF(Scalar, recip)
KC_MATH_OF(Scalar, tanh)
KC_MATH_OF(Scalar, floor)
KC_MATH_OF(Scalar, ceil)
KC_MATH_OF(Scalar, erf)
KC_MATH_OF(Scalar, round)
KC_MATH_OF(Scalar, step)
KC_MATH_OF(Scalar, rsqrt)
KC_MATH_OF(Scalar, powi)
KC_MATH_OF(Scalar, add_scalar)
KC_MATH_OF(Scalar, mul_scalar)
KC_MATH_OF(Scalar, clamp)

namespace kc::contract {

using namespace unary_family;  // NOLINT: the family's shared vocabulary, contracts/unary_family.h

void register_unary(std::vector<KernelSpec>& out) {
  out.push_back(unary({
      .name = "neg", .summary = "-x (sign bit flipped, NaN included)", .source = "ops.rs:30",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::nan}, {VC::pos_zero, OC::neg_zero}, {VC::neg_zero, OC::pos_zero},
                   {VC::pos_inf, OC::neg_inf}, {VC::neg_inf, OC::pos_inf}},
      .properties = {{"neg(-x) == -neg(x)", "odd"}},
      .values = {.lo = -100, .hi = 100, .points = pts::zero},
      .math = {oracle::neg, oracle::replay::neg, oracle::fast::neg}, .oracle_text = "-x",
  }));
  out.push_back(unary({
      .name = "relu", .summary = "x > 0 ? x : +0", .source = "ops.rs:36",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::pos_zero, {OC::nan}}, {VC::neg_zero, OC::pos_zero, {OC::neg_zero}}, {VC::pos_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::pos_zero}},
      .properties = {{"relu(x) >= 0", "pointwise", props::nonneg},
                     {"relu(x) is x or +0", "pointwise", props::relu_values},
                     {"relu is monotone", "monotone"}},
      .values = {.lo = -10, .hi = 10, .points = pts::zero, .reaches = ResultSet::all().without({RC::nan})},
      .math = {oracle::relu, oracle::replay::relu, oracle::fast::relu}, .oracle_text = "x if x > 0, else +0 (NaN and -0 give +0)",
      .notes = "NaN maps to +0 (the reference's `x > 0` test), where PyTorch returns NaN.",
  }));
  out.push_back(unary({
      .name = "sqr", .summary = "x * x", .source = "ops.rs:47",
      .accuracy = all_cr(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_inf, OC::pos_inf}, {VC::pos_inf, OC::pos_inf},
                   {VC::neg_zero, OC::pos_zero}},
      .properties = {{"sqr(x) >= 0", "pointwise", props::nonneg}, {"sqr is even", "even"}},
      .values = {.lo = -1e3, .hi = 1e3, .points = pts::powers},
      .math = {oracle::sqr, oracle::replay::sqr, oracle::fast::sqr}, .oracle_text = "x^2",
  }));
  out.push_back(unary({
      .name = "sqrt", .summary = "sqrt(x), IEEE (hardware, correctly rounded)", .source = "ops.rs:53",
      .accuracy = all_cr(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_inf, OC::nan}, {VC::pos_inf, OC::pos_inf},
                   {VC::neg_zero, OC::neg_zero}, {VC::pos_zero, OC::pos_zero}},
      .properties = {{"sqrt(x) >= 0 or NaN", "pointwise", props::nonneg_or_nan},
                     {"sqrt is monotone", "monotone"}},
      .values = {.lo = 0, .hi = 1e4, .points = pts::roots, .reaches = kRoot},
      .math = {oracle::sqrt, oracle::replay::sqrt, oracle::fast::sqrt}, .oracle_rounds_once = true, .oracle_text = "sqrt(x); NaN for x < 0",
  }));
  out.push_back(unary({
      .name = "exp", .summary = "e^x (libm expf / exp; halves via expf)", .source = "ops.rs:59",
      .accuracy = libm(models::kGlibcUlpsExp),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::pos_zero},
                   {VC::pos_zero, OC::pos_one}, {VC::neg_zero, OC::pos_one}},
      .properties = {{"exp(x) >= 0", "pointwise", props::nonneg}, {"exp is monotone", "monotone"}},
      .values = {.lo = -20, .hi = 20, .points = pts::exp},
      .math = {oracle::exp, oracle::replay::exp, oracle::fast::exp}, .oracle_rounds_once = true, .oracle_text = "e^x",
      .notes = "Bit equality with the Rust reference needs the same libm (glibc 2.36 here).",
  }));
  out.push_back(unary({
      .name = "sign", .summary = "x > 0 ? 1 : x < 0 ? -1 : +0", .source = "ops.rs:65",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::pos_zero, {OC::nan}}, {VC::neg_zero, OC::pos_zero, {OC::neg_zero}}, {VC::pos_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_one}, {VC::neg_inf, OC::neg_one}},
      .properties = {{"sign(x) is -1, 0 or 1", "pointwise", props::sign_values},
                     {"sign is monotone", "monotone"}},
      .values = {.lo = -10, .hi = 10, .points = pts::zero, .reaches = ResultSet{RC::zero, RC::normal}},
      .math = {oracle::sign, oracle::replay::sign, oracle::fast::sign}, .oracle_text = "1 if x > 0, -1 if x < 0, else +0 (NaN and -0 give +0)",
      .notes = "NaN maps to +0, where PyTorch's sign returns NaN; sign(-0) is +0.",
  }));
  out.push_back(unary({
      .name = "log", .summary = "ln(x) (libm logf / log)", .source = "ops.rs:87",
      .accuracy = libm(models::kGlibcUlpsLog),
      .specials = {{VC::nan, OC::nan}, {VC::pos_zero, OC::neg_inf}, {VC::neg_zero, OC::neg_inf},
                   {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::nan}},
      .properties = {{"log is monotone", "monotone"}},
      .values = {.lo = 0, .hi = 100, .points = pts::log, .reaches = ResultSet{RC::zero, RC::normal, RC::inf, RC::nan}},
      .math = {oracle::log, oracle::replay::log, oracle::fast::log}, .oracle_rounds_once = true, .oracle_text = "ln(x); -inf at +-0, NaN for x < 0",
  }));
  out.push_back(unary({
      .name = "sin", .summary = "sin(x) (libm sinf / sin)", .source = "ops.rs:93",
      .accuracy = libm(models::kGlibcUlpsSin),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::nan}, {VC::neg_inf, OC::nan},
                   {VC::pos_zero, OC::pos_zero}, {VC::neg_zero, OC::neg_zero}},
      .properties = {{"|sin(x)| <= 1", "pointwise", props::in_pm_one}, {"sin is odd", "odd"}},
      .values = {.lo = -10, .hi = 10, .points = pts::trig, .reaches = kBounded},
      .math = {oracle::sin, oracle::replay::sin, oracle::fast::sin}, .oracle_rounds_once = true, .oracle_text = "sin(x)",
  }));
  out.push_back(unary({
      .name = "cos", .summary = "cos(x) (libm cosf / cos)", .source = "ops.rs:99",
      .accuracy = libm(models::kGlibcUlpsCos),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::nan}, {VC::neg_inf, OC::nan},
                   {VC::pos_zero, OC::pos_one}, {VC::neg_zero, OC::pos_one}},
      .properties = {{"|cos(x)| <= 1", "pointwise", props::in_pm_one}, {"cos is even", "even"}},
      .values = {.lo = -10, .hi = 10, .points = pts::trig, .reaches_for = cos_reaches},
      .math = {oracle::cos, oracle::replay::cos, oracle::fast::cos}, .oracle_rounds_once = true, .oracle_text = "cos(x)",
  }));
  out.push_back(unary({
      .name = "abs", .summary = "|x|", .source = "ops.rs:105",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_zero, OC::pos_zero}, {VC::neg_inf, OC::pos_inf},
                   {VC::pos_inf, OC::pos_inf}},
      .properties = {{"abs(x) >= 0", "pointwise", props::nonneg}, {"abs is even", "even"}},
      .values = {.lo = -100, .hi = 100, .points = pts::zero},
      .math = {oracle::abs, oracle::replay::abs, oracle::fast::abs}, .oracle_text = "|x|",
  }));
  out.push_back(unary({
      .name = "recip", .summary = "1 / x, one division in T", .source = "ops.rs:112",
      .accuracy = all_cr(),
      .specials = {{VC::nan, OC::nan}, {VC::pos_zero, OC::pos_inf}, {VC::neg_zero, OC::neg_inf},
                   {VC::pos_inf, OC::pos_zero}, {VC::neg_inf, OC::neg_zero}},
      .properties = {{"recip keeps the sign of x", "pointwise", props::sign_of_input}, {"recip is odd", "odd"}},
      .values = {.lo = -100, .hi = 100, .points = pts::reciprocal},
      .math = {oracle::recip, oracle::replay::recip, oracle::fast::recip}, .oracle_rounds_once = true, .oracle_text = "1/x",
  }));
  out.push_back(unary({
      .name = "tanh", .summary = "tanh(x) (libm tanhf / tanh)", .source = "ops.rs:119",
      .accuracy = libm(models::kGlibcUlpsTanh),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::pos_one}, {VC::neg_inf, OC::neg_one},
                   {VC::pos_zero, OC::pos_zero}, {VC::neg_zero, OC::neg_zero}},
      .properties = {{"|tanh(x)| <= 1", "pointwise", props::in_pm_one}, {"tanh is odd", "odd"},
                     {"tanh is monotone", "monotone"}},
      .values = {.lo = -12, .hi = 12, .points = pts::tanh, .reaches = kBounded},
      .math = {oracle::tanh, oracle::replay::tanh, oracle::fast::tanh}, .oracle_rounds_once = true, .oracle_text = "tanh(x)",
  }));
  out.push_back(unary({
      .name = "floor", .summary = "floor(x)", .source = "ops.rs:125",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_zero, OC::neg_zero}, {VC::pos_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::neg_inf}},
      .properties = {{"floor(x) <= x", "pointwise", props::le_input},
                     {"floor(x) is an integer", "pointwise", props::integer_valued},
                     {"floor is monotone", "monotone"}},
      .values = {.lo = -1e3, .hi = 1e3, .points = pts::integral, .integers = true, .reaches = kIntegral},
      .math = {oracle::floor, oracle::replay::floor, oracle::fast::floor}, .oracle_text = "floor(x)",
  }));
  out.push_back(unary({
      .name = "ceil", .summary = "ceil(x)", .source = "ops.rs:131",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_zero, OC::neg_zero}, {VC::pos_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::neg_inf}},
      .properties = {{"ceil(x) >= x", "pointwise", props::ge_input},
                     {"ceil(x) is an integer", "pointwise", props::integer_valued},
                     {"ceil is monotone", "monotone"}},
      .values = {.lo = -1e3, .hi = 1e3, .points = pts::integral, .integers = true, .reaches = kIntegral},
      .math = {oracle::ceil, oracle::replay::ceil, oracle::fast::ceil}, .oracle_text = "ceil(x); ceil(-0.5) = -0",
  }));
  out.push_back(unary({
      .name = "erf", .summary = "rne_T(libm erf(f64(x)))", .source = "ops.rs:141",
      .accuracy = each_dtype([](DType t) { return models::libm_f64_narrowed(t, models::kGlibcUlpsErf); }),
      .specials = {{VC::nan, OC::nan}, {VC::pos_inf, OC::pos_one}, {VC::neg_inf, OC::neg_one},
                   {VC::pos_zero, OC::pos_zero}, {VC::neg_zero, OC::neg_zero}},
      .properties = {{"|erf(x)| <= 1", "pointwise", props::in_pm_one}, {"erf is odd", "odd"},
                     {"erf is monotone", "monotone"}},
      .values = {.lo = -6, .hi = 6, .points = pts::erf, .reaches = kBounded},
      .math = {oracle::erf, oracle::replay::erf, oracle::fast::erf}, .oracle_rounds_once = true, .oracle_text = "erf(x)",
      .notes = "The libm step is the Rust libm crate's erf (musl's erf.c, from FreeBSD msun, calling the "
               "crate's e_exp.c port), as the reference calls it; core/rust_libm.cpp implements it, checked bit "
               "for bit against the crate (glibc's erf differs in the last bit on about one f64 input in a "
               "thousand). Halves narrow f64 -> f32 -> T (NumCast).",
  }));
  out.push_back(unary({
      .name = "round", .summary = "round half to even (banker's)", .source = "ops.rs:180",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::nan}, {VC::neg_zero, OC::neg_zero}, {VC::pos_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_inf}, {VC::neg_inf, OC::neg_inf}},
      .properties = {{"|round(x) - x| <= 1/2", "pointwise", props::within_half},
                     {"round(x) is an integer", "pointwise", props::integer_valued},
                     {"round is monotone", "monotone"}, {"round is odd", "odd"}},
      .values = {.lo = -100, .hi = 100, .points = pts::integral, .ties = true, .integers = true, .reaches = kIntegral},
      .math = {oracle::round, oracle::replay::round, oracle::fast::round}, .oracle_text = "roundTiesToEven(x); -0.5 -> -0",
  }));
  out.push_back(unary({
      .name = "step", .summary = "x > 0 ? 1 : 0 (Heaviside; relu's subgradient)", .source = "ops.rs:264",
      .accuracy = all_exact(),
      .specials = {{VC::nan, OC::pos_zero, {OC::nan}}, {VC::pos_zero, OC::pos_zero}, {VC::neg_zero, OC::pos_zero},
                   {VC::pos_inf, OC::pos_one}, {VC::neg_inf, OC::pos_zero}},
      .properties = {{"step(x) is 0 or 1", "pointwise", props::step_values}, {"step is monotone", "monotone"}},
      .values = {.lo = -10, .hi = 10, .points = pts::zero, .reaches = ResultSet{RC::zero, RC::normal}},
      .math = {oracle::step, oracle::replay::step, oracle::fast::step}, .oracle_text = "1 if x > 0, else +0 (NaN gives 0)",
  }));
  out.push_back(unary({
      .name = "rsqrt", .summary = "1 / sqrt(x): two roundings, no approximation", .source = "ops.rs:1520",
      .accuracy = each_dtype(models::two_roundings),
      .specials = {{VC::nan, OC::nan}, {VC::pos_zero, OC::pos_inf}, {VC::neg_zero, OC::neg_inf},
                   {VC::pos_inf, OC::pos_zero}, {VC::neg_inf, OC::nan}},
      .properties = {{"rsqrt(x) > 0 for x > 0", "pointwise", props::positive_for_positive}},
      .values = {.lo = 0, .hi = 1e4, .points = pts::roots, .reaches = kRoot},
      .math = {oracle::rsqrt, oracle::replay::rsqrt, oracle::fast::rsqrt}, .oracle_text = "1/sqrt(x)",
  }));
  out.push_back(unary({
      .name = "powi", .summary = "x^n, n: i32, square-and-multiply (halves in f32)", .source = "ops.rs:1511",
      .params = {{.name = "n", .kind = ParamKind::integer, .domain = "any i32",
                  .min = INT32_MIN, .max = INT32_MAX,
                  .samples = {0, 1, 2, 3, -1, -2, -3, 4, 5, 7, 8, -8, 16, 31, -31, 16777216, -16777216, INT32_MIN,
                              INT32_MAX},
                  .lo = -12, .hi = 12}},
      .preconditions = unary_preconditions([] {
        auto v = param_rules("n", "an integer");
        v.push_back({Rule::param_domain, "n", "n fits in i32"});
        return v;
      }()),
      .accuracy = each_dtype(models::powi),
      .specials = {},
      .properties = {},
      .values = {.lo = -4, .hi = 4, .points = pts::powers},
      .math = {oracle::powi, oracle::replay::powi}, 
      .oracle_text = "x^n (IEEE pow special cases; powi(x, 0) = 1 even for NaN); where an intermediate leaves "
                     "the normal range, the reference's loop replayed with one rounding per step",
      .notes = "powi(x, -n) is 1/(x^n): it is 0 when x^n overflows even if x^-n is representable.",
  }));
  out.push_back(unary({
      .name = "add_scalar", .summary = "x + T(c), c: f64", .source = "ops.rs:1495",
      .params = {real_param("c", "any f64, converted to T by NumCast (f64 -> f32 -> T for halves)")},
      .preconditions = unary_preconditions(real_param_rules("c")),
      .accuracy = all_cr(),
      .specials = kNanPropagates,
      .properties = {{"add_scalar is monotone", "monotone"}},
      .values = {.lo = -100, .hi = 100, .points = pts::scalar},
      .math = {oracle::add_scalar, oracle::replay::add_scalar, oracle::fast::add_scalar}, .oracle_text = "x + T(c)",
  }));
  out.push_back(unary({
      .name = "mul_scalar", .summary = "x * T(c), c: f64", .source = "ops.rs:1502",
      .params = {real_param("c", "any f64, converted to T by NumCast (f64 -> f32 -> T for halves)")},
      .preconditions = unary_preconditions(real_param_rules("c")),
      .accuracy = all_cr(),
      .specials = kNanPropagates,
      .properties = {},
      .values = {.lo = -100, .hi = 100, .points = pts::scalar},
      .math = {oracle::mul_scalar, oracle::replay::mul_scalar, oracle::fast::mul_scalar}, .oracle_text = "x * T(c)",
  }));
  out.push_back(unary({
      .name = "clamp", .summary = "x < T(min) ? T(min) : x > T(max) ? T(max) : x", .source = "ops.rs:1802",
      .params = {real_param("min", "any f64, converted to T"), real_param("max", "any f64, converted to T")},
      .preconditions = unary_preconditions([] {
        auto v = real_param_rules("min");
        auto w = real_param_rules("max");
        v.insert(v.end(), w.begin(), w.end());
        return v;
      }()),
      .accuracy = all_exact(),
      .specials = kNanPropagates,
      .properties = {},  // not monotone when min > max
      .values = {.lo = -10, .hi = 10, .points = pts::scalar},
      .math = {oracle::clamp, oracle::replay::clamp, oracle::fast::clamp}, .oracle_text = "x < lo ? lo : x > hi ? hi : x, with lo = T(min), hi = T(max)",
      .notes = "min <= max is not checked: with min > max, values below min give min and all others give max.",
  }));
}

}  // namespace kc::contract
