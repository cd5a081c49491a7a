// Exact functions of the reductions: every output cell folds its terms (in
// the reference's order: increasing source flat index); the backward of
// reduce_max_to sees one element, its cell's upstream value and the cell.
#pragma once

namespace kc::oracle {
struct Terms;
struct CellElement;
struct Exact;
void sum(const Terms&, Exact&);
void sum_wide(const Terms&, Exact&);  // an f64 fold narrowed to T (pad_backward)
void mean(const Terms&, Exact&);
void max_fold(const Terms&, Exact&);
void min_fold(const Terms&, Exact&);
void argmax(const Terms&, Exact&);
void argmin(const Terms&, Exact&);
void max_backward(const CellElement&, Exact&);
}  // namespace kc::oracle
