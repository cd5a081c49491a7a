// `kconform fkc export`: the same FKC files with every precision block of a
// kernel the run graded replaced by the measured one; every other byte as
// it was. The measured block:
//   bit_stable_on_same_hardware  the determinism check over every dtype
//                                (~ when the run did not make it);
//   max_ulp       the largest integer ulp distance over the dtypes, where an
//                 ulp bound holds: not for a condition-aware contract (a sum's
//                 distance is unbounded under cancellation), nor when an
//                 element has no finite error or the distance exceeds u32;
//   max_relative, max_absolute
//                 the largest over the dtypes, where no ulp bound holds (and
//                 the figure is finite); ~ otherwise;
//   audited: true, and notes naming the run, the dtypes and each one's figures.
// Every claim written is met by the run's own figures, so an audit of the
// exported files against the same results confirms every one of them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fkc/document.h"

namespace kc::fkc {

struct Exported {
  std::string text;                     // the file with the measured blocks
  std::vector<std::string> replaced;    // kernels whose block was replaced
  std::vector<std::string> not_graded;  // kernels the run did not grade: block kept
};

Exported export_document(const Document& d, const nlohmann::json& results);

// The measured precision block of one kernel (its key line and indented
// lines, each ending in a newline), or "" when the run did not grade it.
std::string measured_block(const Block& b, const nlohmann::json& results, const std::string& indent);

}  // namespace kc::fkc
