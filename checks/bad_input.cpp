// Check "bad input": for every precondition of the contract, calls that
// break exactly that rule (built from a valid case by the driver, for the
// rules of its shape, or by generators/invalid.h for the shared ones) must
// each raise a KernelError naming the kernel, the operand and that rule.
// A rule no invalid call could be built for is itself a failure: a check
// that cannot fail is a defect.
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

class BadInput final : public Check {
 public:
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    if (!v.first_valid) return;
    const auto& k = v.c.k;
    for (const auto& rule : k.preconditions) {
      const std::string_view name = rule_name(rule.rule);
      auto& tally = acc.tally("bad-input:" + std::string(name) + " (" + std::string(rule.operand) + ")",
                              engine::CheckKind::bad_input);
      for (int i = 0; i < v.c.opts.invalid_per_rule; ++i) {
        const auto index = static_cast<std::uint64_t>(i);
        auto bad = v.c.driver.violate(k, rule, *v.first_valid, index);
        if (!bad) bad = gen::violate_shared(k, rule, *v.first_valid, index);
        if (!bad) continue;
        std::string what;
        bool ok = false;
        try {
          v.c.backend.run(k.name, bad->inputs, bad->params);
          what = "the invalid call was accepted";
        } catch (const KernelError& e) {
          ok = e.rule() == rule.rule && e.operand() == rule.operand && e.kernel() == k.name;
          if (!ok) what = mismatch(k, rule, e);
        } catch (const KernelFault& e) {
          what = fmt::format("{} on the invalid call instead of a KernelError: {}", e.kind(), e.what());
        } catch (const std::exception& e) {
          what = fmt::format("untyped error instead of KernelError: {}", e.what());
        }
        acc.record(v.c, tally, ok, fmt::format("variant {}", i), [&] {
          // The invalid calls are built from this valid case: the replay names it.
          engine::ElementReport r;
          r.check = tally.name;
          r.case_index = v.first_valid_id;
          r.repro = engine::seed_replay(v.c) + fmt::format(" --case {} --bad-input", v.first_valid_id);
          r.message = fmt::format("{} {}: {} (variant {}): {}\n  inputs: {}\n  replay: {}", k.name, dtype_name(v.c.t),
                                  tally.name, i, what, describe(*bad), r.repro);
          return r;
        });
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
  }
};

}  // namespace

void register_bad_input(Registry& r) {
  r.push_back({.name = "bad_input",
               .applies = [](const contract::KernelSpec&, DType) { return true; },
               .make = [](const contract::Property*) { return std::make_unique<BadInput>(); }});
}

}  // namespace kc::checks
