// Exact functions of layer_norm and rms_norm over the last axis and of
// their backwards (reference-semantics.md §10): the count n and eps enter
// as T(n) and T(eps), as the reference converts them (§0.3). Each writes
// the exact value and S, its bound over u_T: the reference's steps
// replayed on values carried with rigorous error bounds
// (oracles/row_support.h, Stage; docs/accuracy-bounds.md, "Norms").
#pragma once

namespace kc::oracle {
struct Row;
struct Exact;
void layer_norm(const Row&, Exact&);
void layer_norm_backward(const Row&, Exact&);
void rms_norm(const Row&, Exact&);
void rms_norm_backward(const Row&, Exact&);
}  // namespace kc::oracle
