#include "cli/run_journal.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli/plan.h"
#include "core/error.h"

namespace kc::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kRunFile = "run.json";
constexpr const char* kMarker = ".kconform-journal";

// A result's file name: its key ("exp.f32") made safe for a file name.
std::string file_of(const std::string& key) {
  std::string f;
  for (char c : key) f += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_') ? c : '-';
  return f + ".json";
}

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

RunJournal::RunJournal(fs::path out, json identity, std::vector<std::string> argv, bool resume)
    : dir_(std::move(out) / kFolder) {
  std::error_code ec;
  if (resume) {
    if (!fs::exists(dir_ / kRunFile))
      throw UsageError(fmt::format("--resume {}: there is no journal of a run there ({} is missing): nothing to resume",
                                   dir_.parent_path().string(), (dir_ / kRunFile).string()));
    const json stored = read_json_file(dir_ / kRunFile, "the run's journal");
    if (stored.value("identity", json()) != identity)
      throw UsageError(fmt::format("--resume {}: the journal is of a run with other options ({}); this one has {}",
                                   dir_.parent_path().string(), stored.value("identity", json()).dump(),
                                   identity.dump()));
    run_ = stored.value("run", std::string());
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
      const std::string name = e.path().filename().string();
      if (name == kRunFile || name == kMarker || !name.ends_with(".json")) continue;  // (".part": cut short by the kill)
      const json outcome = json::parse(read_whole(e.path()), nullptr, false);
      // (A result of an earlier run into the same folder is another run's: not kept.)
      if (outcome.is_discarded() || !outcome.contains("key") || outcome.value("run", std::string()) != run_) continue;
      kept_[outcome["key"].get<std::string>()] = outcome["outcome"].get<std::string>();
    }
    return;
  }
  // A fresh run: files an earlier run left are not removed (nothing is
  // deleted before the final swap, which removes the journal with the old
  // folder), they are told apart by this run's own name.
  fs::create_directories(dir_, ec);
  if (ec) throw UsageError(fmt::format("cannot create the run's journal {}: {}", dir_.string(), ec.message()));
  run_ = fmt::format("{}-{}", ::getpid(), std::chrono::steady_clock::now().time_since_epoch().count());
  write_file_whole(dir_ / kMarker, "kconform run journal\n");
  write_file_whole(dir_ / kRunFile, json{{"identity", identity},
                                         {"argv", argv},
                                         {"cwd", fs::current_path(ec).string()},
                                         {"run", run_}}
                                            .dump(1) +
                                        "\n");
}

std::optional<std::string> RunJournal::find(const std::string& key) const {
  const auto it = kept_.find(key);
  if (it == kept_.end()) return std::nullopt;
  return it->second;
}

void RunJournal::put(const std::string& key, const std::string& outcome) {
  kept_[key] = outcome;
  write_file_whole(dir_ / file_of(key), json{{"key", key}, {"run", run_}, {"outcome", outcome}}.dump() + "\n");
}

void RunJournal::keep_in(reports::OutputFolder& folder) const {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec))
    if (e.is_regular_file()) folder.write(fs::path(kFolder) / e.path().filename(), read_whole(e.path()));
}

std::vector<std::string> RunJournal::stored_argv(const fs::path& out, fs::path& cwd) {
  const fs::path run = out / kFolder / kRunFile;
  if (!fs::exists(run))
    throw UsageError(fmt::format("--resume {}: there is no journal of a run there ({} is missing): nothing to resume",
                                 out.string(), run.string()));
  const json j = read_json_file(run, "the run's journal");
  cwd = j.value("cwd", std::string());
  return j.value("argv", std::vector<std::string>{});
}

}  // namespace kc::cli
