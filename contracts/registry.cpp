// The contract table and the names of its enumerations.
#include "contracts/contract.h"

#include <fmt/format.h>

namespace kc::contract {

std::string_view param_kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::integer: return "integer";
    case ParamKind::real: return "real";
    case ParamKind::shape: return "shape";
  }
  return "?";
}

std::string bound_summary(const Accuracy& a) {
  switch (a.kind) {
    case AccuracyKind::exact: return "exact";
    case AccuracyKind::correctly_rounded: return "correctly rounded";
    case AccuracyKind::ulp_bound:
      return (a.param_bound ? fmt::format("<= bound({}) ulp", a.bound_param) : fmt::format("<= {:g} ulp", a.max_frac_ulp)) +
             (a.max_distance >= 0 ? fmt::format(", distance <= {}", a.max_distance) : "");
    case AccuracyKind::condition_aware:
      return fmt::format("normalized error <= 1 (K = {:g}, u of {})", a.magnitude_coeff, dtype_name(a.work));
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

std::string_view layout_text(Layout l) {
  switch (l) {
    case Layout::fresh_buffer:
      return "inputs contiguous row-major, zero offset; output a fresh contiguous buffer that shares no storage with any input";
    case Layout::zero_copy_when_pure_padding:
      return "when the target only adds leading size-1 dims the output shares the input's storage (zero-copy, "
             "ops.rs:1076); otherwise a fresh contiguous buffer";
    case Layout::zero_copy:
      return "the output shares the input's storage: metadata only, the reference's `from_arc` (ops.rs:841); a copy "
             "is as correct (the reference profile's layout check)";
  }
  return "?";
}

DTypeSet KernelSpec::dtypes() const { return inputs.empty() ? DTypeSet{} : inputs.front().dtypes; }
DTypeSet KernelSpec::operand_dtypes() const {
  DTypeSet all;
  for (const auto& in : inputs)
    for (DType t : in.dtypes.list()) all.insert(t);
  return all;
}

const Accuracy* KernelSpec::accuracy_for(DType t) const {
  for (const auto& a : accuracy)
    if (a.dtype == t) return &a.accuracy;
  return nullptr;
}

const Param* KernelSpec::param(std::string_view n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

bool KernelSpec::has_rule(Rule rule) const {
  for (const auto& p : preconditions)
    if (p.rule == rule) return true;
  return false;
}

int KernelSpec::operand_index(std::string_view n) const {
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == n) return static_cast<int>(i);
  return -1;
}

const std::vector<KernelSpec>& all_kernels() {
  static const std::vector<KernelSpec> table = [] {
    std::vector<KernelSpec> t;
    register_all(t);
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
