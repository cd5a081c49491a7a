// The declarative contract of one kernel: a C++20 aggregate written with
// designated initializers, one entry per kernel, families in their own file
// (contracts/unary.cpp, ...). Everything the framework does with a kernel
// follows from its entry: which backend op to call, the driver that shapes
// its cases (drivers/: case generation, the expected output and which input
// elements each output element depends on), the dtypes and ranks it
// accepts, its parameters and their domains, the layout guarantee, the
// preconditions and the error rule each raises, the accuracy model per
// dtype, the special-value rules, the properties (each run by the check it
// names, checks/), the value generator profile and the exact (MPFR) oracle.
// The report prints the contract from this same data, so text and check
// cannot drift. This is the spec side of the wall: nothing here includes or
// links kernels/ or backends/.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "core/rules.h"
#include "core/tensor.h"
#include "core/vocabulary.h"
#include "oracles/oracle.h"

namespace kc::contract {

struct Operand {
  std::string_view name;
  DTypeSet dtypes;
  int min_rank = 0, max_rank = 6;
  // A call may leave it out (conv2d's bias, the last operand); the driver
  // generates calls with and without it.
  bool optional = false;
};

enum class ParamKind : std::uint8_t { integer, real, shape };
std::string_view param_kind_name(ParamKind k);
struct Param {
  std::string_view name;
  ParamKind kind;
  std::string_view domain;              // in words, printed by the report
  std::int64_t min = INT64_MIN, max = INT64_MAX;  // integer domain (checked)
  std::vector<double> samples;          // values the generator favours
  double lo = 0, hi = 0;                // range of uniform draws besides the samples
};

enum class Layout : std::uint8_t {
  fresh_buffer,
  zero_copy_when_pure_padding,  // broadcast_to: shares the input's storage exactly when only leading 1s are added
  zero_copy,                    // reshape and its exec arms: always shares the input's storage (a view)
};

// One output of a kernel, in the order the kernel returns them: its name
// (messages and where texts name it; empty for a kernel's one output) and
// its dtype where it is not the input's (casts to another format, argmax's
// u32 indices, a values + indices pair's second).
struct Output {
  std::string_view name = {};
  std::optional<DType> dtype = {};
};

struct Precondition {
  Rule rule;                 // the KernelError rule the backend must raise
  std::string_view operand;  // the operand or parameter it must name
  std::string text;
  // The reference's own limit, not the operation's: the call has a defined
  // result, and it is empty (a zero-sized batch, where the reference
  // indexes out of bounds). The conformance profile accepts the rejection
  // or that result (of the driver's expected shape and dtype); the
  // reference profile requires the rejection (docs/conformance-audit.md).
  bool reference_limit = false;
  // A reference_limit rule's defined result where it is not empty,
  // computed from the call and compared bit for bit (squeeze of an axis
  // of size > 1: x unchanged, PyTorch's no-op); nullptr: the empty result.
  std::vector<Tensor> (*defined_result)(std::span<const Tensor> inputs, const Params& params) = nullptr;
  // A reference_limit rule whose defined result kconform has no oracle for
  // (attention with Dv != Dq, a batched qmatmul): any answer passes the
  // conformance profile as not graded, counted as a difference from the
  // reference.
  bool ungraded_result = false;
};

// Accuracy model of one dtype. See docs/accuracy-bounds.md for every
// derivation; `derivation` is its one-line summary.
enum class AccuracyKind : std::uint8_t {
  exact,              // the result is the exact value, which is representable
  correctly_rounded,  // integer distance 0 from RN_T(exact)
  ulp_bound,          // fractional ulp <= max_frac_ulp and distance <= max_distance
  condition_aware,    // |y - z| <= max_frac_ulp ulp_T(z) + magnitude_coeff * u_work * S
};
// Inline: the results reader (reports/merge.cpp) maps the JSON text back to
// the kind without linking the contract registry.
constexpr std::string_view accuracy_kind_name(AccuracyKind k) {
  switch (k) {
    case AccuracyKind::exact: return "exact";
    case AccuracyKind::correctly_rounded: return "correctly rounded";
    case AccuracyKind::ulp_bound: return "ulp bound";
    case AccuracyKind::condition_aware: return "condition-aware bound";
  }
  return "?";
}

struct Accuracy {
  AccuracyKind kind;
  double max_frac_ulp = 0;
  std::int64_t max_distance = -1;   // -1: no bound on the integer distance
  double magnitude_coeff = 0;       // condition-aware: K
  DType work = DType::f64;          // condition-aware: the format whose u scales S
  bool check_bias = false;          // statistical check: mean normalized error is zero within 6 s.e.
  // Per-case statistics over the outputs of one case (sums with many
  // output cells): mean signed normalized error near 0, mean square under
  // its expectation bound (docs/accuracy-bounds.md, "Statistics of a case").
  bool check_case_statistics = false;
  std::string_view derivation;
  // A bound that depends on an integer parameter (powi's n): when set, the
  // per-case fractional bound is param_bound(dtype, params[bound_param]).
  double (*param_bound)(DType, std::int64_t) = nullptr;
  std::string_view bound_param;
};

// The bound in a few words, as `kconform list` and the contract JSON show
// it: "exact", "correctly rounded", "<= 2.5 ulp, distance <= 1",
// "<= bound(n) ulp", "normalized error <= 1 (K = 3, u of f64)".
std::string bound_summary(const Accuracy& a);

struct DTypeAccuracy {
  DType dtype;
  Accuracy accuracy;
};

// Special values on input and what the reference returns for them. The
// oracle applies these before evaluating the function, and the special-value
// check reports each rule with how often it was exercised.
enum class ValueClass : std::uint8_t { nan, pos_inf, neg_inf, pos_zero, neg_zero };
enum class Outcome : std::uint8_t { nan, pos_inf, neg_inf, pos_zero, neg_zero, pos_one, neg_one, same };
std::string_view value_class_name(ValueClass c);
std::string_view outcome_name(Outcome o);
struct SpecialRule {
  ValueClass input;
  Outcome output;  // the reference's answer
  // Answers other correct implementations give where the reference made a
  // choice (relu(NaN) = NaN is PyTorch's): the conformance profile accepts
  // them and lists them as "differs from the reference".
  std::vector<Outcome> also = {};
};

// Algebraic and relational properties. Each names the check that runs it
// (checks/: "pointwise", "monotone", "odd", "even", "commutative",
// "broadcast_consistent", "adjoint", "argmax_value", "round_trip"); the engine checks at
// start-up that the check exists and accepts the entry.
// Row maps whose structure a check knows (KernelSpec::row_map).
#define KC_ROW_MAPS(X) \
  X(none, "none") X(softmax, "softmax") X(log_softmax, "log_softmax") X(layer_norm, "layer_norm") X(rms_norm, "rms_norm")
KC_VOCABULARY(RowMap, std::uint8_t, kRowMaps, KC_ROW_MAPS);

struct Property {
  std::string_view name;
  std::string_view check;
  // pointwise: holds(x, y) for every element (NaN inputs skipped);
  // commutative: the pairs (a, b) it is claimed for.
  bool (*holds)(double, double) = nullptr;
  // The dtypes the property holds on (all the kernel's dtypes when empty).
  DTypeSet dtypes = {};
  std::string_view related = {};  // the other kernel a relational property calls
  // round_trip: the parameters that undo the call's (permute's inverse
  // axes, roll's negated shift); the same parameters when null.
  Params (*inverse)(const Params&) = nullptr;
  bool applies_to(DType t) const { return dtypes.empty() || dtypes.contains(t); }
};

// Classes of a result (of RN_T(z), the correctly rounded exact value): the
// generators must reach each one a kernel can produce, on every dtype, and
// the coverage table counts them (engine/tally.cpp).
#define KC_RESULT_CLASSES(X)                                                           \
  X(zero, "zero") X(subnormal, "subnormal") X(near_underflow, "near underflow")        \
  X(normal, "normal") X(near_overflow, "near overflow") X(inf, "inf") X(nan, "NaN")
KC_VOCABULARY(ResultClass, std::uint8_t, kResultClassNames, KC_RESULT_CLASSES);
inline constexpr auto kResultClasses = kResultClassNames.all();
inline std::string_view result_class_name(ResultClass c) { return kResultClassNames.name(c); }  // "near underflow", ...
class ResultSet {
 public:
  constexpr ResultSet() = default;
  constexpr ResultSet(std::initializer_list<ResultClass> cs) {
    for (ResultClass c : cs) mask_ |= bit(c);
  }
  static constexpr ResultSet all() {
    static_assert(kResultClassNames.size() <= 8, "a ResultSet is a byte of classes");
    return ResultSet{static_cast<std::uint8_t>((1u << kResultClassNames.size()) - 1)};
  }
  constexpr bool contains(ResultClass c) const { return (mask_ & bit(c)) != 0; }
  constexpr ResultSet with(ResultSet o) const { return ResultSet{static_cast<std::uint8_t>(mask_ | o.mask_)}; }
  constexpr ResultSet without(ResultSet o) const { return ResultSet{static_cast<std::uint8_t>(mask_ & ~o.mask_)}; }
  constexpr bool empty() const { return mask_ == 0; }

