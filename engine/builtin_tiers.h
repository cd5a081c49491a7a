// The tier files shipped in tiers/, built into kconform
// (core/builtin_text.h), so that `--accuracy opencl-full-profile` needs no
// installed data file.
#pragma once

#include <span>

#include "core/builtin_text.h"

namespace kc::engine {

std::span<const BuiltinText> builtin_tiers();

}  // namespace kc::engine
