// Shape profiles and problem files: which shapes a run grades besides its
// random cases (benchdnn's batch files, for every kernel of the table).
//
//   tiny        the random cases alone (their shapes are small);
//   tails       besides them, along each kernel's main axis (the reduced,
//               contracted or attended one) every size 2^k - 1, 2^k, 2^k + 1
//               for k = 1 .. 13: vector widths, thread-block sizes and
//               their tails, up to 8193 (the default);
//   production  the problem lines of the shipped model files (problems/):
//               the random cases are not run;
//   all         tiny, tails and production;
//   FILE        the random cases, the tails and FILE's problem lines.
//
// A problem file holds one problem a line (README, "Problem files"):
//   [LABEL:] KERNEL OPERAND=DIMS ... [PARAM=VALUE ...] [dtype=D,D...]
// DIMS joins sizes with 'x' (4096x11008; "scalar": rank 0); a shape
// parameter's VALUE likewise; '#' starts a comment. Every error names the
// file and the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "contracts/contract.h"

namespace kc::gen {

// One problem line: a kernel's operand shapes and the parameters given (a
// parameter left out is drawn as in a random case).
struct Problem {
  std::string file;   // as given (a shipped file: its name under problems/)
  int line = 0;
  std::string label;  // "" where the line names none
  std::string kernel;
  std::vector<DType> dtypes;  // empty: every dtype the run grades
  // Each operand's shape, in the kernel's operand order; an optional
  // operand left out (a bias) is absent: `given` says which are.
  std::vector<Dims> dims;
  std::vector<bool> given;
  Params params;
  std::string text;  // the line as written (without its comment)
  // Lines of other shipped files that are the same problem (production
  // grades a problem two models share once): their where()s.
  std::vector<std::string> also;

  // "llama2-7b.problems:12" (and the label): where the line is.
  std::string where() const;
  bool applies_to(DType t) const;
};

// The problems of a text, checked against the kernel table (kernel,
// operands, ranks, parameters and their domains, dtypes). Throws
// UsageError "FILE:LINE: ..." at the first line that is not a problem.
std::vector<Problem> parse_problems(std::string_view text, const std::string& file);
// The problems of a file; throws UsageError naming a file it cannot read.
std::vector<Problem> read_problems(const std::string& path);

// The main-axis sizes of the `tails` profile: 2^k - 1, 2^k, 2^k + 1 for
// k = 1 .. 13, ascending and each once (1 .. 8193: 38 sizes).
const std::vector<std::int64_t>& tail_sizes();

// `kconform run`'s shape profile where --shapes is not given (a replay
// names any other). tiny until the tails' cost in the default run is
// measured within its budget (production-shapes issue, item 6).
inline constexpr std::string_view kDefaultShapes = "tiny";

// What a run grades besides its sweeps: the random cases or not, the
// tails or not, and problem lines.
struct ShapeSelection {
  std::string name = "tiny";  // tiny | tails | production | all | the file's path
  bool random = true;         // the random cases (and the statistics case)
  bool tails = false;
  std::vector<Problem> problems;
};

// The selection a `--shapes` value names: a profile's name, a shipped
// problem file's name (llama2-7b: its lines alone), else a problem file's
// path (the random cases, the tails and its lines). Throws UsageError for
// a file it cannot read or a line that is not a problem.
ShapeSelection shape_selection(const std::string& value);

}  // namespace kc::gen
