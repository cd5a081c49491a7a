// Writing kconform's outputs so that they never destroy what kconform did
// not create and never half-exist.
//
// An output folder (a run's `--out`: results.json and site/; a report's
// site) is built in a staging folder beside it and replaces it in one
// step (renameat2 RENAME_EXCHANGE), so a reader sees the old contents or the
// new ones, never a mixture. Every byte written is checked (a full disk is
// an error and the previous output stays), temporary files are removed on
// every error path, and the leftovers of a killed run are removed by the
// next one. A folder is kconform's when it carries the marker file
// `.kconform` of its kind, or is empty, or holds nothing but what an older
// kconform wrote there; any other folder is refused before work starts.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace kc::reports {

// An output that cannot be prepared or written: names the path and the
// operating system's reason. A usage error (exit 2).
class OutputError : public UsageError {
 public:
  using UsageError::UsageError;
};

enum class FolderKind { results, site, fkc };  // fkc: `kconform fkc export`

class OutputFolder {
 public:
  // Checks that `dir` can be written by kconform and reserves it, before
  // any work starts: throws OutputError if it is not a folder, is a folder
  // kconform did not write, is or contains one of `inputs`, lies under a
  // file, is unwritable, or has too long a name. Removes the staging
  // folders that killed runs left beside it.
  OutputFolder(std::filesystem::path dir, FolderKind kind, const std::vector<std::filesystem::path>& inputs = {});
  ~OutputFolder();  // without commit: the staging folder goes, `dir` stays as it was
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  // Writes `rel` (a path inside the folder) into the staging folder, every
  // byte checked, flushed to disk.
  void write(const std::filesystem::path& rel, std::string_view data);
  // Replaces `dir` with everything written, in one step.
  void commit();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_, staging_;
  FolderKind kind_;
  bool created_dir_ = false, committed_ = false;
};

// A file written as a stream during a run (`--dump`): opened before work
// starts (an OutputError if it cannot be created), written to a temporary
// sibling, and renamed into place only by `commit`, after a last check of
// every byte. Without commit the temporary file is removed.
class StagedFile {
 public:
  explicit StagedFile(std::filesystem::path path);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  std::ostream& stream() { return out_; }
  void commit();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_, tmp_;
  std::ofstream out_;
  bool committed_ = false;
};

// True when `inner` is `outer` or lies inside it (both resolved as far as they exist).
bool is_within(const std::filesystem::path& inner, const std::filesystem::path& outer);

}  // namespace kc::reports
