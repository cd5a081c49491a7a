// The problem files shipped in problems/, built into kconform at configure
// time (cmake/BuiltinTexts.cmake writes their text into a generated
// source), so that `--shapes production` needs no installed data file.
#pragma once

#include <span>
#include <string_view>

namespace kc::gen {

struct BuiltinProblems {
  std::string_view name;  // the file's name without .problems
  std::string_view text;
};
std::span<const BuiltinProblems> builtin_problems();

}  // namespace kc::gen
