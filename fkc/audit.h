// `kconform fkc audit`: every claim of every FKC precision block against
// what a run measured, per kernel and per dtype.
//
// A claim is confirmed when every graded dtype the block accepts meets it,
// refuted when one does not (with the measured figure and the input that
// reached it), unclaimed when the block says `~` (the measured figure is
// shown, ready to replace it), and not measured when the run holds no
// figure for it (a kernel or dtype it did not grade, a check it did not
// make). What each claim is held to:
//   max_ulp N            the integer ulp distance to the correctly rounded
//                        result (accuracy.max_distance) is at most N;
//   max_relative r       |y - z| / |z| over the graded elements is at most r;
//   max_absolute a       |y - z| is at most a;
//   bit_stable_on_same_hardware: true
//                        the determinism check (the same input twice gives
//                        the same bits) passed; `false` claims nothing.
// An element with no finite error (a NaN or an infinity where a number was
// due) refutes every numeric claim.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fkc/document.h"

namespace kc::fkc {

enum class Verdict { confirmed, refuted, unclaimed, not_measured };
std::string_view verdict_name(Verdict v);  // "confirmed", "refuted", "unclaimed", "not measured"

struct ClaimAudit {
  std::string claim;     // max_ulp, max_relative, max_absolute, bit_stable_on_same_hardware
  std::string dtype;
  Verdict verdict = Verdict::not_measured;
  std::string claimed;   // as a figure: "1", "0.001", "true", "~"
  std::string measured;  // "2", "inf", "1.0", "true (1 repeated call gave the same bits)", "" when not measured
  std::string input, input_hex, repro;  // the element at the measured figure, when one is known
};

struct KernelAudit {
  std::string file;
  int line = 0;            // of the block's fence
  int precision_line = 0;  // of its precision: key, where a refuted claim is cited
  std::string kernel;
  std::vector<std::string> dtypes_graded, dtypes_not_graded;  // of the block's dtypes
  std::vector<ClaimAudit> claims;
};

struct Audit {
  std::string run;  // run_summary
  std::vector<KernelAudit> kernels;
  int count(Verdict v) const;
  std::vector<std::string> not_graded() const;  // kernels the run did not grade
};

Audit audit(const std::vector<Document>& docs, const nlohmann::json& results);
nlohmann::json audit_json(const Audit& a);
// The terminal's account: one line per refuted claim (figure, input,
// replay), then the counts and the kernels not graded.
std::string audit_text(const Audit& a, bool verbose);

}  // namespace kc::fkc
