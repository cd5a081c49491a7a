// What the oracles of the row kernels of the last axis share (softmax,
// log_softmax, the norms and their backwards; oracles/softmax.cpp,
// oracles/norm.cpp): T's rounding units, the bound arithmetic, the
// per-row cache key, the overflow rule, and Stage, a value carried with a
// rigorous bound on its error through the reference's operations.
// Internal to oracles/.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "oracles/exact.h"
#include "oracles/oracle.h"

namespace kc::oracle::rows {

// The bounds' arithmetic: x87's extended format on x86-64 (quad on
// aarch64), whose exponent range holds f64's sums of magnitudes past
// max_f64 and its half-subnormal eta = 2^-1075, where a double would
// overflow or drop them; its 64-bit significand rounds a relative 2^-64,
// covered by rounding every bound up by a relative 2^-30. Only x87's
// basic operations (+ - * / sqrt, correctly rounded by IEEE 754, so the
// same bits on every CPU) and the functions of oracles/det_math.h (MPFR's
// exp, tanh, log, log1p, correctly rounded to 64 bits, within 2^-64
// relative, and gamma_m rounded up) compute a bound: libm's long double
// functions run x87's f2xm1 and fyl2x, whose last bits differ between
// Intel and AMD, and a bound that moved with them moved the normalized
// errors (docs/accuracy-bounds.md, "The bounds' own arithmetic").
using B = long double;
inline constexpr B kRoundUp = 1 + 0x1p-30L;

// T's rounding: u = 2^-p; a libm result (exp, ln) within E ulps (E = 2L +
// 1/2 for glibc's L = 1 step, accuracy.md; the halves call the f32
// function and round again: 1/2 + E 2^(p-24)), so relative eps = 2uE where
// normal (ulp_T(z) <= 2u|z|) and absolute E ulp_min where subnormal.
struct Units {
  B u, eps, libm_abs, ulp_min, max;
  B eps_tanh, tanh_abs;  // tanh: glibc's L = 2 steps
  // The rms counterparts (Stage::r): of one correct rounding, relative
  // u / sqrt(3) and absolute ulp_min / sqrt(12); of a libm result,
  // relative: its worst case eps for f32 and f64 (a libm's ulp claim says
  // nothing of its distribution), for the halves the final rounding into
  // T as one correct rounding plus the f32 call's worst case.
  B round_rms, underflow_rms, eps_rms, eps_tanh_rms;
};
Units units(DType t);

// gamma_m = (1 + u)^m - 1, rounded up (every m: m u may exceed 1 for halves).
B gamma(B u, std::size_t m);

// S = b / u into out.magnitude (b rounded up); with `rms`, the expected
// mean square rms^2 of the error into out.error_variance (the case
// statistics' model, Stage::r).
void set_bound(Exact& out, DType t, B b);
void set_bound(Exact& out, DType t, B b, B rms);

// A row's (or an attention cell's) quantities are computed once, for its
// first element, and kept for the next: the key is the dtype, the
// precision, every parameter and the row's bits (all bit for bit).
class RowKey {
 public:
  // True when r is the row last set; else remembers r and returns false.
  bool same_or_set(const Row& r);
  // The same at this precision (a replay's: 0), through Row::fill where
  // the driver gave one.
  bool same_or_set(const Row& r, unsigned precision);
  // Whether r is the row set (at the current precision), without setting
  // it: identity_only, by its fill and storage alone (O(1)); else by its
  // bits too. A hit takes r's fill and storage for the next call.
  bool holds(const Row& r, bool identity_only);

 private:
  // Whether r is the row last set under the same fill at the same storage
  // (its bits then known to be the ones set).
  bool filled(const Row& r) const;
  // Whether r (at this precision) is the row set: its dtype, parameters
  // and, unless same_values, its bits. Leaves r's parameters encoded in
  // the scratch buffers.
  bool matches(const Row& r, unsigned precision, bool same_values);
  DType t_ = DType::f32;
  unsigned bits_ = 0;
  std::vector<double> a_, b_;
  std::string names_;                 // the parameters' names, in order
  std::vector<std::uint64_t> values_;  // their values' bits and kinds
  std::string scratch_names_;          // a call's encoding of its parameters
  std::vector<std::uint64_t> scratch_values_;
  bool set_ = false;
  std::uint64_t fill_ = 0;  // the row's Row::fill (0: none) and where its values were
  const double* a_at_ = nullptr;
  const double* b_at_ = nullptr;
};

// A few rows' quantities kept at once (T has a RowKey `key`): a relation
// reads the rows of a case that grading evaluated before its last one (a
// tail's two rows of 8193 elements, each n MPFR exponentials).
template <class T, std::size_t N>
class RowSlots {
 public:
  // The slot holding in's row (hit), else the oldest, keyed to in's row
  // (its quantities then to be computed). Identity first in every slot, so
  // that a row's next element never compares bits.
  T& at(const Row& in, bool& hit) {
    if (T* s = find(in)) {
      hit = true;
      return *s;
    }
    T& s = slots_[next_];
    next_ = (next_ + 1) % N;
    s.key.same_or_set(in);
    hit = false;
    return s;
  }
  // The slot holding in's row, or nullptr; nothing claimed.
  T* find(const Row& in) {
    for (bool identity_only : {true, false})
      for (T& s : slots_)
        if (s.key.holds(in, identity_only)) return &s;
    return nullptr;
  }

