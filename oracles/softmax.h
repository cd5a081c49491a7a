// Exact functions of softmax and log_softmax over the last axis and of
// their backwards (reference-semantics.md §10), each with the bound of
// docs/accuracy-bounds.md, "Softmax": the oracle writes the exact value
// and S, the whole bound over u_T (the condition-aware model with K = 1).
#pragma once

namespace kc::oracle {
struct Row;
struct Exact;
void softmax(const Row&, Exact&);
void log_softmax(const Row&, Exact&);
void softmax_backward(const Row&, Exact&);
void log_softmax_backward(const Row&, Exact&);
}  // namespace kc::oracle
