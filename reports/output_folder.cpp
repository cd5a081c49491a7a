#include "reports/output_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <set>

#include <fmt/format.h>

namespace kc::reports {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarker = ".kconform";
constexpr const char* kStagingPrefix = ".kconform-staging-";

std::string_view kind_name(FolderKind k) {
  return k == FolderKind::results ? "results" : k == FolderKind::site ? "site" : "fkc";
}
std::string marker_text(FolderKind k) { return fmt::format("kconform {} folder\n", kind_name(k)); }

[[noreturn]] void fail(const fs::path& p, const std::string& what, int err) {
  throw OutputError(fmt::format("cannot write '{}': {}{}", p.string(), what, err ? ": " + std::string(std::strerror(err)) : ""));
}

// write(2) until every byte is out, then fsync and close, checking each.
void write_all(const fs::path& real, const fs::path& shown, std::string_view data) {
  const int fd = ::open(real.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(shown, "cannot create the file", errno);
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      fail(shown, fmt::format("only {} of {} bytes written", done, data.size()), err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 && errno != EINVAL) {
    const int err = errno;
    ::close(fd);
    fail(shown, "flushing to disk failed", err);
  }
  if (::close(fd) != 0) fail(shown, "closing failed", errno);
}

void sync_dir(const fs::path& d) {
  const int fd = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);  // best effort: the rename is already atomic
  ::close(fd);
}

fs::path parent_of(const fs::path& p) {
  const fs::path abs = fs::absolute(p);
  return abs.has_parent_path() ? abs.parent_path() : fs::path("/");
}

// What an older kconform wrote there, with no marker yet.
bool legacy_contents(const fs::path& dir, FolderKind kind) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (kind == FolderKind::results) {
      if (name == "results.json" && e.is_regular_file()) continue;
      if (name == "site" && e.is_directory()) continue;
      // A killed run's journal (cli/run_journal.h), in a folder it had just created.
      if (name == "journal" && e.is_directory() && fs::exists(e.path() / ".kconform-journal")) continue;
    } else if (kind == FolderKind::fkc) {
      // Exported FKC files always carry the marker: no older layout exists.
    } else if (e.is_regular_file() && name.size() > 5 && name.ends_with(".html")) {
      continue;
    }
    return false;
  }
  return !ec;
}

// Removes the staging folders beside `parent` whose process is gone.
void remove_leftovers(const fs::path& parent) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with(kStagingPrefix) || !e.is_directory()) continue;
    const long pid = std::strtol(name.c_str() + std::strlen(kStagingPrefix), nullptr, 10);
    if (pid <= 0 || pid == ::getpid()) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    if (!fs::exists(e.path() / kMarker)) continue;
    fs::remove_all(e.path(), ec);
  }
}

std::atomic<unsigned> staging_counter{0};

}  // namespace

bool is_within(const fs::path& inner, const fs::path& outer) {
  std::error_code ec;
  const fs::path a = fs::weakly_canonical(inner, ec), b = fs::weakly_canonical(outer, ec);
  auto ia = a.begin();
  for (auto ib = b.begin(); ib != b.end(); ++ib, ++ia) {
    if (ib->empty()) continue;  // a trailing separator
    if (ia == a.end() || *ia != *ib) return false;
  }
  return true;
}

OutputFolder::OutputFolder(fs::path dir, FolderKind kind, const std::vector<fs::path>& inputs)
    : dir_(std::move(dir)), kind_(kind) {
  if (dir_.empty()) throw OutputError("the output folder name is empty");
  for (const auto& in : inputs)
    if (is_within(in, dir_))
      throw OutputError(fmt::format("will not write to '{}': it is or contains the input '{}', which the new output "
                                    "would replace; choose another --out",
                                    dir_.string(), in.string()));
  std::error_code ec;
  const auto st = fs::symlink_status(dir_, ec);
  if (fs::exists(st)) {
    if (!fs::is_directory(fs::status(dir_, ec)))
      throw OutputError(fmt::format("will not write to '{}': it exists and is not a folder", dir_.string()));
    const bool ours = fs::exists(dir_ / kMarker) || fs::is_empty(dir_, ec) || legacy_contents(dir_, kind_);
    if (!ours) {
      std::string some;
      int n = 0;
      for (const auto& e : fs::directory_iterator(dir_, ec))
        if (n++ < 3) some += (some.empty() ? "" : ", ") + e.path().filename().string();
      throw OutputError(fmt::format("will not write to '{}': it holds files kconform did not write ({}); choose a "
                                    "new or empty folder",
                                    dir_.string(), some));
    }
    if (fs::exists(dir_ / kMarker)) {
      std::ifstream m(dir_ / kMarker);
      std::string line;
      std::getline(m, line);
      if (line + "\n" != marker_text(kind_))
        throw OutputError(fmt::format("will not write a {} folder over '{}': it is a kconform folder of another "
                                      "kind ({})",
                                      kind_name(kind_), dir_.string(), line));
    }
  } else {
    // Reserve the name now, so that a name too long, a path under a file or
    // an unwritable parent is found before any work.
    if (::mkdir(dir_.c_str(), 0755) != 0) {
      const int err = errno;
      if (err == ENOENT) {  // missing parents: create them (and fail with the reason)
        fs::create_directories(dir_, ec);
        if (ec) throw OutputError(fmt::format("cannot create the folder '{}': {}", dir_.string(), ec.message()));
      } else {
        throw OutputError(fmt::format("cannot create the folder '{}': {}", dir_.string(), std::strerror(err)));
      }
    }
    created_dir_ = true;
  }
  const fs::path parent = parent_of(dir_);
  remove_leftovers(parent);
  staging_ = parent / fmt::format("{}{}-{}", kStagingPrefix, ::getpid(), staging_counter++);
  fs::remove_all(staging_, ec);
  try {
    if (::mkdir(staging_.c_str(), 0755) != 0)
      throw OutputError(fmt::format("cannot create a staging folder beside '{}' (in {}): {}", dir_.string(),
                                    parent.string(), std::strerror(errno)));
    write(kMarker, marker_text(kind_));
  } catch (...) {  // the destructor will not run: undo the reservation here
    fs::remove_all(staging_, ec);
    if (created_dir_) fs::remove(dir_, ec);
    throw;
  }
}

