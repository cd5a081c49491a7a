// Exact attention outputs (reference-semantics.md §12) for attention_naive
// and attention_flash: the softmax-weighted sum of V over the admissible
// keys, in MPFR, with the bound of the kernel's own steps (naive: one
// normalisation per weight; flash: tiles of 16 with online rescaling),
// replayed on values with rigorous error bounds (oracles/row_support.h).
// Input: a Row whose `a` is the packed element (oracles/attention_layout.h)
// and `i` its column.
#pragma once

namespace kc::oracle {
struct Row;
struct Exact;
void attention_naive(const Row&, Exact&);
void attention_flash(const Row&, Exact&);
// attention_paged_naive: attention_naive's exact value and bound on the
// context gathered through the block table, qi its absolute position a.
void attention_paged(const Row&, Exact&);
// attention_flash_backward: the exact vector-Jacobian product of the
// attention function (dQ, dK, dV) for the cell in `a` (attention_layout.h
// Cell), element `i` of the cell's outputs, with the bound of the kernel's
// recompute steps replayed on Stage values (oracles/attention_backward.cpp).
void attention_flash_backward(const Row&, Exact&);
}  // namespace kc::oracle
