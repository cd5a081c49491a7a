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

// The MPFR object behind an Mp, and its classification.
inline mpfr_t& raw(Mp& m) { return m.backend().data(); }
inline const mpfr_t& raw(const Mp& m) { return m.backend().data(); }
inline bool is_nan(const Mp& m) { return mpfr_nan_p(raw(m)) != 0; }
inline bool is_inf(const Mp& m) { return mpfr_inf_p(raw(m)) != 0; }
inline bool is_zero(const Mp& m) { return mpfr_zero_p(raw(m)) != 0; }
inline bool is_number(const Mp& m) { return mpfr_number_p(raw(m)) != 0; }
inline bool sign_bit(const Mp& m) { return mpfr_signbit(raw(m)) != 0; }

// Sets the default MPFR precision for the scope; every Mp built inside it
// has at least `bits` bits. Boost.Multiprecision keeps this default in a
// process-wide static, so scopes must not be used from several threads.
class PrecisionScope {
 public:
  // The bits a number built now gets (the innermost scope's, as Boost
  // rounds them up from decimal digits).
  static unsigned current();
  explicit PrecisionScope(unsigned bits);
  ~PrecisionScope();
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  unsigned saved_;
};

}  // namespace kc::oracle
