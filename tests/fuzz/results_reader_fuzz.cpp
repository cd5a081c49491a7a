// libFuzzer target: the results-document reader, the merge of runs and the
// site renderer on arbitrary bytes. Expected rejections are UsageErrors (and nlohmann type
// errors deep in a page, which `kconform report` turns into exit 2); any
// crash, sanitizer report, leak, hang or other exception is a finding.
// Built and run by tests/fuzz_test.sh (Debian's clang, -fsanitize=fuzzer).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "reports/site/compare_page.h"
#include "reports/merge.h"
#include "reports/site/site.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto doc = kc::reports::site::parse_document(text, "fuzz input");
    kc::reports::site::Diff diff;
    const auto files = kc::reports::site::render_site(doc, &doc, &diff);
    (void)files;
    // The same document as a second run of another seed: every kernel x
    // dtype goes through merge_results, and the merged document renders.
    auto other = doc;
    if (other.contains("run") && other["run"].is_object()) other["run"]["seed"] = "fuzz-other-seed";
    const auto merged = kc::reports::merge_documents({doc, other});
    (void)kc::reports::site::render_site(merged, nullptr, nullptr);
    (void)kc::reports::site::render_comparison({doc, other});
  } catch (const kc::UsageError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