 private:
  explicit constexpr ResultSet(std::uint8_t m) : mask_(m) {}
  static constexpr std::uint8_t bit(ResultClass c) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(c)); }
  std::uint8_t mask_ = 0;
};

// What the value generator favours besides the shared special values.
struct ValueProfile {
  double lo, hi;                                  // ordinary range of uniform draws
  // Thresholds of the kernel's function in T (where it overflows, underflows,
  // saturates, switches algorithm inside libm, changes binade), probed at a
  // few ulps either side: contracts/thresholds.h.
  std::vector<double> (*points)(DType) = nullptr;
  bool ties = false;                              // exact .5 ties (round)
  bool integers = false;                          // integers (floor/ceil)
  // Casts to a narrower float: values at that format's midpoints, offset in
  // the source's low significand bits (where truncating roundings go wrong).
  std::optional<DType> near_ties_of = {};
  // The result classes the kernel can produce in its output dtype (all
  // seven unless the entry says which cannot occur, and why): each must be
  // reached by the generators (tests/conformance_test.cpp).
  ResultSet reaches = ResultSet::all();
  // Where `reaches` depends on the dtype (casts): overrides it when set.
  ResultSet (*reaches_for)(DType) = nullptr;
};

// A valid call the reference accepts and a correct implementation may
// reject (an empty max_all: the reference answers -inf, PyTorch rejects it
// for want of an identity). The conformance profile accepts the rejection
// with this rule for the calls `applies` holds for; the reference profile's
// "accepts valid input, as the reference does" records it as a difference
// (docs/conformance-audit.md).
struct AllowedRejection {
  Rule rule;
  std::string_view operand;
  std::string_view why;
  bool (*applies)(std::span<const Tensor> inputs, const Params& params);
};

