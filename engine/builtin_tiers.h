// The tier files shipped in tiers/, built into kconform at configure time
// (cmake/BuiltinTexts.cmake writes their text into a generated source), so
// that `--accuracy opencl-full-profile` needs no installed data file.
#pragma once

#include <span>
#include <string_view>

namespace kc::engine {

struct BuiltinTier {
  std::string_view name;  // the file's name without .tier
  std::string_view text;
};
std::span<const BuiltinTier> builtin_tiers();

}  // namespace kc::engine