 private:
  std::array<T, N> slots_{};
  std::size_t next_ = 0;
};

// A replay's row quantities in T, computed for the row's first element
// and kept for the next (a replay is asked at every element: each
// computing them again made a row of n elements n^2 operations). One per
// replay function, keyed by the row: kept(k, in, compute) gives k's
// values, compute(double*) filling them first where the row is new.
struct Kept {
  RowKey key;
  double v[4] = {};
};
template <class F>
const double* kept(Kept& k, const Row& in, F compute) {
  if (!k.key.same_or_set(in, 0)) compute(k.v);
  return k.v;
}

// Where the reference's steps leave the finite range (a product or a fold
// overflowing, inf - inf) although the exact value is another, the
// reference's result is its replay: graded against it (`replayed`), with
// the exact value (where `bound` is finite) and the other non-finite
// results as the latitude of another correct evaluation, as the dot
// products' overflowed folds are. `may_overflow`: a stage of the bound's
// replay (Stage below) could pass max_T, so even a finite replay (rms_norm's
// 1/sqrt(inf) = 0) is the reference's answer.
void settle_overflow(const Row& in, double (*replay_fn)(const Row&), B bound, bool may_overflow, Exact& out);

// A value of the reference's evaluation carried with a bound on its error:
// v the exact value of the stage (the function of the exact inputs, in B),
// e a bound on |computed - v|. Each operation is one correct rounding in T
// (the halves: an f32 operation and RNE, one rounding, Figueroa), so for
// approximations a^, b^ of a, b within ea, eb:
//   a + b: ea + eb + u (|a + b| + ea + eb)           (exact where it underflows)
//   a b:   |a| eb + |b| ea + ea eb, plus u |a^ b^| + ulp_min/2
//   a / b: (|b| ea + |a| eb) / (|b| (|b| - eb)), plus u |a^/b^| + ulp_min/2 (|b| > eb, else unbounded)
//   sqrt a: ea / (sqrt a + sqrt(max(a - ea, 0))), plus u sqrt(a^)          (a > 0)
//   fold of n terms from +0: sum e_k + gamma_(n-1) sum (|t_k| + e_k)  (Higham 4.4)
//   exp a: e^a ((1 + eps) e^(ea) - 1) + E ulp_min (libm within E ulps)
//   tanh a: ea (tanh is 1-Lipschitz) + eps_tanh (|tanh a| + ea) + E_tanh ulp_min
// A stage whose |v| + e reaches max_T may overflow in the reference:
// `overflow` records it.
//
// r: a bound on the root mean square of the same error, sqrt(E[(computed
// - v)^2]), for the case statistics (checks/case_statistics.cpp; derivation
// in docs/accuracy-bounds.md, "Statistics of the row kernels"). Each
// correct rounding is modelled as uniform on +-ulp/2 of its result: rms
// at most u (|v| + e) / sqrt(3) relative (ulp <= 2u|.|), plus ulp_min /
// sqrt(12) where it underflows; a libm call within E ulps keeps its
// worst case (units().eps_rms). The operands' errors may be correlated
// (they share earlier stages), so they combine by Minkowski's inequality
// (rms(a + b) <= rms(a) + rms(b)), with the same first-order factors as
// e; only a fold's own roundings, one per step, are taken as independent
// (in quadrature, the premise of the dot products' model). r <= e always
// (|err| <= e bounds its rms); NaN: unknown, read as e (rms() below).
struct Stage {
  B v = 0, e = 0;
  B r = std::numeric_limits<B>::quiet_NaN();
  B rms() const { return std::isnan(r) ? e : r; }
};
class Stages {
 public:
  explicit Stages(DType t) : un_(rows::units(t)) {}
  static Stage exact(B v) { return {v, 0, 0}; }
  Stage add(Stage a, Stage b) { return add_signed(a, b, 1); }
  Stage sub(Stage a, Stage b) { return add_signed(a, b, -1); }
  Stage mul(Stage a, Stage b);
  Stage div(Stage a, Stage b);
  Stage sqrt(Stage a);
  Stage exp(Stage a);
  Stage tanh(Stage a);
  Stage fold(std::span<const Stage> terms);
  bool overflow = false;
  const Units& units() const { return un_; }

 private:
  Stage add_signed(Stage a, Stage b, int sign);
  Stage note(Stage s);
  B rounding_rms(B magnitude) const;
  Units un_;
};

}  // namespace kc::oracle::rows
