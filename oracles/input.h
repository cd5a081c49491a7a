// The typed input of one output element: what it depends on, in values of
// its dtype (doubles hold every dtype's values exactly, and a NaN's sign,
// payload and quiet bit in their top bits: core/dtype.h). A driver builds
// it once per element (drivers::Element::in); the entry's exact oracle, its
// native replay of the reference, its double fast path and the checks all
// read this one value (oracles/oracle.h `Math`, whose three functions take
// the same input type: checked at compile time). An input owns its values
// (an Element is a value: copied, it stays whole; a driver refilling one
// Element per output keeps the vectors' storage). Light: no MPFR; an oracle
// makes its MPFR numbers from these values at its working precision.
#pragma once

#include <array>
#include <atomic>
#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"

namespace kc::oracle {

// What every input carries besides its values.
struct Context {
  DType dtype = DType::f32;      // the kernel's (input) dtype
  DType out_dtype = DType::f32;  // the result's dtype (differs for casts and argmax/argmin)
  const Params* params = nullptr;
  bool signaling_nan = false;    // an input is a signalling NaN (the replay of pow treats one apart)
  // Which of the kernel's outputs the element belongs to (an entry's
  // contract::KernelSpec::outputs; out_dtype is that output's dtype): a
  // values + indices kernel's oracle answers for the one it is asked.
  std::size_t output = 0;
};

// One input element: unary kernels, casts, broadcast_to, the data movers.
struct Scalar {
  Context ctx;
  double x = 0;
};
// Two input elements: same-shape and broadcasting binary kernels.
struct Pair {
  Context ctx;
  double a = 0, b = 0;
};
// The terms an output cell folds, in the reference's order (reductions).
struct Terms {
  Context ctx;
  std::vector<double> terms;
};
// One element of a cell, the cell's upstream value, and what the oracle
// needs of the whole cell: its maximum and how many of its elements equal
// it (the backward of a reduction: reduce_max_to_backward). The driver
// finds both once per cell by exact comparisons (a maximum and an equality
// need no rounding), so an element costs O(1) MPFR work; the replay
// repeats the reference's scan of the whole cell.
struct CellElement {
  Context ctx;
  double x = 0, up = 0;
  double cell_max = 0;    // -inf for an empty cell; NaN when the cell holds one
  std::int64_t ties = 0;  // elements equal to cell_max
  std::vector<double> cell;
  // The driver's id for this cell's values (next_fill(); 0: none): the
  // replay's per-cell cache takes a cell of the same fill as the same bits.
  std::uint64_t fill = 0;
};
// The pairs an output element multiplies and folds, in the reference's
// order (a_0, b_0, a_1, b_1, ...: matmul's a[i, kk], b[kk, j] for kk
// ascending); summed exactly without MPFR per term (oracles/exact_sum.h).
struct Dot {
  Context ctx;
  std::vector<double> pairs;
};
// One rotation of rope (§11): x_a c - x_b s (the low half) or x_a c + x_b s
// (the high half), x_b the element's partner in the other half.
struct Rotation {
  Context ctx;
  double x_a = 0, c = 0, x_b = 0, s = 0;
  bool sum = false;  // the high half's sum, else the low half's difference
};
// One element of a row the element depends on whole (softmax, log_softmax,
// the norms and their backwards; attention, whose `a` holds the packed
// operands of one query row, oracles/attention_layout.h): `a` the row of
// the first input, `b` the row of the second (g, the upstream gradient;
// empty for a forward), `i` the element's place among the row's outputs
// (its position; attention's column). The oracle keeps what it computes of
// a row for the row's next element (the elements of a row come in order).
struct Row {
  Context ctx;
  std::vector<double> a, b;
  std::size_t i = 0;
  // The driver's id for this filling of a and b (next_fill(), taken at
  // each refill; 0: none). The row caches (rows::RowKey) take a row of the
  // same id at the same storage as the row they saw, without comparing
  // its bits: an attention cell of 4096 keys is 8 MB compared per element.
  std::uint64_t fill = 0;
};
// A fresh Row::fill (unique in the process).
inline std::uint64_t next_fill() {
  static std::atomic<std::uint64_t> n{0};
  return ++n;
}

// Every input shape, one alternative each: an Element holds one.
using Input = std::variant<Scalar, Pair, Terms, CellElement, Dot, Rotation, Row>;

// A type an oracle, replay and fast path may take: one of Input's
// alternatives (a new shape is added there, and everything that visits an
// Input then names it).
template <class In>
concept ElementInput = requires(const Input& v) {
  { std::get<In>(v).ctx } -> std::convertible_to<const Context&>;
};

inline const Context& context_of(const Input& in) {
  return std::visit([](const auto& v) -> const Context& { return v.ctx; }, in);
}

// The input's values in the driver's order (x; a, b; the terms; x, up,
// then the cell; the pairs; x_a, c, x_b, s; row a then row b), as up to
// four runs: what a failure text prints, the coverage tally classifies and
// the checks that look at values alone read.
using ValueRuns = std::array<std::span<const double>, 4>;
ValueRuns value_runs(const Input& in);
std::vector<double> flat_values(const Input& in);
// The first values, up to out.size() of them, into out; how many (the
// coverage tally reads the first two of rows and products thousands long).
std::size_t leading_values_of_runs(const Input& in, std::span<double> out);
inline std::size_t leading_values(const Input& in, std::span<double> out) {
  // (A Scalar inline: most graded elements are one, and every one is tallied.)
  if (const auto* s = std::get_if<Scalar>(&in); s && !out.empty()) {
    out[0] = s->x;
    return 1;
  }
  return leading_values_of_runs(in, out);
}
std::size_t value_count(const Input& in);
inline double first_value(const Input& in) {  // 0 where there is none (an empty fold)
  double v = 0;
  leading_values(in, {&v, 1});
  return v;
}
std::string input_name(const Input& in);  // "Scalar", "Row", ...

}  // namespace kc::oracle
