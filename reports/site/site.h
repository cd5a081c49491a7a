// The static conformance site: pages rendered from results documents
// (docs/results-schema.md) only, never from engine state, so a page says
// exactly what the JSON says and a document from another machine or a later
// family renders the same way. Nothing here knows a kernel family: features
// appear when the data for them is present (an error profile with points, a
// non-null normalized error).
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kc::reports::site {

using nlohmann::json;

// Reads and checks one results document; throws UsageError naming the file
// and what is wrong, so `kconform report` can exit 2 with a clear message:
// a folder or unreadable file, a document too large, nested too deep
// (checked on the text, before parsing), not JSON, not a results document,
// or with more entries than a page can draw. No input may crash the reader
// (tests/fuzz/results_reader_fuzz.cpp).
json load_document(const std::filesystem::path& p);
json parse_document(std::string_view text, const std::string& where);

// The reader's limits, far above what a run writes.
inline constexpr std::size_t kMaxBytes = 512u << 20;  // a full run writes about 6 MB
inline constexpr int kMaxDepth = 32;
inline constexpr std::size_t kMaxString = 1u << 20;
inline constexpr std::size_t kMaxKernels = 100000, kMaxResults = 64, kMaxListed = 100000, kMaxBins = 4096;

// Checks the fields the renderer relies on (schema tag, run, kernels with
// results); throws UsageError with `where` in the message.
void validate_document(const json& doc, const std::string& where);

// A copy with every field the pages read present (null where absent). The
// page functions below expect a normalized document; render_site and
// compare normalize for you.
json normalize(const json& doc);

// Files of a site: (file name, content). Pages are rendered into memory first
// so a rendering error never reaches the disk.
using Files = std::vector<std::pair<std::string, std::string>>;

std::string index_page(const json& doc, bool has_diff);
std::string kernel_page(const json& doc, const json& kernel);

// One kernel x dtype compared across two runs.
struct Change {
  std::string kernel, dtype, what;  // what: a readable reason, e.g. "max_frac_ulp 0.5 -> 2.1"
  bool same_inputs = false;         // both graded the same inputs (equal inputs_digest)
};
// Like is compared with like (diff_page.cpp, kRegressionRule): on the same
// inputs any change is real, so any worsening is a regression; across
// seeds a regression is a verdict that stopped passing or a check that
// crossed its bound, and figures that moved otherwise are drift. Results
// missing from the new run are listed apart: a partial run is not a
// regression of what it did not run.
struct Diff {
  std::vector<Change> regressions, fixed, improved, drift, missing, added;
  bool regressed() const { return !regressions.empty(); }
};
Diff compare(const json& old_doc, const json& new_doc);
std::string diff_page(const json& old_doc, const json& new_doc, const Diff& d);

Files render_site(const json& doc, const json* baseline, Diff* diff_out);

// Writes `files` into `dir` atomically (reports/output_folder.h): into a
// staging folder, which then replaces `dir` in one step; on any failure
// `dir` is left as it was. Refuses a folder kconform did not write.
void write_folder_atomically(const std::filesystem::path& dir, const Files& files);

}  // namespace kc::reports::site
