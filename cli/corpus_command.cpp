// `kconform corpus replay PATH...`: grades every stored regression case
// (reports/corpus_file.h) again and requires its recorded outcome. Exit 0
// when every case meets it, 1 when one does not, 2 for a file it cannot read
// (named with its line).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "checks/check.h"
#include "cli/commands.h"
#include "cli/plan.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "reports/corpus_file.h"

namespace kc::cli {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> case_files(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".case") files.push_back(e.path());
    } else if (fs::exists(p)) {
      files.emplace_back(p);
    } else {
      throw UsageError(fmt::format("{}: no such file or folder", p));
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UsageError("no .case file to replay");
  return files;
}

}  // namespace

std::string failure_of(const engine::KernelDTypeResult& r, const std::string& check) {
  const std::string finding = check.rfind("special:", 0) == 0 ? "special" : check;
  for (const auto& f : r.findings)
    if (f.check == finding) return f.failure;
  return "";
}

int corpus_replay(const CorpusCommand& o) {
  const auto files = case_files(o.paths);
  std::map<std::string, std::unique_ptr<Backend>> backends;
  int bad = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UsageError(fmt::format("{}: cannot be read", file.string()));
    std::ostringstream text;
    text << in.rdbuf();
    const reports::CorpusCase c = reports::read_corpus_case(text.str(), file.string());
    auto& backend = backends[c.backend];
    if (!backend) backend = make_backend(c.backend);
    engine::RunOptions opts{.checks = &checks::registry()};
    opts.backend = c.backend;
    opts.profile = *engine::parse_profile(c.profile);
    const contract::KernelSpec& k = *contract::find_kernel(c.kernel);
    const auto r = engine::grade_given_case(k, c.dtype, *backend, opts, gen::Case{c.inputs, Params::parse(c.params)});
    std::vector<std::string> failed;
    for (const auto& t : r.checks)
      if (t.failed > 0) failed.push_back(t.name);
    const bool has = std::find(failed.begin(), failed.end(), c.check) != failed.end();
    const std::string how = failure_of(r, c.check);
    const bool ok = c.expect == "fail" ? has && (c.failure.empty() || how == c.failure) : failed.empty();
    const std::string what = fmt::format("{} {} on {}", c.kernel, dtype_name(c.dtype), c.backend);
    if (ok) {
      if (!o.quiet)
        fmt::print("ok   {}: {} {}\n", file.string(), what,
                   c.expect == "fail" ? fmt::format("still fails {} ({}): {}", c.check, c.failure, r.headline) : "passes");
      continue;
    }
    ++bad;
    fmt::print("FAIL {}: {}: expected {}, got {}\n", file.string(), what,
               c.expect == "fail" ? fmt::format("check {} to fail ({})", c.check, c.failure) : "every check to pass",
               failed.empty() ? "every check passing" : fmt::format("{} failing ({}): {}", fmt::join(failed, ", "), how, r.headline));
  }
  fmt::print("{} of {} stored cases meet their recorded outcome\n", files.size() - bad, files.size());
  return bad > 0 ? 1 : 0;
}

}  // namespace kc::cli
