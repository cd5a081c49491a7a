#include "engine/grading.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "engine/figure_grid.h"
#include "oracles/exact.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"

namespace kc::engine {

namespace {

using contract::AccuracyKind;
using contract::Outcome;
using contract::ValueClass;
using oracle::Mp;

bool matches(ValueClass c, double x) {
  switch (c) {
    case ValueClass::nan: return std::isnan(x);
    case ValueClass::pos_inf: return x == INFINITY;
    case ValueClass::neg_inf: return x == -INFINITY;
    case ValueClass::pos_zero: return x == 0 && !std::signbit(x);
    case ValueClass::neg_zero: return x == 0 && std::signbit(x);
  }
  return false;
}

double outcome_value(Outcome o, double x) {
  switch (o) {
    case Outcome::nan: return NAN;
    case Outcome::pos_inf: return INFINITY;
    case Outcome::neg_inf: return -INFINITY;
    case Outcome::pos_zero: return 0.0;
    case Outcome::neg_zero: return -0.0;
    case Outcome::pos_one: return 1.0;
    case Outcome::neg_one: return -1.0;
    case Outcome::same: return x;
  }
  return NAN;
}

// Same value, NaN matching NaN (any payload), signed zeros distinguished.
bool same_value(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

std::string decimal(const Mp& z) {
  if (oracle::is_nan(z)) return "NaN";
  if (oracle::is_inf(z)) return oracle::sign_bit(z) ? "-inf" : "inf";
  if (oracle::is_zero(z)) return oracle::sign_bit(z) ? "-0" : "0";
  return z.str(25, std::ios_base::scientific);
}

// The exact value of the element at the current precision, into ex (reset
// first: its MPFR numbers' storage is reused).
const oracle::Exact& evaluate(const Context& c, const drivers::Element& e, const Params& params, oracle::Exact& ex) {
  const bool variance = c.statistics_case && e.statistics_sample;
  const oracle::Context ctx{c.t, c.k.out_dtype(c.t), &params, e.signaling_nan, variance};
  ex.reset();
  c.driver.evaluate(c.k, ctx, e, ex);
  if (!variance) ex.error_variance.reset();
  return ex;
}

// Integer results (argmax/argmin, casts to u32) are compared as values.
Grade grade_integer(double y, const oracle::Exact& ex) {
  Grade g;
  g.rn = ex.value.convert_to<double>();
  g.frac = std::fabs(y - g.rn);
  g.distance = static_cast<std::int64_t>(g.frac);
  g.pass = y == g.rn;
  for (const Mp& alt : ex.alternatives)
    if (!g.pass && alt.convert_to<double>() == y) {
      g.pass = true;
      g.reference_choice = "another of the indices the operation allows (a tie, or the first NaN)";
    }
  if (!g.pass) g.why = "not the exact integer result", g.failure = Failure::wrong_integer;
  return g;
}

// The grade proper, at the current working precision.
Grade grade_at(const contract::KernelSpec& k, const contract::Accuracy& acc, DType t, double x, double y,
               const Params& params, const oracle::Exact& ex, const oracle::Rounded& r) {
  Grade g;
  g.rn = r.value;
  g.replayed = ex.replayed;
  g.unbounded = ex.replayed && ex.unbounded;
  g.error_variance = ex.error_variance;
  const bool z_nan = oracle::is_nan(ex.value);
  g.overflow = std::isinf(r.value) && std::isfinite(x);
  // Agreement on NaN or on an infinity is a pass with no ulp figure (frac
  // NaN): it does not enter the error statistics (accuracy.md, special values).
  if (z_nan || std::isnan(y)) {
    g.distance = -1;
    g.frac = NAN;
    if (z_nan && std::isnan(y)) return g;
    g.pass = false;
    g.frac = INFINITY;
    g.failure = z_nan ? Failure::missing_nan : Failure::nan_result;
    g.why = z_nan ? "the exact result is NaN but the kernel returned a number"
                  : "the kernel returned NaN for a non-NaN exact result";
    return g;
  }
  // A condition-aware result may legitimately stay finite when the exact
  // value lies just past the overflow threshold (a sum whose partial sums
  // never overflow): with z and y finite the model's bound decides.
  const bool finite_z = oracle::is_number(ex.value);
  const bool bound_decides = acc.kind == AccuracyKind::condition_aware && finite_z && std::isfinite(y);
  if ((std::isinf(r.value) || std::isinf(y)) && !bound_decides) {
    g.distance = -1;
    g.frac = NAN;
    if (r.value == y) return g;
    g.pass = false;
    g.frac = INFINITY;
    g.failure = std::isinf(r.value) ? Failure::missed_overflow : Failure::spurious_inf;
    g.why = std::isinf(r.value) ? "the correctly rounded result is infinite (overflow) but the kernel returned a "
                                  "finite value or the other infinity"
                                : "the kernel returned an infinity where the correctly rounded result is finite";
    return g;
  }
  const oracle::Difference diff = oracle::difference(t, y, ex.value);
  g.signed_frac = diff.ulps;
  g.frac = std::fabs(g.signed_frac);
  if (std::isfinite(y) && oracle::is_number(ex.value)) {  // for a backend's claim in absolute or relative terms
    g.abs_err = std::fabs(diff.value);
    if (!oracle::is_zero(ex.value)) g.rel_err = diff.relative;
  }
  g.distance = std::isinf(r.value) ? -1 : oracle::ulp_distance(t, y, r.value);
  if (ex.replayed) {  // bit-exact against the replayed reference
    g.bound = 0;
    g.pass = g.distance == 0;
    if (!g.pass) g.why = "differs from the reference's steps, replayed where they leave the normal range",
                 g.failure = Failure::replay_mismatch;
    return g;
  }
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (sign_graded && k.zero_sign_checked && y == 0 && r.value == 0 && std::signbit(y) != std::signbit(r.value)) {
    g.pass = false;
    g.why = "wrong sign of zero";
    g.failure = Failure::zero_sign;
    return g;
  }
  switch (acc.kind) {
    case AccuracyKind::exact:
      g.bound = 0;
      g.pass = g.frac == 0;
      if (!g.pass) g.why = "not the exact result", g.failure = Failure::not_exact;
      break;
    case AccuracyKind::correctly_rounded:
      g.bound = 0.5;
      g.pass = g.distance == 0;
      if (!g.pass) g.why = "not correctly rounded", g.failure = Failure::not_correctly_rounded;
      break;
    case AccuracyKind::ulp_bound: {
      g.bound = acc.max_frac_ulp;
      if (acc.param_bound) g.bound = acc.param_bound(t, params.integer(std::string(acc.bound_param)));
      const bool frac_ok = g.frac <= g.bound;
      const bool dist_ok = acc.max_distance < 0 || g.distance <= acc.max_distance;
      g.pass = frac_ok && dist_ok;
      if (!frac_ok) g.why = fmt::format("fractional error above the bound of {:.6g} ulp", g.bound), g.failure = Failure::frac_bound;
      else if (!dist_ok)
        g.why = fmt::format("integer distance above the bound of {}", acc.max_distance), g.failure = Failure::distance_bound;
      g.bias_sample = acc.check_bias;
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    }
    case AccuracyKind::condition_aware: {
      // bound = A ulp_T(z) + K u_work S, with u_work = 2^-p of the working format.
      const int e = oracle::ulp_exponent(t, ex.value);
      const double ulp = std::ldexp(1.0, e);
      const double S = ex.magnitude ? ex.magnitude->convert_to<double>() : 0.0;
      const double u_work = oracle::unit_roundoff(acc.work);
      const double bound_abs = acc.max_frac_ulp * ulp + acc.magnitude_coeff * u_work * S;
      const double err = diff.value;
      if (bound_abs >= 0x1p-1022 || !ex.magnitude) {
        g.normalized = bound_abs > 0 ? std::fabs(err) / bound_abs : (err == 0 ? 0.0 : INFINITY);
        if (bound_abs > 0) g.signed_ratio = err / bound_abs;
        g.bound_abs = bound_abs;
      } else {
        // A bound below double's normal range (f64 sums of products that
        // underflow) loses its relative precision as a double, or becomes
        // 0: the ratio in ulps of z instead, both sides of moderate size.
        oracle::Mp s = *ex.magnitude;
        mpfr_mul_2si(oracle::raw(s), oracle::raw(s), -e, MPFR_RNDN);
        const double bound_ulps = acc.max_frac_ulp + acc.magnitude_coeff * u_work * s.convert_to<double>();
        g.normalized = bound_ulps > 0 ? std::fabs(diff.ulps) / bound_ulps : (diff.ulps == 0 ? 0.0 : INFINITY);
        if (bound_ulps > 0) g.signed_ratio = diff.ulps / bound_ulps;
        g.bound_abs = bound_ulps * ulp;
      }
      g.bound = 1;
      g.pass = *g.normalized <= 1;
      if (!g.pass)
        g.why = fmt::format("error above the condition-aware bound {:.6g} ulp + {} u S", acc.max_frac_ulp,
                            acc.magnitude_coeff),
        g.failure = Failure::normalized_bound;
      // The bias statistic takes the signed ulp error where the result does
      // not cancel (S <= 4|z|): there rounding errors carry the sign of a
      // systematic defect; where it cancels they are amplified noise.
      g.bias_sample = acc.check_bias && S <= 4 * std::fabs(ex.value.convert_to<double>());
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    }
  }
  return g;
}

// Where the reference made a choice: y passes if it is one of the other
// results a correct kernel may return, or (a replayed value) if it meets
// the accuracy model against the exact value.
void accept_other_choice(const Context& c, const contract::Accuracy& acc, DType t_out, double x, double y,
                         const Params& params, const oracle::Exact& ex, Grade& g) {
  for (const Mp& alt : ex.alternatives) {
    const double a = oracle::round_to(t_out, alt);
    if (same_value(a, y)) {
      const double rn = g.rn;
      g = Grade{};
      g.rn = rn;
      g.reference_choice = "another of the results the operation allows (NaN rule, tie, sign of an equal zero)";
      g.frac = NAN, g.distance = -1;
      return;
    }
  }
  if (!ex.replayed || !ex.unreplayed) return;
  oracle::Exact exact = ex;
  exact.value = *ex.unreplayed;
  exact.replayed = false;
  Grade other = grade_at(c.k, acc, t_out, x, y, params, exact, oracle::round_checked(t_out, exact.value));
  if (!other.pass) return;
  other.reference_choice = "within the accuracy model of the exact value, where the reference's evaluation order "
                           "leaves the normal range";
  g = other;
}

// The special-value rule the element's input matches, if any.
const contract::SpecialRule* special_rule(const contract::KernelSpec& k, const drivers::Element& e) {
  if (!e.special_input) return nullptr;
  for (const auto& rule : k.specials)
    if (matches(rule.input, *e.special_input)) return &rule;
  return nullptr;
}

}  // namespace

std::string special_rule_name(const contract::SpecialRule& r) {
  return fmt::format("{}->{}", contract::value_class_name(r.input), contract::outcome_name(r.output));
}

namespace {
// The native replay of the element, when the entry has one.
void add_replay(const Context& c, const drivers::Element& e, std::uint64_t y_bits, const Params& params, Figures& g) {
  if (!c.k.replay) return;
  const DType t_out = c.k.out_dtype(c.t);
  g.replay = c.k.replay(oracle::ReplayIn{c.t, t_out, &params, e.args, e.signaling_nan, e.form});
  g.replay_bits = double_to_bits_exact(t_out, g.replay);  // every bit, a NaN's quiet bit included
  g.semantics_ok = g.replay_bits == y_bits;
}
Grade grade_oracle(const Context& c, const drivers::Element& e, double y, const Params& params);
bool grade_fast(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g);
bool grade_cheap(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g);
}  // namespace

bool grade_fast_figures(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits,
                        const Params& params, Figures& out) {
  if (!c.opts.fast_oracle || !grade_fast(c, e, y, params, out)) return false;
  add_replay(c, e, y_bits, params, out);
  return true;
}

Grade grade_element(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits, const Params& params,
                    GradeMode mode) {
  Grade g;
  if (mode == GradeMode::any && grade_fast_figures(c, e, y, y_bits, params, g)) return g;
  if (mode == GradeMode::exact || !grade_cheap(c, e, y, params, g)) g = grade_oracle(c, e, y, params);
  add_replay(c, e, y_bits, params, g);
  return g;
}

namespace {

// 2^e <= |x| < 2^(e+1) for a normal double x, read from its bits (std::ilogb
// is a library call, and this runs per element).
[[gnu::always_inline]] inline int binade_of(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  return biased == 0 ? std::ilogb(x) : biased - 1023;
}

// The midpoints between the finite T value r and its neighbours below and
// above, exact in double (T values have <= 24 bits). Half an ulp of r on
// either side, except below a power of two r = 2^e above emin, where the
// spacing halves; the upper midpoint of the largest finite value is the
// overflow threshold max + ulp/2.
[[gnu::always_inline]] inline void midpoints(const FloatFormat& f, double r, double& lo, double& hi) {
  if (r == 0) {
    hi = pow2(f.emin - f.precision);
    lo = -hi;
    return;
  }
  const double a = std::fabs(r);
  const int e = std::max(binade_of(a), f.emin);
  const double away = pow2(e - f.precision);
  const double toward = a == pow2(e) && e > f.emin ? away / 2 : away;
  lo = r > 0 ? r - toward : r - away;
  hi = r > 0 ? r + away : r + toward;
}

// Where z lies with respect to the double b, for |v + tail - z| <= err:
// +1 above, -1 below, 0 when the bound cannot tell. t = v - b and s = t +
// tail each round once in double (relative error <= 2^-53), so |s - (v +
// tail - b)| <= 2^-52 (|t| + |tail|), taken as 2^-51 to spare the proof its
// second-order terms. (A sum whose result is subnormal is exact: both
// operands are multiples of 2^-1074, so no term for underflow is needed.)
[[gnu::always_inline]] inline int side(double v, double tail, double err, double b) {
  const double t = v - b, s = t + tail;
  const double slack = err + 0x1p-51 * (std::fabs(t) + std::fabs(tail));
  return s > slack ? 1 : s < -slack ? -1 : 0;
}

// The accuracy model, when an approximation of z may decide this kernel's
// elements in this dtype at all: a result of a float dtype of at most 24
// bits (the midpoints of T are exact in double), a model with a fixed bound
// and no magnitude S, and the result in the input dtype unless the model is
// exact (dequantize_blocks: u32 words in, the values exact in f32).
// nullptr: MPFR's, always.
const contract::Accuracy* approximable_model(const Context& c) {
  const DType out = c.k.out_dtype(c.t);
  if (!is_float(out) || out == DType::f64) return nullptr;
  const contract::Accuracy* acc = c.k.accuracy_for(c.t);
  if (!acc || acc->kind == AccuracyKind::condition_aware || acc->param_bound) return nullptr;
  if (out != c.t && acc->kind != AccuracyKind::exact) return nullptr;
  return acc;
}

// The model, when an approximation may decide this element: one per
// operand, finite operands that meet no special-value rule, a result that
// is not NaN. nullptr: the element is MPFR's at the working precision.
const contract::Accuracy* approximable(const Context& c, const drivers::Element& e, double y) {
  if (e.args.size() != c.k.inputs.size() || e.args.size() > 2 || e.signaling_nan || std::isnan(y)) return nullptr;
  bool zero_arg = false;
  for (double arg : e.args) {
    if (!std::isfinite(arg)) return nullptr;
    zero_arg |= arg == 0;
  }
  // Special-value rules name NaN, the infinities and the zeros: with
  // finite operands only a zero can meet one.
  if (zero_arg && special_rule(c.k, e)) return nullptr;
  return approximable_model(c);
}

// The element graded from an approximation v + tail of z, within err
// (oracles/fast.h), when nothing reported can depend on err: the rounding
// RN_T(z) and the ulp of z are the same for every value within err, and
// the fractional error stays clear of the bound and of the histogram
// edges. Anything else (a failure, a near-tie, a zero whose sign is
// graded) returns false and is graded with MPFR at the working precision.
// The figures are those grade_at gives, to within the uncertainties set.
// The model's verdict on approximate figures g (decide()'s last step):
// true where it passes them with room to spare (off the bound and off
// every histogram edge by more than their uncertainty, and every figure
// within it on one point of the tallies' grid, engine/figure_grid.h),
// setting the bound and the bias sample; false: the element is MPFR's.
// exact_value: z itself is known exactly (err 0, no tail).
template <class Out>
[[gnu::always_inline]] inline bool model_decides(const contract::Accuracy& acc, bool exact_value, Out& g) {
  switch (acc.kind) {
    case AccuracyKind::exact:
      if (!exact_value || g.frac != 0) return false;
      g.bound = 0;
      break;
    case AccuracyKind::correctly_rounded:
      if (g.distance != 0) return false;
      g.bound = 0.5;
      break;
    case AccuracyKind::ulp_bound:
      g.bound = acc.max_frac_ulp;
      if (g.frac + g.uncertainty > g.bound || (acc.max_distance >= 0 && g.distance > acc.max_distance))
        return false;
      g.bias_sample = acc.check_bias;
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    case AccuracyKind::condition_aware: return false;
  }
  return !near_histogram_edge(g.frac, g.uncertainty) && one_grid_point(g.frac, g.uncertainty);
}

// 0 < |z| < 2^-1224 (Approx::tiny): RN_T(z) is a zero of z's sign, and
// for y = 0 every figure is exact in double (fast.h); anything else is
// MPFR's.
template <class Out>
[[gnu::always_inline]] inline bool decide_tiny(const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                                               Out& g) {
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (y != 0 || acc.kind == AccuracyKind::exact || (sign_graded && std::signbit(y) != (a.tiny < 0))) return false;
  g = Out{};
  g.approximate = true;
  g.rn = a.tiny < 0 ? -0.0 : 0.0;
  g.abs_err = 0;
  g.rel_err = 1;
  g.bound = acc.kind == AccuracyKind::ulp_bound ? acc.max_frac_ulp : 0.5;
  g.bias_sample = acc.kind == AccuracyKind::ulp_bound && acc.check_bias;
  return true;
}

// RN_T(z) = +-inf (sign sgn): as grade_at, a pass with no ulp figure where
// the kernel returns that infinity; anything else is a failure, MPFR's.
// g: freshly reset, approximate.
template <class Out>
[[gnu::always_inline]] inline bool decide_overflow(int sgn, double y, Out& g) {
  g.rn = sgn * INFINITY;
  g.overflow = true;
  g.distance = -1;
  g.frac = NAN;
  return y == g.rn;
}

// z = v = +-0 exactly (e^x below MPFR's exponent range, fast.h) and y a
// zero of the same sign: decide()'s branches for an exact value of the
// subnormal binade, taken in order (the figures are those it sets: no
// error, no relative error of a zero).
template <class Out>
[[gnu::always_inline]] inline bool decide_exact_zero(const FloatFormat& f, const contract::Accuracy& acc, double y,
                                                     double v, Out& g) {
  g = Out{};
  g.approximate = true;
  g.rn = v;
  const int q = f.emin - f.precision + 1;
  const double diff = y - v;
  g.signed_frac = diff * pow2(-q);
  g.frac = std::fabs(g.signed_frac);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = 0;
  g.uncertainty = 0;
  g.distance = 0;
  return model_decides(acc, true, g);
}

// The common case of decide() (most of a sweep), in a fraction of its
// instructions: z near one double s = v + tail (for a plain double, s = v
// and es = err, where err >= 2^-53 |v|, as every libm and once-rounded
// approximation gives, or err = 0: z = v exactly; a double-double's tail, at most |s| / 16, is folded
// in with one rounding more: |s - z| <= es = err + 2^-53 |s|) whose
// widened interval s +- 2 es lies, in magnitude, inside one normal binade
// of T, below `below` and below half the overflow threshold, and a finite
// non-zero y. Where a double-double's interval straddles one power of two
// P (e^x = 1 + expm1(x) for a tiny x sits at P = 1), its unrounded parts
// tell z's side as decide() tells it (side()), and the interval is cut
// there. Then the general procedure takes its plain branches only: no
// overflow, the midpoint test, the ulp from that binade, the relative
// error from 1/|s|, no sign of zero. nullopt: not this case (decide() goes
// on); else decide()'s answer, with the figures it sets
// (FastOracle.CommonCaseIsDecide holds the two equal). A double-double
// whose interval meets a midpoint also goes on: decide()'s own test of its
// parts is finer than the widened interval's. (w_lo and w_hi below are the
// magnitudes of decide's wide_lo and wide_hi: |s| -+ 2 es rounds as s -+ 2
// es does, mirrored.)
template <class Out>
[[gnu::always_inline]] inline std::optional<bool> decide_common(DType t_out, const FloatFormat& f,
                                                                const contract::Accuracy& acc, double y,
                                                                const oracle::fast::Approx& a, Out& g) {
  const double v = a.value, tail = a.tail, err = a.err, s = v + tail, as = std::fabs(s);
  if (a.tiny) return decide_tiny(acc, y, a, g);
  if (a.huge) {
    g = Out{};
    g.approximate = true;
    return decide_overflow(a.huge, y, g);
  }
  if (v == 0 && err == 0 && tail == 0 && !a.huge && a.above < 0 && y == 0 && std::signbit(y) == std::signbit(v))
    return decide_exact_zero(f, acc, y, v, g);
  const double es = tail == 0 ? err : err + 0x1p-53 * as;
  const bool exact_value = err == 0 && tail == 0;  // (the interval is the value: no rounding widens it)
  if (a.tiny || a.huge || !(es >= 0x1p-53 * as || exact_value) || !(es < INFINITY) || y == 0 || !std::isfinite(y) ||
      !(std::fabs(tail) <= 0x1p-4 * as))
    return std::nullopt;
  double w_lo = as - 2 * es, w_hi = as + 2 * es;
  const double min_norm = pow2(f.emin), half_threshold = (1 - pow2(-f.precision - 1)) * pow2(f.emax);
  int e = binade_of(w_lo);
  if (!(w_lo >= min_norm && w_hi < half_threshold && w_hi < a.below)) return std::nullopt;
  if (binade_of(w_hi) != e) {
    if (tail == 0 || binade_of(w_hi) != e + 1) return std::nullopt;
    const double p = pow2(e + 1);
    const int above = side(v, tail, err, std::copysign(p, s)) * (s < 0 ? -1 : 1);  // +1: |z| > P
    if (above == 0) return std::nullopt;
    if (above > 0) w_lo = p, e = e + 1;
    else w_hi = p;
  }
  g = Out{};
  g.approximate = true;
  const double ar = t_out == DType::f32 ? static_cast<double>(static_cast<float>(as)) : round_to_format(as, t_out);
  // midpoints() of |r| (>= 2^e >= 2^emin): half an ulp above, and below
  // too unless |r| is a power of two above emin, where the spacing halves.
  const int er = binade_of(ar);
  const double away = pow2(er - f.precision), toward = ar == pow2(er) && er > f.emin ? away / 2 : away;
  if (!(w_lo > ar - toward && w_hi < ar + away)) return tail == 0 ? std::optional<bool>(false) : std::nullopt;
  const double r = std::copysign(ar, s);
  const int q = e - f.precision + 1;
  g.rn = r;
  // y - v - tail: two roundings in double, so the error figures carry err
  // plus those (as decide's).
  const double d1 = y - v, diff = d1 - tail;
  const double abs_unc = err + 0x1p-52 * (std::fabs(d1) + std::fabs(tail));
  g.signed_frac = diff * pow2(-q);
  g.frac = std::fabs(g.signed_frac);
  g.uncertainty = abs_unc * pow2(-q);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = abs_unc;
  const double inv = 1 / as, d = 0x1p-52 + err * inv;
  if (!(d <= 0x1p-10)) return false;
  g.rel_err = g.abs_err * inv;
  g.rel_uncertainty = (g.abs_err + abs_unc) * inv * (1 + 2 * d) * (1 + 0x1p-50) - g.rel_err;
  g.distance = y == r ? 0 : std::abs(ordered_bits(t_out, double_to_bits(t_out, y)) - ordered_bits(t_out, double_to_bits(t_out, r)));
  return model_decides(acc, exact_value, g);
}

template <class Out, bool kCommon = true>
bool decide(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a, Out& g) {
  const DType t_out = c.k.out_dtype(c.t);
  if constexpr (kCommon)
    if (const auto common = decide_common(t_out, float_format(t_out), acc, y, a, g)) return *common;
  const double v = a.value, tail = a.tail, err = a.err;
  if (a.tiny) return decide_tiny(acc, y, a, g);
  if (!a.huge && !(std::isfinite(v) && std::isfinite(tail) && std::isfinite(err))) return false;
  const FloatFormat f = float_format(t_out);
  const double min_norm = pow2(f.emin);
  // RN_T ties to even at the overflow threshold max + ulp/2 (max is odd),
  // so an exact value at or above it rounds to infinity.
  const double threshold = (2 - pow2(-f.precision)) * pow2(f.emax);
  g = Out{};
  g.approximate = true;  // (precision 0: no MPFR evaluation decided it)
  // The sign of z (of v for an exact zero: -0 stays -0).
  const int sgn = a.huge ? a.huge : std::signbit(tail == 0 ? v : v + tail) ? -1 : 1;
  // (The comparisons with side() are skipped where a margin of a factor of
  // two, far beyond any rounding of these sums, decides them.)
  const double reach = std::fabs(v) + std::fabs(tail) + err;  // >= |z|, to within a rounding
  if (a.huge || (reach >= threshold / 2 && side(v, tail, err, sgn * threshold) == sgn)) return decide_overflow(sgn, y, g);
  if (std::isinf(y)) return false;  // a spurious infinity: MPFR's
  // RN_T(z): the T value r nearest v + tail, when every value within err
  // of it lies strictly between the midpoints around r (exact in double,
  // midpoints(); above max, the overflow threshold).
  // (f32 inline: a call per element otherwise)
  const double r = std::copysign(t_out == DType::f32 ? static_cast<double>(static_cast<float>(v + tail))
                                                    : round_to_format(v + tail, t_out), sgn);
  if (!std::isfinite(r)) return false;
  double mid_lo, mid_hi;
  midpoints(f, r, mid_lo, mid_hi);
  // The common case, a plain double with a relative bound of at least
  // 2^-53: the interval widened to v +- 2 err contains [v - err, v + err]
  // even after its own rounding (<= 2^-53 |v| <= err), so plain
  // comparisons decide what side() decides in general.
  const bool plain = tail == 0 && err >= 0x1p-53 * std::fabs(v);
  const double wide_lo = v - 2 * err, wide_hi = v + 2 * err;
  if (plain ? !(wide_lo > mid_lo && wide_hi < mid_hi)
            : side(v, tail, err, mid_lo) != 1 || side(v, tail, err, mid_hi) != -1)
    return false;
  // The ulp of z: 2^(max(e, emin) - p + 1) for 2^e <= |z| < 2^(e+1), the
  // same for every value within err: below the normal range it does not
  // depend on e; above, |z| must lie in one binade, which `below` and
  // `above` (strict bounds the function knows) may close at a power of two.
  int q = f.emin - f.precision + 1;
  const double mag = std::fabs(v + tail);
  const bool exact_value = err == 0 && tail == 0;
  const double wide_mag_lo = std::fabs(sgn > 0 ? wide_lo : wide_hi), wide_mag_hi = std::fabs(sgn > 0 ? wide_hi : wide_lo);
  if (exact_value && mag >= min_norm) {
    q = binade_of(mag) - f.precision + 1;
  } else if (plain && wide_mag_hi < min_norm && (sgn > 0 ? wide_lo : -wide_hi) >= 0) {
    // (below the normal range: the subnormal ulp)
  } else if (plain && wide_mag_lo >= min_norm && wide_mag_hi < a.below && (sgn > 0 ? wide_lo : -wide_hi) > 0 &&
             binade_of(wide_mag_lo) == binade_of(wide_mag_hi)) {
    q = binade_of(wide_mag_lo) - f.precision + 1;
  } else if (!exact_value && (reach >= 2 * min_norm || side(v, tail, err, sgn * min_norm) != -sgn)) {
    if (mag == 0) return false;
    int ev = binade_of(mag);
    // v + tail rounded may sit at the power of two just above z's binade.
    int lo_side = side(v, tail, err, sgn * pow2(ev));
    if (lo_side == -sgn) lo_side = side(v, tail, err, sgn * pow2(--ev));
    const double lo = pow2(ev), hi = pow2(ev + 1);
    const bool lo_ok = lo_side == sgn || a.above >= lo;
    const bool hi_ok = side(v, tail, err, sgn * hi) == -sgn || a.below <= hi;
    if (!lo_ok || !hi_ok || ev < f.emin) return false;
    q = ev - f.precision + 1;
  }
  g.rn = r;
  g.overflow = false;
  // y - v - tail: two roundings in double, so the error figures carry err
  // plus those.
  const double d1 = y - v, diff = d1 - tail;
  const double abs_unc = err + 0x1p-52 * (std::fabs(d1) + std::fabs(tail));  // (subnormal differences: exact)
  g.signed_frac = diff * pow2(-q);  // exact: a power of two within range
  g.frac = std::fabs(g.signed_frac);
  g.uncertainty = abs_unc * pow2(-q);
  g.abs_err = std::fabs(diff);
  g.abs_uncertainty = abs_unc;
  if (y == 0 && (a.above >= 0 || side(v, tail, err, 0) != 0)) {
    g.rel_err = 1;  // |0 - z| / |z| for a z known not to be zero
  } else if (mag != 0 || err != 0) {
    // |z| >= |v + tail| (1 - d) with d = 2^-52 + err / |v + tail| (the
    // rounding of v + tail, then err); for d <= 2^-10, 1 / (1 - d) <= 1 + 2d,
    // and the products with the rounded reciprocal stay within another
    // 2^-50: one division per element, not two.
    if (mag == 0) return false;
    const double inv = 1 / mag, d = 0x1p-52 + err * inv;
    if (!(d <= 0x1p-10)) return false;
    g.rel_err = g.abs_err * inv;
    g.rel_uncertainty = (g.abs_err + abs_unc) * inv * (1 + 2 * d) * (1 + 0x1p-50) - g.rel_err;
  }
  // (T has at most 24 bits here: the images' difference fits, and f32's is inline.)
  g.distance = y == r ? 0 : std::abs(ordered_bits(t_out, double_to_bits(t_out, y)) - ordered_bits(t_out, double_to_bits(t_out, r)));
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (sign_graded && c.k.zero_sign_checked && y == 0 && r == 0 && (!exact_value || std::signbit(y) != std::signbit(r)))
    return false;  // the sign of a zero: MPFR's
  return model_decides(acc, exact_value, g);
}

// An exact model's failure where z is exactly a normal T value v (a data
// mover's element, a dequantized value) and y another non-zero finite
// one: every figure grade_at gives is exact in double (y - v where that
// subtraction is exact, scaled by a power of 2; the distance), but the
// relative error, rounded once here and twice there (at the working
// precision, then to double): it carries an uncertainty, and needs_exact
// regrades an element whose figures could be shown or move a maximum. A
// backend that fails millions of elements (a mutant of dequantize_blocks)
// is graded at the fast path's cost. The failure's words (`why`) are
// grade_at's; an element whose report is kept is regraded by MPFR
// (engine/case_run.cpp).
bool fast_exact_failure(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                        Figures& g) {
  const DType t_out = c.k.out_dtype(c.t);
  const double v = a.value, av = std::fabs(v);
  if (acc.kind != AccuracyKind::exact || a.err != 0 || a.tail != 0 || a.tiny || a.huge || !std::isfinite(y) || y == 0 ||
      y == v || !(av >= pow2(float_format(t_out).emin)) || !(av <= max_finite(t_out)) || round_to_format(v, t_out) != v)
    return false;
  // y - v, and whether it is exact (TwoSum's error term is 0).
  const double d1 = y - v, bv = d1 - y, av2 = d1 - bv, err = (y - av2) + (-v - bv);
  if (err != 0 || !std::isfinite(d1)) return false;
  const int q = binade_of(av) - float_format(t_out).precision + 1;
  g = Figures{};
  g.approximate = true;
  g.pass = false;
  g.failure = Failure::not_exact;
  g.bound = 0;
  g.rn = v;
  g.signed_frac = d1 * pow2(-q);
  g.frac = std::fabs(g.signed_frac);
  g.abs_err = std::fabs(d1);
  g.rel_err = g.abs_err / av;
  g.rel_uncertainty = 0x1p-52 * g.rel_err;
  g.distance = std::abs(ordered_bits(t_out, double_to_bits(t_out, y)) - ordered_bits(t_out, double_to_bits(t_out, v)));
  return true;
}

// The double fast path: the kernel's exact function in double with its
// bound (oracles/fast.h), decided as above (or an exact model's failure).
bool grade_fast(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g) {
  if (!c.k.fast) return false;
  const contract::Accuracy* acc = approximable(c, e, y);
  oracle::fast::Approx a;
  return acc && c.k.fast(e.args.data(), c.t, params, a) && (decide(c, *acc, y, a, g) || fast_exact_failure(c, *acc, y, a, g));
}

// The first, cheap evaluation of an oracle that rounds once (KernelSpec::
// oracle_rounds_once): MPFR at 64 bits asked for (Boost rounds them up to
// 71, two limbs; MPFR's exp there costs about half what it does at f32's
// 157), z_w = z (1 + d) with |d| <= 2^-w for w = the value's precision.
// z_w is exactly the double-double hi + lo (w <= 106), so it is decided as
// the double fast path is, with err = 2^(1-w) |hi| (> |z_w - z|): one
// decision procedure for both approximations. Below 2^-900 (e^x for x <
// -623, far below every dtype's subnormals; the tail stays a normal double
// above) the value is taken as the interval (0, 2^-899) with its sign; where MPFR's own exponent range ends
// (e^x for x < -7.4e8) it returns an exact 0, and so does this.
constexpr unsigned kCheapBits = 64;

bool grade_cheap(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g) {
  if (!c.k.oracle_rounds_once) return false;
  const contract::Accuracy* acc = approximable(c, e, y);
  if (!acc) return false;
  oracle::PrecisionScope scope(kCheapBits);
  static thread_local oracle::Exact reused;  // (one per thread: evaluate above)
  const oracle::Exact& ex = evaluate(c, e, params, reused);
  if (ex.replayed || !ex.alternatives.empty() || ex.magnitude || !oracle::is_number(ex.value)) return false;
  const mpfr_t& z = oracle::raw(ex.value);
  const long w = static_cast<long>(mpfr_get_prec(z));
  oracle::fast::Approx a;
  const double hi = mpfr_get_d(z, MPFR_RNDN);
  if (std::isinf(hi)) {
    a.huge = hi > 0 ? 1 : -1;
  } else if (mpfr_zero_p(z)) {
    a.value = hi;  // an exact (signed) zero
  } else if (mpfr_get_exp(z) <= -1224) {
    a.tiny = mpfr_signbit(z) ? -1 : 1;  // |z| < 2^-1224 (fast.h)
  } else if (std::fabs(hi) < 0x1p-900) {
    a.value = std::copysign(0x1p-900, hi);
    a.err = 0x1p-900;
    a.above = 0;
  } else if (w <= 128) {
    // z_w = +-m 2^(E - 128), m the 128-bit significand (two limbs, MPFR's
    // custom interface): hi = RN(m), lo = m - hi exactly (<= 75 bits
    // left, of which the w - 53 that can be non-zero fit a double).
    const auto* limbs = static_cast<const mp_limb_t*>(mpfr_custom_get_significand(z));
    const unsigned __int128 m = w <= 64 ? static_cast<unsigned __int128>(limbs[0]) << 64
                                        : (static_cast<unsigned __int128>(limbs[1]) << 64) | limbs[0];
    const double m_hi = static_cast<double>(m);  // rounds to nearest (up to 2^128 at most)
    const unsigned __int128 hi_int = m_hi >= 0x1p128 ? 0 : static_cast<unsigned __int128>(m_hi);
    const auto rest = static_cast<__int128>(m - hi_int);  // modulo 2^128: m - 2^128 when m rounded up to it
    const int scale = static_cast<int>(mpfr_get_exp(z)) - 128;
    const double sign = mpfr_signbit(z) ? -1.0 : 1.0;
    a.value = sign * std::ldexp(m_hi, scale);
    a.tail = sign * std::ldexp(static_cast<double>(rest), scale);
    a.err = std::fabs(a.value) * pow2(static_cast<int>(1 - w));
  } else {
    return false;
  }
  if (!decide(c, *acc, y, a, g)) return false;
  g.precision = static_cast<unsigned>(w);
  return true;
}

Grade grade_oracle(const Context& c, const drivers::Element& e, double y, const Params& params) {
  const double x = e.args.empty() ? 0.0 : e.args.front();
  const DType t_out = c.k.out_dtype(c.t);
  if (const contract::SpecialRule* rule = special_rule(c.k, e)) {
    Grade g;
    g.special = true;
    g.rule = special_rule_name(*rule);
    g.rn = outcome_value(rule->output, x);
    g.distance = -1;
    g.pass = same_value(g.rn, y);
    for (const contract::Outcome o : rule->also)
      if (!g.pass && same_value(outcome_value(o, x), y)) {
        g.pass = true;
        g.reference_choice = fmt::format("{} gives {} where the reference gives {}", contract::value_class_name(rule->input),
                                         contract::outcome_name(o), contract::outcome_name(rule->output));
      }
    if (!g.pass) {
      g.frac = INFINITY;
      g.failure = Failure::special_rule;
      g.why = fmt::format("special-value rule {} broken", g.rule);
    }
    return g;
  }
  const contract::Accuracy* acc = c.k.accuracy_for(c.t);
  unsigned bits = oracle::working_bits(c.t);
  bool was_midpoint = false;
  Grade g;
  for (int attempt = 0; attempt < 3; ++attempt) {
    oracle::PrecisionScope scope(bits);
    static thread_local oracle::Exact reused;  // (one per thread: evaluate above)
    const oracle::Exact& ex = evaluate(c, e, params, reused);
    if (!is_float(t_out)) {
      g = grade_integer(y, ex);
      g.precision = bits;
      return g;
    }
    const oracle::Rounded r = oracle::round_checked(t_out, ex.value);
    g = grade_at(c.k, *acc, t_out, x, y, params, ex, r);
    if (!g.pass) accept_other_choice(c, *acc, t_out, x, y, params, ex, g);
    g.escalations = attempt;
    g.precision = bits;
    // Ziv: re-evaluate when the value sits on a rounding boundary, unless
    // it is an exact midpoint at two precisions (then it is one: x + c ties).
    if (!r.near_boundary || (r.exactly_midpoint && was_midpoint)) break;
    was_midpoint = r.exactly_midpoint;
    bits *= 2;
  }
  return g;
}
}  // namespace

std::optional<bool> decide_common_for_test(const Context& c, const contract::Accuracy& acc, double y,
                                           const oracle::fast::Approx& a, Figures& g) {
  return decide_common(c.t, float_format(c.t), acc, y, a, g);
}
bool decide_general_for_test(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                             Figures& g) {
  return decide<Figures, false>(c, acc, y, a, g);
}

const contract::Accuracy* fast_model(const Context& c) {
  const bool one_to_one = c.k.driver == "elementwise" && c.k.inputs.size() == 1 && c.k.out_dtype(c.t) == c.t;
  return c.opts.fast_oracle && c.k.fast && one_to_one ? approximable_model(c) : nullptr;
}

namespace {

// One lane element (grade_fast_scalar), with what does not change along a
// block passed in: the fast oracle, the replay and its input record.
// (decide()'s common case inlined here, the rest out of line.)
[[gnu::always_inline]] inline bool grade_lane_element(const Context& c, const FloatFormat& f,
                                                      const contract::Accuracy& acc, oracle::fast::Fn fast,
                                                      oracle::ReplayFn replay, oracle::ReplayIn& rin, double x,
                                                      double y, std::uint64_t y_bits, const Params& params,
                                                      LaneFigures& out) {
  // (approximable()'s conditions for one finite, non-zero input: no
  // special-value rule can apply, no signalling NaN.)
  if (!std::isfinite(x) || x == 0 || std::isnan(y)) return false;
  oracle::fast::Approx a;
  if (!fast(&x, c.t, params, a)) return false;
  const std::optional<bool> common = decide_common(c.t, f, acc, y, a, out);
  if (common ? !*common : !decide<LaneFigures, false>(c, acc, y, a, out)) return false;
  // The semantics replay, as add_replay compares it (the output dtype is c.t here: fast_model).
  if (replay) {
    rin.args = std::span<const double>(&x, 1);
    out.replayed_ok = double_to_bits_exact(c.t, replay(rin)) == y_bits;
  }
  return true;
}

}  // namespace

bool grade_fast_scalar(const Context& c, const contract::Accuracy& acc, double x, double y, std::uint64_t y_bits,
                       const Params& params, LaneFigures& out) {
  oracle::ReplayIn rin{c.t, c.t, &params, {}, false};
  return grade_lane_element(c, float_format(c.t), acc, c.k.fast, c.k.replay, rin, x, y, y_bits, params, out);
}

void grade_fast_block(const Context& c, const contract::Accuracy& acc, const ElementReader& x, const ElementReader& y,
                      std::int64_t lo, std::size_t n, const Params& params, LaneFigures* out, char* passed) {
  oracle::ReplayIn rin{c.t, c.t, &params, {}, false};
  const oracle::fast::Fn fast = c.k.fast;
  const oracle::ReplayFn replay = c.k.replay;
  const FloatFormat format = float_format(c.t);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t i = lo + static_cast<std::int64_t>(k);
    LaneFigures& f = out[k];
    passed[k] = grade_lane_element(c, format, acc, fast, replay, rin, x.value(i), y.value(i), y.bits(i), params, f) &&
                f.pass && f.replayed_ok;
  }
}

std::string exact_text(const Context& c, const drivers::Element& e, const Params& params, const Grade& g) {
  if (g.special) {
    const contract::SpecialRule* rule = special_rule(c.k, e);
    return rule ? std::string(contract::outcome_name(rule->output)) : "(special)";
  }
  oracle::PrecisionScope scope(g.precision ? g.precision : oracle::working_bits(c.t));
  oracle::Exact ex;
  return decimal(evaluate(c, e, params, ex).value);
}

}  // namespace kc::engine
