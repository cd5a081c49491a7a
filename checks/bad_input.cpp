// Check "bad input": for every precondition of the contract, calls that
// break exactly that rule (built from a valid case by the driver, for the
// rules of its shape, or by generators/invalid.h for the shared ones) must
// each raise a KernelError naming the kernel, the operand and that rule.
// A rule no invalid call could be built for is itself a failure: a check
// that cannot fail is a defect. A rule that is the reference's own limit
// (Precondition::reference_limit) also accepts the operation's defined
// result in the conformance profile; its rejection is then a
// reference-profile check of its own.
#include <fmt/format.h>

#include "checks/check.h"
#include "core/error.h"
#include "generators/invalid.h"

namespace kc::checks {

namespace {

std::string describe(const gen::Case& bad) {
  if (bad.inputs.empty()) return "none";
  return fmt::format("{} {} ({} bytes), params {}", dtype_name(bad.inputs[0].dtype()),
                     dims_to_string(bad.inputs[0].dims()), bad.inputs[0].byte_size(), bad.params.to_string());
}

// What a KernelError raised for `rule` got wrong. A rule that is no name
// of core/rules.h (a plug-in's own text) is said to be one.
std::string mismatch(const contract::KernelSpec& k, const contract::Precondition& rule, const KernelError& e) {
  std::string what = fmt::format("expected rule '{}' on operand '{}' of kernel '{}', got: {}", rule_name(rule.rule),
                                 rule.operand, k.name, e.what());
  if (e.rule() == Rule::unknown)
    what += fmt::format(" (rule '{}' is not a rule kconform knows: see `kconform list --json`)", e.rule_text());
  return what;
}

// What an invalid call gave: ok, or what was wrong; `defined`: it returned
// the rule's defined result (a reference_limit rule, contracts/contract.h).
struct Outcome {
  bool ok = false, defined = false, ungraded = false;
  std::string what;
};

// The result of a call the reference rejects though the operation defines
// it, where the rule computes it (squeeze's no-op): accepted where it is
// that result, bit for bit.
Outcome computed_result(const contract::Precondition& rule, const gen::Case& bad, const std::vector<Tensor>& out) {
  const std::vector<Tensor> want = rule.defined_result(bad.inputs, bad.params);
  bool same = out.size() == want.size();
  for (std::size_t i = 0; same && i < out.size(); ++i) {
    same = out[i].dims() == want[i].dims() && out[i].dtype() == want[i].dtype();
    for (std::int64_t j = 0; same && j < want[i].numel(); ++j) same = out[i].bits_at(j) == want[i].bits_at(j);
  }
  if (same) return {.ok = true, .defined = true};
  return {.what = fmt::format("returned {} {} where the defined result is {} {}{}", out.empty() ? "no" : dtype_name(out[0].dtype()),
                              out.empty() ? "output" : dims_to_string(out[0].dims()), dtype_name(want[0].dtype()),
                              dims_to_string(want[0].dims()), out.size() == want.size() ? " (or other values)" : "")};
}

// The same, where that result is empty: accepted where it is of the
// expected shapes and dtypes (the driver's expected output for the call).
Outcome defined_result(const RunView& v, const contract::Precondition& rule, const gen::Case& bad,
                       const std::vector<Tensor>& out) {
  if (rule.defined_result) return computed_result(rule, bad, out);
  const drivers::Expectation want = v.c.driver.expected_output(v.c.k, bad);
  if (want.numel() != 0) return {.what = "the call the reference rejects returned a result that is not empty"};
  bool same = out.size() == want.parts.size();
  for (std::size_t i = 0; same && i < out.size(); ++i)
    same = out[i].dims() == want.parts[i].dims && out[i].dtype() == want.parts[i].dtype;
  if (same) return {.ok = true, .defined = true};
  return {.what = fmt::format("returned {} {} where the defined result is {} {}", out.empty() ? "no" : dtype_name(out[0].dtype()),
                              out.empty() ? "output" : dims_to_string(out[0].dims()), dtype_name(want.parts[0].dtype),
                              dims_to_string(want.parts[0].dims))};
}

// `ungraded`: an answer is accepted, not graded (a rule's ungraded_result,
// or a dtype the backend declares).
Outcome call_invalid(const RunView& v, const contract::Precondition& rule, const gen::Case& bad, bool ungraded) {
  const auto& k = v.c.k;
  try {
    const std::vector<Tensor> out = v.c.backend.run(k.name, bad.inputs, bad.params);
    if (ungraded) return {.ok = true, .defined = true, .ungraded = true};
    if (rule.reference_limit) return defined_result(v, rule, bad, out);
    return {.what = "the invalid call was accepted"};
  } catch (const KernelError& e) {
    const bool ok = e.rule() == rule.rule && e.operand() == rule.operand && e.kernel() == k.name;
    return {.ok = ok, .what = ok ? "" : mismatch(k, rule, e)};
  } catch (const KernelFault& e) {
    return {.what = fmt::format("{} on the invalid call instead of a KernelError: {}", e.kind(), e.what())};
  } catch (const std::exception& e) {
    return {.what = fmt::format("untyped error instead of KernelError: {}", e.what())};
  }
}

// A kernel dtype the backend declares is no bad input for it: where the
// reference's dtype table is narrower than the operation's (conv2d and
// attention_naive in bf16, the movers in u32), a library that computes
// the kernel in that dtype may answer the call (docs/conformance-audit.md).
// Its answer has no contract to be graded against: it passes the
// conformance profile as not graded (a crash still fails), the reference
// profile's rejection check fails, and `kconform list --backend` names
// the dtype.
bool declared_dtype(const RunView& v, const contract::Precondition& rule, const gen::Case& bad) {
  if (rule.rule != Rule::dtype_unsupported || v.c.k.operand_index(rule.operand) != 0) return false;
  // (A backend declares the union of its operands' dtypes: one the contract
  // lists for another operand, an index's u32, says nothing of x.)
  const DType t = bad.inputs.at(0).dtype();
  const auto declared = v.c.backend.supported(v.c.k.name);
  return declared && declared->contains(t) && !v.c.k.operand_dtypes().contains(t);
}

// The call in the declared dtype made whole: every operand the valid call
// has in x's dtype (conv2d's weight and bias) converted to it, as a
// library's own call in that dtype would be (x alone in it is a mixed call,
// which the library may reject as a mismatch).
gen::Case in_declared_dtype(const RunView& v, gen::Case bad) {
  const DType from = v.first_valid->inputs.at(0).dtype(), t = bad.inputs.at(0).dtype();
  for (std::size_t i = 1; i < bad.inputs.size(); ++i) {
    if (bad.inputs[i].dtype() != from) continue;
    Tensor y(t, bad.inputs[i].dims());
    for (std::int64_t j = 0; j < y.numel(); ++j)
      y.set_bits(j, double_to_bits(t, round_to_format(bad.inputs[i].value_at(j), t)));
    bad.inputs[i] = std::move(y);
  }
  return bad;
}

class BadInput final : public Check {
 public:
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    if (!v.first_valid) return;
    for (const auto& rule : v.c.k.preconditions) judge(v, rule, acc);
  }

