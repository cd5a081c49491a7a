// `kconform report`: results JSON in, static site out. Works from the
// documents alone, so a results file from CI or another machine renders the
// same as one from this run.
#include <chrono>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/error.h"
#include "reports/output_folder.h"
#include "reports/site/compare_page.h"
#include "reports/merge.h"
#include "reports/site/site.h"

namespace kc::cli {

int report(const ReportOptions& o) {
  namespace site = reports::site;
  const auto start = std::chrono::steady_clock::now();
  // The output first: a folder kconform did not write, or one holding an
  // input, is refused before anything is read or drawn.
  std::vector<std::filesystem::path> inputs(o.inputs.begin(), o.inputs.end());
  if (!o.baseline.empty()) inputs.push_back(o.baseline);
  reports::OutputFolder out(o.out, reports::FolderKind::site, inputs);
  std::vector<nlohmann::json> docs;
  for (const auto& p : o.inputs) docs.push_back(site::load_document(p));
  nlohmann::json baseline;
  if (!o.baseline.empty()) baseline = site::load_document(o.baseline);
  site::Diff diff;
  site::Files files;
  if (o.compare && !o.baseline.empty()) throw UsageError("--compare and --baseline cannot be combined: compare backends, or diff a run against its baseline");
  try {
    if (o.compare) {
      files = site::render_comparison(docs);
    } else {
      const nlohmann::json doc = reports::merge_documents(docs);
      files = site::render_site(doc, o.baseline.empty() ? nullptr : &baseline, &diff);
    }
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong type deep in a document: still the input's fault, so exit 2.
    throw UsageError(fmt::format("invalid results document: {}", e.what()));
  }
  for (const auto& [name, content] : files) out.write(name, content);
  out.commit();
  std::size_t bytes = 0;
  for (const auto& [_, content] : files) bytes += content.size();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!o.quiet)
    fmt::print("wrote {} pages ({} bytes) to {} in {:.2f} s\n", files.size(), bytes, o.out, secs);
  if (o.baseline.empty()) return 0;
  // Regressions first and each on its line; the rest as counts (a partial
  // run's missing results must not bury its one regression).
  for (const auto& c : diff.regressions)
    fmt::print("REGRESSION {} {} ({} inputs): {}\n", c.kernel, c.dtype, c.same_inputs ? "same" : "other", c.what);
  if (!o.quiet)
    for (const auto& c : diff.fixed) fmt::print("fixed {} {}: {}\n", c.kernel, c.dtype, c.what);
  fmt::print("{}: {} regressions, {} fixed, {} improved, {} drift on other inputs, {} missing from this run, {} new "
             "(see {}/diff.html)\n",
             diff.regressed() ? "REGRESSED" : "no regression", diff.regressions.size(), diff.fixed.size(),
             diff.improved.size(), diff.drift.size(), diff.missing.size(), diff.added.size(), o.out);
  return diff.regressed() ? 1 : 0;
}

}  // namespace kc::cli
