#include "cli/resume.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "cli/run_journal.h"
#include "core/error.h"

namespace kc::cli {

namespace {

const std::set<std::string> kWithValue{"--resume", "-j", "--jobs", "--progress"};
const std::set<std::string> kFlags{"-q", "--quiet"};

}  // namespace

std::vector<std::string> result_words(const std::vector<std::string>& words) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::string name = w.substr(0, w.find('='));
    if (kFlags.count(w)) continue;
    if (kWithValue.count(name)) {
      if (name == w) ++i;  // "--jobs 2": the value is the next word
      continue;
    }
    if (w.size() > 2 && w.starts_with("-j") && w[2] != '-') continue;  // "-j2"
    kept.push_back(w);
  }
  return kept;
}

bool only_resume(const CLI::App& run) {
  for (const CLI::Option* opt : run.get_options()) {
    if (opt->count() == 0) continue;
    const std::string name = opt->get_name();
    if (name != "--resume" && name != "--jobs" && name != "--quiet" && name != "--progress" && name != "--help")
      return false;
  }
  return true;
}

void resume_run(const std::string& dir, const std::vector<std::string>& words) {
  std::filesystem::path cwd;
  const std::filesystem::path out = std::filesystem::absolute(dir);
  std::vector<std::string> args{"kconform", "run"};
  for (auto& w : RunJournal::stored_argv(out, cwd)) args.push_back(std::move(w));
  // (--resume as an absolute path: the run goes on in the folder it started in)
  args.push_back("--resume");
  args.push_back(out.string());
  for (std::size_t i = 0; i < words.size(); ++i) {  // this invocation's -j, --quiet, --progress
    if (words[i] == "--resume") ++i;
    else if (!words[i].starts_with("--resume=")) args.push_back(words[i]);
  }
  if (!cwd.empty() && ::chdir(cwd.c_str()) != 0)
    throw UsageError(fmt::format("--resume {}: cannot enter {}, where the run started: {}", dir, cwd.string(),
                                 std::strerror(errno)));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv("/proc/self/exe", argv.data());
  throw UsageError(fmt::format("--resume {}: cannot start kconform again: {}", dir, std::strerror(errno)));
}

}  // namespace kc::cli
