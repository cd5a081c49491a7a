// `kconform run --resume DIR` given alone: the run's own words, from its
// journal (cli/run_journal.h), run again in the folder it started in, with
// --resume and the presentation options of this invocation (-j, --quiet,
// --progress) added. Nothing else may be given beside --resume: the
// journal decides the run.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace kc::cli {

// The words after `run` without the options that do not change results
// (--resume, -j/--jobs, --progress, -q/--quiet), as the journal stores them.
std::vector<std::string> result_words(const std::vector<std::string>& words);
// Whether `run` was given nothing but --resume and presentation options.
bool only_resume(const CLI::App& run);
// Replaces this process with the resumed run; returns only on failure (a UsageError).
[[noreturn]] void resume_run(const std::string& dir, const std::vector<std::string>& words);

}  // namespace kc::cli
