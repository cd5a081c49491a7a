// A text file built into kconform at configure time
// (cmake/BuiltinTexts.cmake): the tiers (engine/builtin_tiers.h) and the
// problem files (generators/builtin_problems.h), so that a run needs no
// installed data file.
#pragma once

#include <string_view>

namespace kc {

struct BuiltinText {
  std::string_view name;  // the file's name without its extension
  std::string_view text;
};

}  // namespace kc
