#include "contracts/contract.h"

namespace kc::contract {

std::string_view family_name(Family f) {
  switch (f) {
    case Family::unary: return "unary";
    case Family::binary: return "binary";
    case Family::broadcast: return "broadcast";
    case Family::reduction: return "reduction";
    case Family::reduce_to: return "reduce_to";
    case Family::cast: return "cast";
  }
  return "?";
}

std::string_view accuracy_kind_name(AccuracyKind k) {
  switch (k) {
    case AccuracyKind::exact: return "exact";
    case AccuracyKind::correctly_rounded: return "correctly rounded";
    case AccuracyKind::ulp_bound: return "ulp bound";
    case AccuracyKind::condition_aware: return "condition-aware bound";
  }
  return "?";
}

std::string_view value_class_name(ValueClass c) {
  switch (c) {
    case ValueClass::nan: return "NaN";
    case ValueClass::pos_inf: return "+inf";
    case ValueClass::neg_inf: return "-inf";
    case ValueClass::pos_zero: return "+0";
    case ValueClass::neg_zero: return "-0";
  }
  return "?";
}

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::nan: return "NaN";
    case Outcome::pos_inf: return "+inf";
    case Outcome::neg_inf: return "-inf";
    case Outcome::pos_zero: return "+0";
    case Outcome::neg_zero: return "-0";
    case Outcome::pos_one: return "+1";
    case Outcome::neg_one: return "-1";
    case Outcome::same: return "the input";
  }
  return "?";
}

std::string_view output_rule_text(OutputRule r) {
  switch (r) {
    case OutputRule::same_shape_same_dtype: return "one output, same shape and dtype as the input(s)";
    case OutputRule::broadcast_shape: return "one output of the NumPy broadcast shape of a and b, same dtype";
    case OutputRule::scalar: return "one rank-0 output (shape [], one element), same dtype";
    case OutputRule::dim_removed: return "one output: x's shape with dim removed (no keepdim)";
    case OutputRule::target_shape: return "one output of shape `target`, same dtype";
    case OutputRule::input_shape: return "one output of x's shape, same dtype";
    case OutputRule::same_shape_cast: return "one output of x's shape in the destination dtype";
  }
  return "?";
}

std::string_view layout_text(Layout l) {
  switch (l) {
    case Layout::fresh_buffer:
      return "inputs contiguous row-major, zero offset; output a fresh contiguous buffer that shares no storage with any input";
    case Layout::zero_copy_when_pure_padding:
      return "when the target only adds leading size-1 dims the output shares the input's storage (zero-copy, "
             "ops.rs:1076); otherwise a fresh contiguous buffer";
  }
  return "?";
}

DTypeSet KernelSpec::dtypes() const { return inputs.empty() ? DTypeSet{} : inputs.front().dtypes; }

const Accuracy* KernelSpec::accuracy_for(DType t) const {
  for (const auto& a : accuracy)
    if (a.dtype == t) return &a.accuracy;
  return nullptr;
}

const std::vector<KernelSpec>& all_kernels() {
  static const std::vector<KernelSpec> table = [] {
    std::vector<KernelSpec> t;
    append_unary(t);
    append_binary(t);
    append_reduction(t);
    append_cast(t);
    return t;
  }();
  return table;
}

const KernelSpec* find_kernel(std::string_view name) {
  for (const auto& k : all_kernels())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace kc::contract
