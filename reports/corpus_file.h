// The regression corpus's file format (kconform-corpus/1): one failing case
// per file, as text a person reads and a diff shows line by line, holding
// the exact input bits (not a seed: a generator change would turn a seed
// into another case). A campaign writes one per distinct failure
// (`campaign --corpus DIR`); `kconform corpus replay` and `ctest -L
// regression` grade each again and require the recorded outcome.
//
//   format: kconform-corpus/1
//   kernel: exp
//   dtype: f32
//   backend: mutant:exp_f32_2ulp
//   profile: conformance
//   check: accuracy
//   failure: frac_bound
//   expect: fail
//   found: campaign seed 9 batch 3: kconform run ... --case 41 --shrink 0,2
//   params: n=3
//   input x [2, 3]
//     0x3f800000 0x3f800001 0x3f800002 0x3f800003 0x3f800004 0x3f800005
//
// Lines starting with '#' are comments. Every input operand of the kernel
// appears once, in order, with its dims and then exactly that many bit
// patterns (hex, eight to a line). `expect: fail` means the check must
// still fail (the defect is still caught); `expect: pass` that no check
// fails (a fixed defect stays fixed). Two failures are "the same" (one
// file) when backend, kernel, dtype, check and failure kind agree:
// corpus_file_name() names the file by exactly those.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace kc::reports {

struct CorpusCase {
  std::string kernel;
  DType dtype = DType::f32;
  std::string backend = "reference";
  std::string profile = "conformance";
  std::string check;    // the tally that failed: accuracy, special:NaN->+0, property:..., semantics, ...
  std::string failure;  // for accuracy and special: the way it failed (frac_bound, spurious_inf, ...); else ""
  std::string expect = "fail";
  std::string found;    // where it came from, in words
  std::string params;   // Params::to_string()
  std::vector<Tensor> inputs;
};

std::string write_corpus_case(const CorpusCase& c);
// Throws UsageError "FILE:LINE: what is wrong" for anything it cannot read.
CorpusCase read_corpus_case(const std::string& text, const std::string& file);
// "<kernel>/<dtype>/<backend>.<check>.<failure>.case", every part reduced
// to [A-Za-z0-9_.-] (the notion of "same" above, as a path).
std::string corpus_file_name(const CorpusCase& c);

}  // namespace kc::reports
