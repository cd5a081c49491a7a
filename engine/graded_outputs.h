// The outputs a run graded, case by case: the determinism check re-executes
// the cases and compares what it gets with these, bit for bit, so that a
// kernel right only the first time it sees an input is caught (checks/
// determinism.cpp). Tensors share their storage, so keeping one costs the
// memory the run would have freed; past the budget a case is not kept.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace kc::engine {

struct GradedOutput {
  std::int64_t case_id;
  std::vector<Tensor> outputs;
  std::int64_t elements;  // over the outputs
};

class GradedOutputs {
 public:
  explicit GradedOutputs(std::int64_t budget_bytes) : budget_(budget_bytes) {}
  void add(std::int64_t case_id, const std::vector<Tensor>& outputs) {
    std::int64_t bytes = 0, elements = 0;
    for (const Tensor& t : outputs) bytes += static_cast<std::int64_t>(t.byte_size()), elements += t.numel();
    if (bytes_ + bytes > budget_) {
      ++dropped_;
      return;
    }
    bytes_ += bytes;
    list_.push_back({case_id, outputs, elements});
  }
  const std::vector<GradedOutput>& list() const { return list_; }
  std::int64_t dropped() const { return dropped_; }

 private:
  std::int64_t budget_, bytes_ = 0, dropped_ = 0;
  std::vector<GradedOutput> list_;
};

}  // namespace kc::engine
