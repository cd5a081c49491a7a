// `kconform report`: results JSON in, static site out. Works from the
// documents alone, so a results file from CI or another machine renders the
// same as one from this run.
#include <chrono>

#include <fmt/format.h>

#include "cli/commands.h"
#include "core/error.h"
#include "reports/output_folder.h"
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
  const nlohmann::json doc = site::merge_documents(docs);
  nlohmann::json baseline;
  if (!o.baseline.empty()) baseline = site::load_document(o.baseline);
  site::Diff diff;
  site::Files files;
  try {
    files = site::render_site(doc, o.baseline.empty() ? nullptr : &baseline, &diff);
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
  auto print = [](const char* title, const std::vector<site::Change>& v) {
    for (const auto& c : v) fmt::print("{}: {} {}: {}\n", title, c.kernel, c.dtype, c.what);
  };
  print("REGRESSION new failure", diff.new_failures);
  print("REGRESSION error increased", diff.error_up);
  print("REGRESSION coverage dropped", diff.coverage_dropped);
  if (!o.quiet) print("fixed", diff.fixed);
  fmt::print("{}: {} new failures, {} error increases, {} coverage drops, {} fixed (see {}/diff.html)\n",
             diff.regressed() ? "REGRESSED" : "no regression", diff.new_failures.size(), diff.error_up.size(),
             diff.coverage_dropped.size(), diff.fixed.size(), o.out);
  return diff.regressed() ? 1 : 0;
}

}  // namespace kc::cli
