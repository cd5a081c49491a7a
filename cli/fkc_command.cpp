// `kconform fkc audit` and `kconform fkc export`: the tensor framework's FKC
// precision claims checked against, and replaced by, a run's figures
// (fkc/audit.h, fkc/export.h).
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.h"
#include "core/error.h"
#include "fkc/audit.h"
#include "fkc/export.h"
#include "reports/output_folder.h"
#include "reports/site/site.h"

namespace kc::cli {

namespace {

std::vector<fkc::Document> load_all(const std::vector<std::string>& files) {
  std::vector<fkc::Document> docs;
  for (const auto& f : files) docs.push_back(fkc::load_document(f));
  return docs;
}

}  // namespace

int fkc_audit(const FkcOptions& o) {
  const auto docs = load_all(o.files);
  const nlohmann::json results = reports::site::load_document(o.results);
  const fkc::Audit a = fkc::audit(docs, results);
  if (!o.json_out.empty()) {
    reports::StagedFile f(o.json_out);
    f.stream() << fkc::audit_json(a).dump(2) << "\n";
    f.commit();
  }
  fmt::print("{}", fkc::audit_text(a, o.verbose));
  return a.count(fkc::Verdict::refuted) > 0 ? 1 : 0;
}

int fkc_export(const FkcOptions& o) {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  std::vector<fs::path> inputs{o.results};
  for (const auto& f : o.files) {
    if (!names.insert(fs::path(f).filename().string()).second)
      throw UsageError(fmt::format("two FKC files are named {}; the exported files would collide in {}", fs::path(f).filename().string(), o.out));
    inputs.emplace_back(f);
  }
  reports::OutputFolder out(o.out, reports::FolderKind::fkc, inputs);
  const auto docs = load_all(o.files);
  const nlohmann::json results = reports::site::load_document(o.results);
  std::vector<std::string> kept;
  std::size_t replaced = 0;
  for (const auto& d : docs) {
    const fkc::Exported e = fkc::export_document(d, results);
    out.write(fs::path(d.path).filename(), e.text);
    replaced += e.replaced.size();
    kept.insert(kept.end(), e.not_graded.begin(), e.not_graded.end());
  }
  out.commit();
  fmt::print("wrote {} FKC files to {}: {} precision blocks measured, {} kept (not graded by this run{}{})\n", docs.size(), o.out,
             replaced, kept.size(), kept.empty() ? "" : ": ", fmt::join(kept, ", "));
  return 0;
}

}  // namespace kc::cli
