// The inputs and the result of one oracle evaluation (oracles/oracle.h).
// Heavy (MPFR): included by oracle and driver .cpp files only.
//
// A driver builds the typed input of each output element (oracles/input.h);
// the engine calls the entry's oracle on it at its working precision, and
// the oracle writes the exact value of the element and what its bound
// needs. Inputs of every dtype embed exactly in MPFR (an oracle makes its
// numbers with `Mp(v)` at the current precision); parameters arrive as the
// case's typed Params (each oracle converts them as its kernel's definition
// says).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "oracles/input.h"
#include "oracles/mp.h"

namespace kc::oracle {

// An input's values as MPFR numbers at the current working precision, what
// an oracle computes with: `const MpScalar in = mp(given);` (a NaN becomes
// MPFR's NaN, quiet; the Context says where an input was signalling).
struct MpScalar {
  Context ctx;
  Mp x;
};
struct MpPair {
  Context ctx;
  Mp a, b;
};
struct MpTerms {
  Context ctx;
  std::vector<Mp> terms;
};
struct MpCell {
  Context ctx;
  Mp x, up, cell_max;
  std::int64_t ties = 0;
};
inline MpScalar mp(const Scalar& s) { return {s.ctx, Mp(s.x)}; }
inline MpPair mp(const Pair& p) { return {p.ctx, Mp(p.a), Mp(p.b)}; }
inline MpTerms mp(const Terms& t) {
  MpTerms r{t.ctx, {}};
  r.terms.reserve(t.terms.size());
  for (double v : t.terms) r.terms.emplace_back(v);
  return r;
}
inline MpCell mp(const CellElement& c) { return {c.ctx, Mp(c.x), Mp(c.up), Mp(c.cell_max), c.ties}; }

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
  // The exact value under another reading of the parameters the definition
  // allows (attention's scale and softcap as given, where the reference
  // narrows them to f32 and then T): a result within the accuracy model of
  // either value is correct. Evaluated only for a result the first value
  // fails (it costs another exact evaluation), and only while the element
  // is graded (it may refer to the oracle's input); nullopt from it: no
  // other reading here.
  std::function<std::optional<Mp>()> other_reading;
  // `value` is a replay because no bound exists here (a stage's error has
  // no finite bound: scores of 1e30, whose rounding alone decides a
  // softmax; or a finite output of a row with a non-finite input): only
  // the reference profile grades it (the reference's bits).
  bool unbounded = false;
  // Expected mean square of the rounding error of this element under the
  // model of independent roundings (sums; docs/accuracy-bounds.md,
  // "Statistics of a case"); absent where no such model is stated.
  std::optional<double> error_variance;
  // Asked by the caller before the evaluation: error_variance is wanted (a
  // sample of the statistics case); an oracle may skip computing it
  // otherwise (the engine drops it then).
  bool variance_wanted = true;

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
    other_reading = nullptr;
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