OutputFolder::~OutputFolder() {
  std::error_code ec;
  if (!committed_) {
    fs::remove_all(staging_, ec);
    if (created_dir_) fs::remove(dir_, ec);  // only if still empty
  }
}

void OutputFolder::write(const fs::path& rel, std::string_view data) {
  const fs::path real = staging_ / rel;
  std::error_code ec;
  fs::create_directories(real.parent_path(), ec);
  if (ec) fail(dir_ / rel, "cannot create its folder (" + ec.message() + ")", 0);
  write_all(real, dir_ / rel, data);
}

void OutputFolder::commit() {
  for (const auto& e : fs::recursive_directory_iterator(staging_))
    if (e.is_directory()) sync_dir(e.path());
  sync_dir(staging_);
  // One step: the staging folder and the old output swap names.
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, dir_.c_str(), RENAME_EXCHANGE) != 0) {
    const int err = errno;
    if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP)
      throw OutputError(fmt::format("cannot replace '{}': {}", dir_.string(), std::strerror(err)));
    // A file system without exchange: move the old folder aside, then the
    // new one in (a reader may find no folder for that instant, never a
    // mixed one).
    const fs::path aside = staging_.string() + "-old";
    if (::rename(dir_.c_str(), aside.c_str()) != 0)
      throw OutputError(fmt::format("cannot replace '{}': {}", dir_.string(), std::strerror(errno)));
    if (::rename(staging_.c_str(), dir_.c_str()) != 0) {
      const int err2 = errno;
      ::rename(aside.c_str(), dir_.c_str());
      throw OutputError(fmt::format("cannot replace '{}': {}", dir_.string(), std::strerror(err2)));
    }
    std::error_code ec;
    fs::rename(aside, staging_, ec);
  }
  committed_ = true;
  sync_dir(parent_of(dir_));
  std::error_code ec;
  fs::remove_all(staging_, ec);  // the old contents; a leftover is removed by the next run
}

StagedFile::StagedFile(fs::path path) : path_(std::move(path)) {
  std::error_code ec;
  const auto st = fs::status(path_, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))  // a folder, /dev/null, a device: never replaced by a file
    throw OutputError(fmt::format("will not write '{}': it exists and is not a regular file", path_.string()));
  const fs::path parent = parent_of(path_);
  if (!fs::is_directory(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec) throw OutputError(fmt::format("cannot write '{}': {}", path_.string(), ec.message()));
  }
  tmp_ = parent / fmt::format(".{}.kconform-{}.tmp", path_.filename().string().substr(0, 200), ::getpid());
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw OutputError(fmt::format("cannot write '{}': {}", path_.string(), std::strerror(errno)));
}

StagedFile::~StagedFile() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    fs::remove(tmp_, ec);
  }
}

void StagedFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  const int err = errno;
  out_.close();
  if (!ok || !out_) {
    std::error_code ec;
    fs::remove(tmp_, ec);
    committed_ = true;
    throw OutputError(fmt::format("cannot write '{}': {}", path_.string(), std::strerror(err ? err : EIO)));
  }
  const int fd = ::open(tmp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::error_code ec;
    fs::remove(tmp_, ec);
    committed_ = true;
    throw OutputError(fmt::format("cannot write '{}': {}", path_.string(), std::strerror(e)));
  }
  committed_ = true;
}

}  // namespace kc::reports
