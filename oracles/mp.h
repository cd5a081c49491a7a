// The oracle's number type and precision policy (in one place, as LLVM
// libc's MPFR wrapper keeps it): MPFR through Boost.Multiprecision, with
// expression templates off so that every intermediate is an explicit MPFR
// value. Include only from oracle and engine .cpp files: it is heavy.
//
// Precision policy: target precision p + 128 bits for the 16- and 32-bit
// formats, 256 bits for f64 (LLVM libc's choice). When a verdict depends on
// which side of a rounding boundary the exact value lies, the engine
// re-evaluates at twice, then four times the precision (Ziv's strategy;
// see oracles/rounding.h).
#pragma once

#include <vector>

#include <boost/multiprecision/mpfr.hpp>

#include "core/dtype.h"

namespace kc::oracle {

using Mp = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<0>,
                                         boost::multiprecision::et_off>;

unsigned working_bits(DType t);

// Sets the thread's default MPFR precision for the scope; every Mp built
// inside it has at least `bits` bits.
class PrecisionScope {
 public:
  explicit PrecisionScope(unsigned bits);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  unsigned saved_;
};

// One oracle evaluation. Inputs are exact (every dtype embeds in MPFR);
// parameters are given as the reference converts them into T. The oracle
// writes the exact value to `out` and, for condition-aware models, the
// magnitude S the error bound scales with to `magnitude`.
struct OracleIO {
  DType dtype;      // the kernel's (input) dtype
  DType out_dtype;  // the result's dtype (differs for casts and argmax/argmin)
  Mp x;             // == args[0]
  std::vector<Mp> args;  // every exact input the element depends on (a, b; a reduced slice; ...)
  bool signaling_nan = false;  // an input is a signalling NaN (quieted in the double/Mp args)
  std::int32_t n = 0;  // powi
  Mp c, lo, hi;        // add_scalar / mul_scalar / clamp, already rounded into T
  Mp out;
  Mp magnitude;
  bool replayed = false;  // `out` is a bit-exact replay of the reference, graded as exact
  // Where the reference's rounding steps are all basic operations, the
  // oracle also replays them (one correct rounding per step, in the
  // reference's order): the semantics check requires the kernel's bits.
  bool has_replay = false;
  Mp replay;
};

}  // namespace kc::oracle
