// A run's journal: each finished kernel x dtype result, written to
// `--out DIR`/journal/ the moment it is graded (one file each, whole or
// absent), so that a run killed at any point (SIGKILL, a kernel that takes
// kconform down, a power cut) loses at most the results it was grading.
// `kconform run --resume DIR` grades only what the journal lacks and
// writes the document an uninterrupted run writes. The journal holds the
// run's options and goes when the run completes; a run stopped by a
// signal keeps it beside its partial results.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/output_folder.h"

namespace kc::cli {

class RunJournal {
 public:
  // The journal of the run writing into `out`, for a run whose options are
  // `identity` (what decides its results: run_identity) and command `argv`
  // (the words after `run`). Without `resume`, any journal there is
  // replaced; with it, the journal must exist and hold this identity.
  RunJournal(std::filesystem::path out, nlohmann::json identity, std::vector<std::string> argv, bool resume);
  // The outcome kept for a result, if the journal has it.
  std::optional<std::string> find(const std::string& key) const;
  std::size_t size() const { return kept_.size(); }
  void put(const std::string& key, const std::string& outcome);
  // Copies the journal into the folder that replaces `out` (a partial run:
  // it stays resumable).
  void keep_in(reports::OutputFolder& folder) const;

  // The stored words after `run` of the journal in `out` and the folder
  // the run started in, for `--resume DIR` given alone; a UsageError when
  // there is none.
  static std::vector<std::string> stored_argv(const std::filesystem::path& out, std::filesystem::path& cwd);
  static constexpr const char* kFolder = "journal";

 private:
  std::filesystem::path dir_;
  std::string run_;  // this run's name: results of another run in the same folder are not its
  std::map<std::string, std::string> kept_;
};

}  // namespace kc::cli