struct KernelSpec {
  std::string_view name;      // backend op name
  std::string_view family;    // a label for reports and --family
  std::string_view driver;    // the computation shape (drivers/<driver>.cpp)
  std::string_view summary;   // formula, in words
  std::string_view source;    // where the reference defines it
  std::vector<Operand> inputs;
  std::vector<Param> params;
  // Its outputs (one of the input's dtype unless the entry says more); a
  // driver of several outputs (Driver::several_outputs) grades each one.
  std::vector<Output> outputs = {Output{}};
  Layout layout = Layout::fresh_buffer;
  std::vector<Precondition> preconditions;
  std::vector<DTypeAccuracy> accuracy;  // one per supported dtype
  bool zero_sign_checked = true;        // is the sign of a zero result graded
  std::vector<SpecialRule> specials;
  std::vector<Property> properties;
  // The row map of a last_dim kernel, where a property relates it to its
  // moments or its backward (checks normalized_moments,
  // backward_matches_forward): declared here, never told from the name.
  RowMap row_map = RowMap::none;
  ValueProfile values;
  // The element's exact oracle, with the reference's steps replayed
  // natively (oracles/replay.h: the reference profile requires the
  // kernel's bits to equal them; every deterministic kernel has one,
  // checked at start-up) and, for a unary or binary kernel whose exact
  // function has a double evaluation with an error bound, the fast path
  // (oracles/fast.h; the engine uses it only where the bound cannot change
  // a verdict or a figure): three functions of one typed input
  // (oracles/oracle.h Math).
  oracle::Math math;
  // The oracle's value is MPFR's correct rounding of one function of the
  // exact inputs (no cancellation, no intermediate rounding), so at any
  // working precision w it is within 2^-w of z, relatively: the engine
  // grades first at 64 bits (engine/grading.cpp) and keeps the working
  // precision for the elements it shows and the ones near a boundary.
  bool oracle_rounds_once = false;
  std::string_view oracle_text;         // the exact function the oracle evaluates
  std::string_view notes;               // semantic choices and known deviations
  // Constants the oracle takes from the reference (rounded into T its way):
  // a kernel using the exact constants is as correct, so the bias check,
  // which would see the constants' difference, is a reference-profile check.
  std::string_view reference_constants = {};
  std::vector<AllowedRejection> allowed_rejections = {};

  DTypeSet dtypes() const;              // the first operand's dtypes
  DTypeSet operand_dtypes() const;      // every operand's dtypes (a backend declares their union)
  // None when the output is an integer dtype: classes are of floats.
  ResultSet reachable_results(DType t) const {
    if (!is_float(out_dtype(t))) return {};
    return values.reaches_for ? values.reaches_for(t) : values.reaches;
  }
  const Accuracy* accuracy_for(DType t) const;
  // Output i's dtype for input dtype `in`.
  DType out_dtype(DType in, std::size_t i = 0) const { return outputs.at(i).dtype.value_or(in); }
  const Param* param(std::string_view name) const;
  bool has_rule(Rule rule) const;  // a precondition with this rule
  // Index of the operand called `name` in `inputs`, or -1.
  int operand_index(std::string_view name) const;
};

// The whole table, in family order. The families' files each define
// `void register_<file stem>(std::vector<KernelSpec>&)`; the build
// generates `register_all` calling them in the order CMakeLists.txt lists
// the files (cmake/Registry.cmake).
const std::vector<KernelSpec>& all_kernels();
const KernelSpec* find_kernel(std::string_view name);
void register_all(std::vector<KernelSpec>& table);

std::string_view layout_text(Layout l);

}  // namespace kc::contract
