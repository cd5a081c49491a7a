#include "oracles/mp.h"

#include <cmath>

namespace kc::oracle {

unsigned working_bits(DType t) {
  if (t == DType::f64) return 256;
  return static_cast<unsigned>(float_format(t).precision) + 128;
}

namespace {
// Boost expresses precision in decimal digits; ask for enough digits to
// cover `bits` (plus one digit of slack).
unsigned digits_for(unsigned bits) { return static_cast<unsigned>(std::ceil(bits * 0.30103)) + 1; }
}  // namespace

PrecisionScope::PrecisionScope(unsigned bits) : saved_(Mp::default_precision()) {
  Mp::default_precision(digits_for(bits));
}
PrecisionScope::~PrecisionScope() { Mp::default_precision(saved_); }
// What Boost gives a default-constructed number: its digits in bits.
unsigned PrecisionScope::current() {
  return static_cast<unsigned>(boost::multiprecision::detail::digits10_2_2(Mp::default_precision()));
}

}  // namespace kc::oracle
