// Parsing and checking the command line's values, each one strictly: a
// value outside its range, wider than its type, or not meant for the
// command is a UsageError (exit 2) naming the argument and what is allowed,
// never a silent truncation or a default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "core/params.h"

namespace kc::cli {

// Every argument must be valid UTF-8 (names, paths and messages are
// written into JSON and HTML); returns the index of the first that is not.
std::optional<int> invalid_utf8_argument(int argc, char** argv);

// A seed: decimal, 0 to 2^64 - 1.
std::uint64_t parse_seed(const std::string& text, const char* option);
// A case index: decimal, 0 or more (the run checks it against its case count).
std::int64_t parse_case(const std::string& text);
// Bit patterns in hex, comma-separated, each fitting `t`.
std::vector<std::uint64_t> parse_bits(const std::string& text, DType t);
// Shrink steps: non-negative decimal indices, comma-separated.
std::vector<int> parse_path(const std::string& text);
// --params for kernel `k`: each name one of its parameters, of its kind, none
// twice (Params::parse), none missing.
Params parse_params_for(const contract::KernelSpec& k, const std::string& text);

// The kernels a command names (all of them, or of one family, when none is
// named), and the dtypes; unknown ones are UsageErrors listing the known.
std::vector<const contract::KernelSpec*> select_kernels(const std::vector<std::string>& names, const std::string& family);
std::vector<DType> parse_dtypes(const std::vector<std::string>& names);
std::string kernel_names();

}  // namespace kc::cli
