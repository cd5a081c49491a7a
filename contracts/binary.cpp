// Contracts of the binary families: same-shape (inventory "Binary
// elementwise - same-shape", reference-semantics.md §2) and NumPy
// broadcasting (§3).
#include <cmath>
#include <functional>

#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/preconditions.h"
#include "contracts/thresholds.h"
#include "oracles/oracle.h"

// Each kernel's exact function, replay and fast path (oracles/oracle.h),
// defined in oracles/binary.cpp.
KC_MATH_OF(Pair, add)
KC_MATH_OF(Pair, sub)
KC_MATH_OF(Pair, mul)
KC_MATH_OF(Pair, div)
KC_MATH_OF(Pair, maximum)
KC_MATH_OF(Pair, minimum)
KC_MATH_OF(Pair, rem)
KC_MATH_OF(Pair, pow)

namespace kc::contract {

namespace {

namespace pts = thresholds;
using models::per_float_dtype;

std::vector<Precondition> binary_rules(bool broadcast) {
  return tensor_rules("exactly two input tensors a, b", "a", "a is f32, f64, bf16 or f16",
                      {{Rule::dtype_mismatch, "b", "b has a's dtype (binary! needs equal dtypes)"},
                       broadcast ? Precondition{Rule::broadcast_incompatible, "b",
                                                "right-aligned, every pair of dims is equal or one of them is 1"}
                                 : Precondition{Rule::shape_mismatch, "b", "b's dims equal a's exactly (no broadcasting)"}});
}

// Commutativity holds bit for bit for add and mul; maximum/minimum return b
// on ties and on a NaN in a, so it holds only away from NaN and from the +-0 pair.
bool not_nan_not_zero_pair(double a, double b) {
  return !std::isnan(a) && !std::isnan(b) && !(a == 0 && b == 0);
}
bool always(double, double) { return true; }

// Same-shape kernels run on the "binary" driver (one pair of equal-index
// elements per output), broadcasting ones on "broadcast" (NumPy rules).
KernelSpec binary(KernelSpec k, bool broadcast) {
  k.family = broadcast ? "broadcast" : "binary";
  k.driver = broadcast ? "broadcast" : "binary";
  k.inputs = {{.name = "a", .dtypes = kFloatSet}, {.name = "b", .dtypes = kFloatSet}};
  k.preconditions = binary_rules(broadcast);
  return k;
}

}  // namespace

void register_binary(std::vector<KernelSpec>& out) {
  const auto cr = models::correctly_rounded_everywhere();
  const auto exact = models::exact_everywhere();
  out.push_back(binary({.name = "add", .summary = "a + b, one IEEE operation in T", .source = "ops.rs:291",
                        .accuracy = cr,
                        .properties = {{"add is commutative", "commutative", always}},
                        .values = {.lo = -1e3, .hi = 1e3, .points = pts::scalar},
                        .math = {oracle::add, oracle::replay::add, oracle::fast::add}, .oracle_text = "a + b (IEEE: inf - inf = NaN, +0 + -0 = +0)"},
                       false));
  out.push_back(binary({.name = "sub", .summary = "a - b", .source = "ops.rs:303", .accuracy = cr,
                        .values = {.lo = -1e3, .hi = 1e3, .points = pts::scalar},
                        .math = {oracle::sub, oracle::replay::sub, oracle::fast::sub}, .oracle_text = "a - b"},
                       false));
  out.push_back(binary({.name = "mul", .summary = "a * b", .source = "ops.rs:315", .accuracy = cr,
                        .properties = {{"mul is commutative", "commutative", always}},
                        .values = {.lo = -1e3, .hi = 1e3, .points = pts::powers},
                        .math = {oracle::mul, oracle::replay::mul, oracle::fast::mul}, .oracle_text = "a * b (0 * inf = NaN)"},
                       false));
  out.push_back(binary({.name = "div", .summary = "a / b", .source = "ops.rs:327", .accuracy = cr,
                        .values = {.lo = -1e3, .hi = 1e3, .points = pts::reciprocal},
                        .math = {oracle::div, oracle::replay::div, oracle::fast::div}, .oracle_text = "a / b (x/0 = +-inf, 0/0 = NaN)"},
                       false));
  out.push_back(binary({.name = "maximum", .summary = "a > b ? a : b", .source = "ops.rs:1822", .accuracy = exact,
                        .properties = {{"maximum is commutative away from NaN and +-0 pairs", "commutative",
                                        not_nan_not_zero_pair}},
                        .values = {.lo = -10, .hi = 10, .points = pts::zero},
                        .math = {oracle::maximum, oracle::replay::maximum, oracle::fast::maximum}, .oracle_text = "a if a > b, else b",
                        .notes = "NaN-asymmetric: a NaN gives b, b NaN gives NaN; ties (+-0 included) give b. "
                                 "PyTorch's maximum propagates NaN from either side."},
                       false));
  out.push_back(binary({.name = "minimum", .summary = "a < b ? a : b", .source = "ops.rs:1834", .accuracy = exact,
                        .properties = {{"minimum is commutative away from NaN and +-0 pairs", "commutative",
                                        not_nan_not_zero_pair}},
                        .values = {.lo = -10, .hi = 10, .points = pts::zero},
                        .math = {oracle::minimum, oracle::replay::minimum, oracle::fast::minimum}, .oracle_text = "a if a < b, else b",
                        .notes = "Same NaN and tie rules as maximum, with <."},
                       false));
  out.push_back(binary({.name = "rem", .summary = "a - floor(a/b) * b, each step rounded in T (sign of b)",
                        .source = "ops.rs:1771", .accuracy = exact,
                        .values = {.lo = -100, .hi = 100, .points = pts::integral, .integers = true},
                        .math = {oracle::rem, oracle::replay::rem}, 
                        .oracle_text = "the reference's steps replayed exactly: RN(a - RN(floor(RN(a/b)) b)); the "
                                       "conformance profile also accepts PyTorch's exact remainder, "
                                       "m = fmod(a, b), RN(m + b) where m and b differ in sign",
                        .notes = "Not fmod-based, so inexact for large quotients (unlike PyTorch's CPU kernel): it is "
                                 "graded bit-exactly against its own definition in the reference profile. rem(x, 0), "
                                 "rem(+-inf, y) and rem(x, +-inf) are NaN; rem(-1, 3) = 2. PyTorch's answer (exact "
                                 "for large quotients; rem(x, +-inf) = x or +-inf) is a reference choice, not a "
                                 "failure, in the conformance profile."},
                       false));
  out.push_back(binary({.name = "pow", .summary = "a^b (libm powf / pow; halves via powf)", .source = "ops.rs:1788",
                        .accuracy = per_float_dtype([](DType t) { return models::libm(t, models::kGlibcUlpsPow); }),
                        .values = {.lo = -4, .hi = 4, .points = pts::powers},
                        .math = {oracle::pow, oracle::replay::pow}, .oracle_text = "a^b with C99 Annex F special cases (pow(x, 0) = 1, pow(1, y) = 1)"},
                       false));
  const std::tuple<const char*, const char*, const char*, oracle::Math> bc[] = {
      {"broadcast_add", "add", "ops.rs:2179", {oracle::add, oracle::replay::add, oracle::fast::add}},
      {"broadcast_sub", "sub", "ops.rs:2184", {oracle::sub, oracle::replay::sub, oracle::fast::sub}},
      {"broadcast_mul", "mul", "ops.rs:2189", {oracle::mul, oracle::replay::mul, oracle::fast::mul}},
      {"broadcast_div", "div", "ops.rs:2194", {oracle::div, oracle::replay::div, oracle::fast::div}}};
  for (const auto& [name, op, source, math] : bc)
    out.push_back(binary({.name = name, .summary = "a op b with NumPy broadcasting; one operation per output element",
                          .source = source, .accuracy = cr,
                          .properties = {{"equals the same-shape op on broadcast_to'd operands", "broadcast_consistent",
                                          nullptr, {}, op}},
                          .values = {.lo = -1e3, .hi = 1e3, .points = pts::scalar},
                          .math = math, .oracle_text = "a op b at the broadcast source elements"},
                         true));
}

}  // namespace kc::contract
