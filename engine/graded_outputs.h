// The outputs a run graded, case by case: the determinism check re-executes
// the cases and compares what it gets with these, bit for bit, so that a
// kernel right only the first time it sees an input is caught (checks/
// determinism.cpp). Tensors share their storage, so keeping one costs the
// memory the run would have freed; past the budget a case is not kept.
// The case itself (its inputs) is kept beside them within a budget of its
// own, so that re-executing it needs no second generation (a random case's
// RapidCheck generation costs more than most kernels); a case past that
// budget is rebuilt from its seed (RunView::case_of), the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "generators/case.h"

namespace kc::engine {

struct GradedOutput {
  std::int64_t case_id;
  std::vector<Tensor> outputs;
  std::int64_t elements;  // over the outputs
  std::optional<gen::Case> input;  // the case graded, where its inputs were kept
};

class GradedOutputs {
 public:
  // (The outputs kept, and the inputs kept, each within budget_bytes.)
  explicit GradedOutputs(std::int64_t budget_bytes) : budget_(budget_bytes) {}
  // Case `case_id`'s outputs, and the case (cs, its own inputs: not a
  // shrunk one) where given and within the inputs' budget.
  void add(std::int64_t case_id, const std::vector<Tensor>& outputs, const gen::Case* cs = nullptr) {
    std::int64_t bytes = 0, elements = 0;
    for (const Tensor& t : outputs) bytes += static_cast<std::int64_t>(t.byte_size()), elements += t.numel();
    if (bytes_ + bytes > budget_) {
      ++dropped_;
      return;
    }
    bytes_ += bytes;
    list_.push_back({case_id, outputs, elements, std::nullopt});
    if (!cs) return;
    std::int64_t in_bytes = 0;
    for (const Tensor& t : cs->inputs) in_bytes += static_cast<std::int64_t>(t.byte_size());
    if (input_bytes_ + in_bytes > budget_) return;
    input_bytes_ += in_bytes;
    list_.back().input = *cs;
  }
  const std::vector<GradedOutput>& list() const { return list_; }
  std::int64_t dropped() const { return dropped_; }

 private:
  std::int64_t budget_, bytes_ = 0, input_bytes_ = 0, dropped_ = 0;
  std::vector<GradedOutput> list_;
};

}  // namespace kc::engine
