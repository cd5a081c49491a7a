// libFuzzer target: the FKC reader on arbitrary bytes, then the audit and
// the export of what it read against a small results document, and the
// export read back. Expected rejections are UsageErrors naming a file and
// line; any crash, sanitizer report, leak, hang or other exception is a
// finding, and so is an export that cannot be read back or that changes a
// byte outside the precision blocks. Built and run by tests/fuzz_test.sh.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "fkc/audit.h"
#include "fkc/document.h"
#include "fkc/export.h"

namespace {

const nlohmann::json& results() {
  static const nlohmann::json r = nlohmann::json::parse(R"({
    "run": {"kconform": "0.1.0", "backend": "reference", "seed": 1, "commit": "fuzz", "cases_per_kernel": 5},
    "kernels": [{"name": "exp", "contract": {"accuracy": [{"dtype": "f32", "kind": "ulp bound"}]},
                 "results": [{"dtype": "f32", "accuracy": {"graded": 10, "max_distance": 1, "max_frac_ulp": 0.6,
                   "max_relative": 1e-7, "max_absolute": "inf", "at_max_distance": {"input": 1, "input_hex": "0x3f800000"}},
                   "checks": [{"kind": "determinism", "passed": 1, "failed": 0}], "failures": []}]},
                {"name": "sum_all", "contract": {"accuracy": [{"dtype": "f32", "kind": "condition-aware bound"}]},
                 "results": [{"dtype": "f32", "accuracy": {"graded": 3, "max_distance": 9, "max_frac_ulp": "inf"},
                   "checks": [], "failures": [{"check": "accuracy", "input_hex": "0x1"}]}]}]})");
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  kc::fkc::Document d;
  try {
    d = kc::fkc::parse_document(text, "fuzz.fkc.md");
  } catch (const kc::UsageError&) {
    return 0;
  }
  const auto a = kc::fkc::audit({d}, results());
  (void)kc::fkc::audit_text(a, true);
  (void)kc::fkc::audit_json(a).dump();
  kc::fkc::Exported e;
  try {
    e = kc::fkc::export_document(d, results());
  } catch (const kc::UsageError&) {  // a layout it cannot replace: refused, never corrupted
    return 0;
  }
  // The export must read back, block for block, with its bytes outside the
  // measured blocks unchanged.
  const auto back = kc::fkc::parse_document(e.text, "exported.fkc.md");
  if (back.blocks.size() != d.blocks.size()) std::abort();
  if (e.text.substr(0, back.blocks.empty() ? e.text.size() : back.blocks[0].precision_begin) !=
      text.substr(0, d.blocks.empty() ? text.size() : d.blocks[0].precision_begin))
    std::abort();
  return 0;
}
