// The interface of the checks beyond the per-element accuracy grade, owned
// by the engine: what a check sees of a graded case (CaseView) and of the
// finished run (RunView), the hooks it implements (Check), and the table of
// kinds a run is handed (CheckRegistry, RunOptions::checks). The checks
// themselves live a layer above, in checks/, one a file; the engine knows
// none of them by name.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "contracts/contract.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "engine/tally.h"
#include "generators/case.h"
#include "oracles/mp.h"

namespace kc::engine {

// An output element's exact evaluation as grading computed it, for the
// checks that relate exact values (Check::needs_exacts): the exact value,
// the magnitude S of a condition-aware bound, and whether the element is
// graded against the reference's replay. Handed over, never evaluated again.
struct ElementExact {
  oracle::Mp value;
  std::optional<oracle::Mp> magnitude;
  bool replayed = false;
};

// One graded case, as a check sees it.
struct CaseView {
  const Context& c;
  const gen::Case& cs;
  std::int64_t case_id;          // -2: the dedicated statistics case
  const std::vector<int>& path;  // shrink path (replay with --shrink)
  // The kernel's outputs, in the order it returns them (drivers::
  // Expectation::parts); y is the first, the one output of most kernels.
  std::span<const Tensor> outputs;
  const Tensor& y;
  bool statistics_case;          // the case the per-case statistics are computed on
  std::span<const Grade> grades;  // per output element, when the check asked for them
  // Per output element (its index in the outputs' sequence), when a check
  // asked for them: empty where grading decided it without an evaluation
  // (a special-value rule).
  std::span<const std::optional<ElementExact>> exacts = {};
};

// The run after its last case.
struct RunView {
  const Context& c;
  const gen::Case* first_valid;  // a valid case (the first non-empty one), if any
  std::int64_t first_valid_id;
  // Case `id` of the run again (as --case replays it); empty where the run
  // cannot rebuild its cases.
  std::function<gen::Case(std::int64_t)> case_of = {};
};

class Check {
 public:
  virtual ~Check() = default;
  virtual void on_case(const CaseView&, Tallies&) const {}
  virtual void on_finish(const RunView&, Tallies&) const {}
  // Whether on_case needs the per-element grades of this case.
  virtual bool needs_grades(const CaseView&) const { return false; }
  // Whether on_case needs the exact evaluations of this case's elements
  // (every element then graded exactly, once, and its evaluation kept).
  virtual bool needs_exacts(const CaseView&) const { return false; }
};
using CheckList = std::vector<std::unique_ptr<Check>>;

// A registered check: its name, where it applies, how it is made.
struct CheckEntry {
  std::string_view name;
  // Property checks run once per contract property naming them; the others
  // once per kernel x dtype where `applies` says so.
  bool per_property = false;
  // A statistic of the contract's accuracy model (the bias test, the case
  // statistics): it does not run where an accuracy tier's bound replaces
  // the model (engine/accuracy_tier.h).
  bool of_contract_model = false;
  std::function<bool(const contract::KernelSpec&, DType)> applies = {};
  // Start-up check of a property entry (property checks): "" when it fits.
  std::function<std::string(const contract::KernelSpec&, const contract::Property&)> validate = {};
  std::function<std::unique_ptr<Check>(const contract::Property*)> make;
};

// The kinds a run is handed, in the order their hooks run.
struct CheckRegistry {
  std::vector<CheckEntry> kinds;

  void push_back(CheckEntry k) { kinds.push_back(std::move(k)); }

  const CheckEntry* find(std::string_view name) const;
  // The checks of one kernel x dtype run: the run checks that apply, then
  // one per property the entry names, in the entry's order; or only the
  // check called `only` (a replay of its failure).
  // With `tier_bound`, the contract model's statistics are left out.
  CheckList for_run(const contract::KernelSpec& k, DType t, std::optional<std::string_view> only = std::nullopt,
                    bool tier_bound = false) const;
  // Start-up: every property names a registered property check that accepts it.
  std::vector<std::string> validate_properties(const contract::KernelSpec& k) const;
};

// The registry of these options, or std::logic_error: a run handed no
// checks would grade no property and still pass.
const CheckRegistry& handed_checks(const RunOptions& opts);

}  // namespace kc::engine
