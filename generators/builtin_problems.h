// The problem files shipped in problems/, built into kconform
// (core/builtin_text.h), so that `--shapes production` needs no installed
// data file.
#pragma once

#include <span>

#include "core/builtin_text.h"

namespace kc::gen {

std::span<const BuiltinText> builtin_problems();

}  // namespace kc::gen
