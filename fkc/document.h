// The tensor framework's FKC contract files: markdown with one fenced
// ```fkc block per kernel, each a YAML document. kconform reads a block's
// kernel, its dtypes and its `precision:` claims, and remembers where the
// precision block lies in the file's bytes, so that `fkc export` can
// replace exactly that block and leave every other byte as it was.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kc::fkc {

// A `precision:` block. nullopt is `~` (unclaimed) or an absent key.
struct Precision {
  std::optional<bool> bit_stable_on_same_hardware;
  std::optional<std::uint32_t> max_ulp;  // an integer ulp distance (u32)
  std::optional<double> max_relative, max_absolute;
  std::optional<bool> audited;
  std::string notes;
};

struct Block {
  int line = 0;  // of the opening ```fkc fence, 1-based
  std::string kernel;
  std::vector<std::string> dtypes;  // every input's `dtypes`, lower case ("f32"), in order, once each
  Precision precision;
  int precision_line = 0;  // of the `precision:` key
  // Byte range of the precision block in the file: from the start of the
  // `precision:` line to the end of its last indented line (its newline
  // included); blank lines after it belong to what follows.
  std::size_t precision_begin = 0, precision_end = 0;
};

struct Document {
  std::string path;
  std::string text;  // the file's bytes
  std::vector<Block> blocks;
};

// Parses a file's text; `path` names it in errors. A block that cannot be
// read is a UsageError "PATH:LINE: what is wrong", LINE in the file.
Document parse_document(std::string text, const std::string& path);
Document load_document(const std::string& path);

}  // namespace kc::fkc
