// What each family's output elements depend on: the expected output (shape,
// dtype, aliasing) of a case, and, per output element, the exact inputs the
// oracle needs. This is the only family-specific part of the engine.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "contracts/contract.h"
#include "generators/case.h"

namespace kc::engine {

struct Expectation {
  Dims dims;
  DType dtype;
  bool zero_copy = false;  // the output must share input 0's storage
};
Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c);

struct Job {
  std::int64_t out = 0;          // flat index into the output
  std::vector<double> args;      // the exact inputs (oracle order)
  std::vector<std::uint64_t> shown;  // bit patterns shown in reports (a, b; or the first few of a slice)
  std::string where;             // "a[3], b[0]", "7 elements along dim 1", ...
  bool elementwise = false;      // one input element per operand: replayable with --input
  bool signaling_nan = false;    // an input is a signalling NaN (the double args cannot say so)
};
bool is_signaling_nan(DType t, std::uint64_t bits);
void for_each_job(const contract::KernelSpec& k, const gen::Case& c, const std::function<void(const Job&)>& f);

}  // namespace kc::engine