 private:
  static void judge(const RunView& v, const contract::Precondition& rule, engine::Tallies& acc) {
    const auto& k = v.c.k;
    const std::string check = "bad-input:" + std::string(rule_name(rule.rule)) + " (" + std::string(rule.operand) + ")";
    auto& tally = acc.tally(check, engine::CheckKind::bad_input);
    for (int i = 0; i < v.c.opts.invalid_per_rule; ++i) {
      const auto index = static_cast<std::uint64_t>(i);
      auto bad = v.c.driver.violate(k, rule, *v.first_valid, index);
      if (!bad) bad = gen::violate_shared(k, rule, *v.first_valid, index);
      if (!bad) continue;
      const bool declared = declared_dtype(v, rule, *bad);
      if (declared) bad = in_declared_dtype(v, *bad);
      const Outcome o = call_invalid(v, rule, *bad, declared || (rule.reference_limit && rule.ungraded_result));
      record(v, acc, tally, i, *bad, o.ok, o.what);
      // The reference's own limit: its rejection is the reference profile's
      // question, the defined result another correct implementation's answer.
      if ((rule.reference_limit || declared) && o.ok)
        record(v, acc, acc.tally(check + ", rejected as the reference does", engine::CheckKind::bad_input,
                                 engine::Profile::reference),
               i, *bad, !o.defined,
               declared ? "returned a result in a dtype the backend declares and the reference rejects (no contract "
                          "covers it: not graded)"
               : o.ungraded ? "returned a result where the reference rejects the call (the operation defines one; "
                              "kconform has no oracle for it: not graded)"
                            : "returned the defined result, where the reference rejects the call");
    }
    if (tally.passed + tally.failed == 0) {
      acc.record(v.c, tally, false, "no variant", [&] {
        engine::ElementReport r;
        r.check = tally.name;
        r.message = fmt::format("{} {}: {}: no invalid input could be generated for this rule", k.name,
                                dtype_name(v.c.t), tally.name);
        return r;
      });
    }
  }
  static void record(const RunView& v, engine::Tallies& acc, engine::CheckTally& tally, int i, const gen::Case& bad,
                     bool ok, const std::string& what) {
    acc.record(v.c, tally, ok, fmt::format("variant {}", i), [&] {
      // The invalid calls are built from this valid case: the replay names it.
      engine::ElementReport r;
      r.check = tally.name;
      r.case_index = v.first_valid_id;
      r.repro = engine::seed_replay(v.c) + fmt::format(" --case {} --bad-input", v.first_valid_id);
      r.message = fmt::format("{} {}: {} (variant {}): {}\n  inputs: {}\n  replay: {}", v.c.k.name, dtype_name(v.c.t),
                              tally.name, i, what, describe(bad), r.repro);
      return r;
    });
  }
};

}  // namespace

void register_bad_input(Registry& r) {
  r.push_back({.name = "bad_input",
               .applies = [](const contract::KernelSpec&, DType) { return true; },
               .make = [](const contract::Property*) { return std::make_unique<BadInput>(); }});
}

}  // namespace kc::checks
