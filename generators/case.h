// One generated call of a kernel: its input tensors and parameters.
#pragma once

#include <string>
#include <vector>

#include "core/params.h"
#include "core/tensor.h"

namespace kc::gen {

struct Case {
  std::vector<Tensor> inputs;
  Params params;
  bool exhaustive = false;  // a sweep of every value of a 16-bit format
  // A shaped case (a tail's or a problem line's): an output past the run's
  // exact budget is graded on a sample (engine/sample.h).
  bool shaped = false;
};

// SplitMix64 (Steele, Lea, Flood 2014) as a stream: the next value of
// `state`, which it advances.
std::uint64_t splitmix64(std::uint64_t& state);

// Seeds: every property gets its own, derived from (run seed, kernel, dtype,
// stream) with a strong mixer, so that properties do not share RapidCheck's
// single default seed and one case can be replayed alone.
std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view kernel, std::string_view dtype,
                          std::string_view stream, std::uint64_t index);

}  // namespace kc::gen
