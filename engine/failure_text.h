// What a person reads when something fails: the element or case report
// (input in decimal and hex bits, result, exact value, correctly rounded
// value, error) and the one command that replays it. Built in one string,
// so that parallel output cannot interleave.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "drivers/driver.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "engine/results.h"

namespace kc::engine {

std::string fmt_value(double v);  // 9 significant digits, "NaN"

// The one builder of every replay line kconform prints: `kconform VERB
// --kernel K --dtype T`, then every option of VERB that is not its default
// (--backend, the isolation options, --profile; for run also --cases,
// --sweeps, --no-exhaustive), so that what is replayed is run the same way.
enum class ReplayVerb { run, exhaustive };
std::string replay_command(ReplayVerb verb, std::string_view kernel, DType t, const RunOptions& o);
// replay_command(run, ...) of the context's kernel x dtype.
std::string base_command(const Context& c);
// ... --seed S: the whole run of these options again (a run-level check's
// failure, a campaign batch).
std::string seed_replay(std::string_view kernel, DType t, const RunOptions& o);
std::string seed_replay(const Context& c);
// kconform exhaustive ... [--params P] --range 0xLO:0xHI: a sweep of the
// bit patterns [lo, hi) (a block of one, or the whole sweep).
std::string range_replay(std::string_view kernel, DType t, const RunOptions& o, const Params& p, std::uint64_t lo,
                         std::uint64_t hi);
// " --timeout 0.5 --worker-calls 20": the isolation options not at their default.
std::string isolation_flags(const IsolationOptions& o);
// ... --seed S --case N [--shrink PATH]
std::string case_repro(const Context& c, std::int64_t case_id, const std::vector<int>& path);
// ... --input BITS[,BITS] [--params P]
std::string element_repro(const Context& c, const std::string& hex, const Params& p);

// The element's shown bit patterns, comma-separated ("0x3f80,0x4000").
std::string joined_hex(const Context& c, const drivers::Element& e);
// What makes two failures of one check the same failure: the element's
// input bits (all of them, for an element that depends on a cell).
std::string element_key(const Context& c, const drivers::Element& e);

// One element's report. `exact` is the exact value in words (exact_text, or
// what a property compared against). `alone`: `--input` replays it (the
// element graded alone: a passing element, or an element given alone);
// otherwise the case does. `offer_alone`: a case's failure whose element
// can be graded alone: its `--input` line is added, offered as the element
// by itself, never as the replay (a kernel that fails only in its case,
// at a tail or an offset, passes there; nothing is re-run to find out).
// The tally of the bit-for-bit check against the reference's replayed
// rounding steps (casts, halves' sums): one name for runs and replays.
// The elements with no finite bound (Figures::unbounded): graded against
// the reference's replay, bit for bit, in the reference profile only.
inline constexpr const char* kUnboundedCheck = "semantics where no bound exists: the reference's result, bit for bit";
inline constexpr const char* kSemanticsCheck = "semantics: the reference's rounding steps, bit for bit";
inline constexpr const char* kIsolationCheck = "returns: no crash, abort, exception, hang or stray write";
inline constexpr const char* kReferenceChoiceCheck = "reference choice: NaN, tie and evaluation-order choices";

ElementReport element_report(const Context& c, const std::string& check, std::int64_t case_id,
                             const std::vector<int>& path, const gen::Case& cs, const drivers::Element& e, double y,
                             std::uint64_t y_bits, const Grade& g, const std::string& exact, bool alone,
                             bool offer_alone = false);
// A whole case's report (output shape, layout, a relational property...).
ElementReport case_report(const Context& c, const std::string& check, std::int64_t case_id,
                          const std::vector<int>& path, const gen::Case& cs, const std::string& what);

}  // namespace kc::engine
