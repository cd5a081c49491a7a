// The declarative contract of one kernel: a C++20 aggregate written with
// designated initializers, one entry per kernel, families in their own file
// (contracts/unary.cpp, ...). Everything the framework does with a kernel
// follows from its entry: which backend op to call, which dtypes and ranks
// it accepts, its parameters and their domains, the output rule, the layout
// guarantee, the preconditions and the error rule each raises, the accuracy
// model per dtype, the special-value rules, the algebraic properties, the
// value generator profile and the exact (MPFR) oracle. The report prints the
// contract from this same data, so text and check cannot drift.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"

namespace kc::oracle {
struct OracleIO;  // oracles/mp.h
}

namespace kc::contract {

enum class Family : std::uint8_t { unary, binary, broadcast, reduction, reduce_to, cast };
std::string_view family_name(Family f);

struct Operand {
  std::string_view name;
  DTypeSet dtypes;
  int min_rank = 0, max_rank = 6;
};

enum class ParamKind : std::uint8_t { integer, real, shape };
struct Param {
  std::string_view name;
  ParamKind kind;
  std::string_view domain;              // in words, printed by the report
  std::int64_t min = INT64_MIN, max = INT64_MAX;  // integer domain (checked)
  std::vector<double> samples;          // values the generator favours
  double lo = 0, hi = 0;                // range of uniform draws besides the samples
};

enum class OutputRule : std::uint8_t {
  same_shape_same_dtype,  // unary, same-shape binary
  broadcast_shape,        // NumPy broadcast of a and b
  scalar,                 // rank 0
  dim_removed,            // the reduced dim removed (no keepdim)
  target_shape,           // params.target (reduce_*_to, broadcast_to)
  input_shape,            // x's shape (reduce_max_to_backward)
  same_shape_cast,        // x's shape, the cast's destination dtype
};
enum class Layout : std::uint8_t {
  fresh_buffer,
  zero_copy_when_pure_padding,  // broadcast_to: shares the input's storage exactly when only leading 1s are added
};

struct Precondition {
  std::string_view rule;     // the KernelError rule the backend must raise
  std::string_view operand;  // the operand or parameter it must name
  std::string_view text;
};

// Accuracy model of one dtype. See docs/accuracy-bounds.md for every
// derivation; `derivation` is its one-line summary.
enum class AccuracyKind : std::uint8_t {
  exact,              // the result is the exact value, which is representable
  correctly_rounded,  // integer distance 0 from RN_T(exact)
  ulp_bound,          // fractional ulp <= max_frac_ulp and distance <= max_distance
  condition_aware,    // |y - z| <= max_frac_ulp ulp_T(z) + magnitude_coeff * u_work * S
};
std::string_view accuracy_kind_name(AccuracyKind k);

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
  Outcome output;
};

// Algebraic properties, checked exactly on the kernel's own outputs.
enum class PropertyKind : std::uint8_t {
  pointwise,   // holds(x, y) for every element
  monotone,    // x1 <= x2 => y1 <= y2 over the finite inputs of a case
  odd,         // f(-x) == -f(x): the check runs the kernel on -x
  even,        // f(-x) == f(x)
  commutative,           // f(a, b) == f(b, a) bit for bit (where `holds(a, b)` says it applies)
  broadcast_consistent,  // broadcast_op(a, b) == op(broadcast_to(a), broadcast_to(b)); `related` names op
  adjoint,               // sum(x * broadcast_to(g)) == sum(reduce_sum_to(x) * g) within the sums' bound
  argmax_value,          // x at argmax/argmin's index equals max_dim/min_dim; `related` names it
};
struct Property {
  std::string_view name;
  PropertyKind kind;
  bool (*holds)(double x, double y) = nullptr;  // pointwise only; NaN inputs skipped
  // The dtypes the property holds on (all the kernel's dtypes when empty).
  DTypeSet dtypes = {};
  std::string_view related = {};  // the other kernel a relational property calls
  bool applies_to(DType t) const { return dtypes.empty() || dtypes.contains(t); }
};

// What the value generator favours besides the shared special values.
struct ValueProfile {
  double lo, hi;                                  // ordinary range of uniform draws
  std::vector<double> (*points)(DType) = nullptr; // thresholds, probed at +-few ulps
  bool ties = false;                              // exact .5 ties (round)
  bool integers = false;                          // integers (floor/ceil)
  // Casts to a narrower float: values at that format's midpoints, offset in
  // the source's low significand bits (where truncating roundings go wrong).
  std::optional<DType> near_ties_of = {};
};

using OracleFn = void (*)(oracle::OracleIO&);

struct KernelSpec {
  std::string_view name;      // backend op name
  Family family;
  std::string_view summary;   // formula, in words
  std::string_view source;    // where the reference defines it
  std::vector<Operand> inputs;
  std::vector<Param> params;
  std::optional<DType> output_dtype = {};  // when it is not the input's (casts, argmax/argmin)
  OutputRule output = OutputRule::same_shape_same_dtype;
  Layout layout = Layout::fresh_buffer;
  std::vector<Precondition> preconditions;
  std::vector<DTypeAccuracy> accuracy;  // one per supported dtype
  bool zero_sign_checked = true;        // is the sign of a zero result graded
  std::vector<SpecialRule> specials;
  std::vector<Property> properties;
  ValueProfile values;
  OracleFn oracle;
  std::string_view oracle_text;         // the exact function the oracle evaluates
  std::string_view notes;               // semantic choices and known deviations

  DTypeSet dtypes() const;              // the first operand's dtypes
  const Accuracy* accuracy_for(DType t) const;
  DType out_dtype(DType in) const { return output_dtype.value_or(in); }
};

const std::vector<KernelSpec>& all_kernels();
const KernelSpec* find_kernel(std::string_view name);

// Family tables (one file each).
void append_unary(std::vector<KernelSpec>& out);
void append_binary(std::vector<KernelSpec>& out);     // binary and broadcast
void append_reduction(std::vector<KernelSpec>& out);  // reduction and reduce_to (with broadcast_to)
void append_cast(std::vector<KernelSpec>& out);

std::string_view output_rule_text(OutputRule r);
std::string_view layout_text(Layout l);

}  // namespace kc::contract
