// The inputs and the result of one oracle evaluation (oracles/oracle.h).
// Heavy (MPFR): included by oracle and driver .cpp files only.
//
// A driver builds the input of each output element from the case at the
// current working precision and calls the entry's oracle; the oracle writes
// the exact value of the element and what its bound needs. Inputs of every
// dtype embed exactly in MPFR; parameters arrive as the case's typed Params
// (each oracle converts them as its kernel's definition says).
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "oracles/mp.h"

namespace kc::oracle {

// What every oracle input carries besides its values.
struct Context {
  DType dtype = DType::f32;      // the kernel's (input) dtype
  DType out_dtype = DType::f32;  // the result's dtype (differs for casts and argmax/argmin)
  const Params* params = nullptr;
  bool signaling_nan = false;    // an input is a signalling NaN (quieted in the Mp values)
  // Exact::error_variance is wanted (a sample of the statistics case): an
  // oracle may skip computing it otherwise (the engine drops it then).
  bool error_variance = true;
  // Which of the kernel's forms the element takes (drivers::Element::form,
  // as ReplayIn::form): a values + indices kernel's output, ...
  int form = 0;
};

// One input element: unary kernels, casts, broadcast_to.
struct Scalar {
  Context ctx;
  Mp x;
};
// Two input elements: same-shape and broadcasting binary kernels.
struct Pair {
  Context ctx;
  Mp a, b;
};
// The terms an output cell folds, in the reference's order (reductions).
struct Terms {
  Context ctx;
  std::vector<Mp> terms;
};
// One element of a cell, the cell's upstream value, and what the oracle
// needs of the whole cell: its maximum and how many of its elements equal
// it (the backward of a reduction: reduce_max_to_backward). The driver
// finds both once per cell by exact comparisons (a maximum and an equality
// need no rounding), so an element costs O(1) MPFR work, not a copy of its cell.
struct CellElement {
  Context ctx;
  Mp x, up;
  Mp cell_max;            // -inf for an empty cell; NaN when the cell holds one
  std::int64_t ties = 0;  // elements equal to cell_max
};

// The pairs an output element multiplies and folds, in the reference's
// order (a_0, b_0, a_1, b_1, ...: matmul's a[i, kk], b[kk, j] for kk
// ascending). Doubles, not Mp: the oracle sums them exactly without MPFR
// per term (oracles/exact_sum.h).
struct Dot {
  Context ctx;
  std::span<const double> pairs;
};

// One element of a row of the last axis and the whole row it depends on
// (softmax, log_softmax, the norms and their backwards): `a` the row of the
// first input, `b` the row of the second (g, the upstream gradient; empty
// for a forward), `i` the element's position in the row. Doubles: every
// dtype's values exactly; the oracle keeps what it computes of a row for
// the row's next element (the elements of a row come in order).
struct Row {
  Context ctx;
  std::span<const double> a, b;
  std::size_t i = 0;
};

struct Exact {
  Mp value;  // the exact result (an index for argmax/argmin)
  // Condition-aware models: the magnitude S the bound scales with.
  std::optional<Mp> magnitude;
  // `value` is itself a bit-exact replay of the reference (powi outside the
  // normal range, a fold whose partial sum overflowed): graded as exact.
  bool replayed = false;
  // The conformance profile's latitude where the reference made a choice
  // others legitimately make differently: other results a correct kernel
  // may return (maximum's NaN rule, argmax's tie order: `alternatives`),
  // and, where `value` is a replay (a fold that overflowed, powi outside
  // the normal range), the exact value to grade a different evaluation
  // order against under the entry's accuracy model (`unreplayed`).
  std::vector<Mp> alternatives;
  std::optional<Mp> unreplayed;
  // `value` is a replay because no bound exists here (a stage's error has
  // no finite bound: scores of 1e30, whose rounding alone decides a
  // softmax; or a finite output of a row with a non-finite input): only
  // the reference profile grades it (the reference's bits).
  bool unbounded = false;
  // Expected mean square of the rounding error of this element under the
  // model of independent roundings (sums; docs/accuracy-bounds.md,
  // "Statistics of a case"); absent where no such model is stated.
  std::optional<double> error_variance;

  // Ready for the next evaluation at the current precision (the engine
  // keeps one Exact per thread: two MPFR numbers allocated and freed per
  // element were a tenth of a 64^3 matmul oracle's time;
  // bench/exact_sum_bench.cpp): every member as a new Exact has it, the
  // value NaN, the magnitude's storage kept for set_magnitude.
  void reset() {
    precision_ = PrecisionScope::current();
    mpfr_set_prec(raw(value), precision_);  // (no allocation where its storage is large enough)
    if (magnitude) {
      spare_magnitude_.emplace(std::move(*magnitude));  // (the storage moves; the moved-from number holds none)
      magnitude.reset();
    }
    replayed = false;
    alternatives.clear();
    unreplayed.reset();
    unbounded = false;
    error_variance.reset();
  }
  // magnitude engaged at the current precision (NaN), in the storage
  // reset() kept where there is one (there is only after a reset(), which
  // noted the precision: an oracle may have assigned the value another).
  Mp& set_magnitude() {
    if (!spare_magnitude_) return magnitude.emplace();
    magnitude.emplace(std::move(*spare_magnitude_));
    spare_magnitude_.reset();
    mpfr_set_prec(raw(*magnitude), precision_);
    return *magnitude;
  }

 private:
  std::optional<Mp> spare_magnitude_;
  mpfr_prec_t precision_ = 0;  // (reset()'s)
};

}  // namespace kc::oracle
