// Grading one element with MPFR: the special-value rules, the grade at the
// working precision (Ziv's strategy), the reference's other allowed
// choices, the semantics replay; the double fast path is
// engine/fast_grading.cpp's.
#include "engine/grading.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/grading_steps.h"
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

}  // namespace

// The exact value of the element at the current precision, into ex (reset
// first: its MPFR numbers' storage is reused).
const oracle::Exact& detail::evaluate(const Context& c, const drivers::Element& e, const Params& params, oracle::Exact& ex) {
  const bool variance = c.statistics_case && e.statistics_sample;
  ex.reset();
  ex.variance_wanted = variance;
  c.k.math.exact(e.in, ex);
  if (!variance) ex.error_variance.reset();
  return ex;
}

namespace {

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
  // (Where the definition leaves the result unspecified, a cast's invalid
  // operation, the value is the reference's choice: a semantics finding of
  // the reference profile, not an accuracy failure.)
  g.replayed = ex.replayed;
  g.unbounded = ex.replayed && ex.unbounded;
  if (!g.pass && g.unbounded) g.why = "not the reference's answer where the operation leaves the result unspecified";
  else if (!g.pass) g.why = "not the exact integer result", g.failure = Failure::wrong_integer;
  return g;
}

// NaN or an infinity on either side, where the model's bound does not
// decide: agreement is a pass with no ulp figure (frac NaN), which does not
// enter the error statistics (accuracy.md, special values); anything else
// fails here. false: both are numbers the accuracy model grades.
bool grade_non_finite(const contract::Accuracy& acc, double y, const oracle::Exact& ex, const oracle::Rounded& r,
                      Grade& g) {
  const bool z_nan = oracle::is_nan(ex.value);
  if (z_nan || std::isnan(y)) {
    g.distance = -1;
    g.frac = NAN;
    if (z_nan && std::isnan(y)) return true;
    g.pass = false;
    g.frac = INFINITY;
    g.failure = z_nan ? Failure::missing_nan : Failure::nan_result;
    g.why = z_nan ? "the exact result is NaN but the kernel returned a number"
                  : "the kernel returned NaN for a non-NaN exact result";
    return true;
  }
  // A condition-aware result may legitimately stay finite when the exact
  // value lies just past the overflow threshold (a sum whose partial sums
  // never overflow): with z and y finite the model's bound decides.
  const bool finite_z = oracle::is_number(ex.value);
  const bool bound_decides = acc.kind == AccuracyKind::condition_aware && finite_z && std::isfinite(y);
  if ((!std::isinf(r.value) && !std::isinf(y)) || bound_decides) return false;
  g.distance = -1;
  g.frac = NAN;
  if (r.value == y) return true;
  g.pass = false;
  g.frac = INFINITY;
  g.failure = std::isinf(r.value) ? Failure::missed_overflow : Failure::spurious_inf;
  g.why = std::isinf(r.value) ? "the correctly rounded result is infinite (overflow) but the kernel returned a "
                                "finite value or the other infinity"
                              : "the kernel returned an infinity where the correctly rounded result is finite";
  return true;
}

// The condition-aware model: |y - z| <= A ulp_T(z) + K u_work S, with
// u_work = 2^-p of the working format and S the magnitudes' sum.
void grade_condition_aware(const contract::Accuracy& acc, DType t, const oracle::Exact& ex,
                           const oracle::Difference& diff, Grade& g) {
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
}

// The fixed-bound models (exact, correctly rounded, an ulp bound) on the
// figures already set.
void grade_fixed_bound(const contract::Accuracy& acc, DType t, const Params& params, Grade& g) {
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
    case AccuracyKind::condition_aware: break;  // (grade_condition_aware)
  }
}

// The grade proper, at the current working precision.
Grade grade_at(const contract::KernelSpec& k, const contract::Accuracy& acc, DType t, double x, double y,
               const Params& params, const oracle::Exact& ex, const oracle::Rounded& r) {
  Grade g;
  g.rn = r.value;
  g.replayed = ex.replayed;
  g.unbounded = ex.replayed && ex.unbounded;
  g.error_variance = ex.error_variance;
  g.overflow = std::isinf(r.value) && std::isfinite(x);
  if (grade_non_finite(acc, y, ex, r, g)) return g;
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
  if (acc.kind == AccuracyKind::condition_aware) grade_condition_aware(acc, t, ex, diff, g);
  else grade_fixed_bound(acc, t, params, g);
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
  const bool unreplayed = ex.replayed && ex.unreplayed;
  std::optional<Mp> reading;
  if (!unreplayed && ex.other_reading) reading = ex.other_reading();
  if (!unreplayed && !reading) return;
  oracle::Exact exact = ex;
  exact.other_reading = nullptr;
  exact.value = unreplayed ? *ex.unreplayed : *reading;
  exact.replayed = false;
  Grade other = grade_at(c.k, acc, t_out, x, y, params, exact, oracle::round_checked(t_out, exact.value));
  if (!other.pass) return;
  other.reference_choice = unreplayed ? "within the accuracy model of the exact value, where the reference's "
                                        "evaluation order leaves the normal range"
                                      : "within the accuracy model of the exact value with the parameters as given "
                                        "(the reference narrows them to f32, then T)";
  g = other;
}

}  // namespace

// The special-value rule the element's input matches, if any.
const contract::SpecialRule* detail::special_rule(const contract::KernelSpec& k, const drivers::Element& e) {
  if (!e.special_input) return nullptr;
  for (const auto& rule : k.specials)
    if (matches(rule.input, *e.special_input)) return &rule;
  return nullptr;
}

std::string special_rule_name(const contract::SpecialRule& r) {
  return fmt::format("{}->{}", contract::value_class_name(r.input), contract::outcome_name(r.output));
}

namespace {
// The native replay of the element, when the entry has one.
void add_replay(const Context& c, const drivers::Element& e, std::uint64_t y_bits, const Params& params, Figures& g) {
  if (!c.k.math.has_replay()) return;
  const DType t_out = c.out_dtype();
  g.replay = c.k.math.replay(e.in);
  g.replay_bits = double_to_bits_exact(t_out, g.replay);  // every bit, a NaN's quiet bit included
  g.semantics_ok = g.replay_bits == y_bits;
}

// The last exact evaluation on this thread, kept for exact_text: its
// storage is reused by the next (MPFR numbers allocate), and its id tells a
// grade whether it is still its own.
struct Retained {
  oracle::Exact exact;
  std::uint64_t id = 0, last = 0;
};
thread_local Retained retained;

Grade grade_oracle(const Context& c, const drivers::Element& e, double y, const Params& params) {
  const double x = oracle::first_value(e.in);
  const DType t_out = c.out_dtype();
  if (const contract::SpecialRule* rule = detail::special_rule(c.k, e)) {
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
  const contract::Accuracy* acc = c.accuracy();
  unsigned bits = oracle::working_bits(c.t);
  bool was_midpoint = false;
  Grade g;
  for (int attempt = 0; attempt < 3; ++attempt) {
    oracle::PrecisionScope scope(bits);
    const oracle::Exact& ex = detail::evaluate(c, e, params, retained.exact);
    retained.id = ++retained.last;
    if (!is_float(t_out)) {
      g = grade_integer(y, ex);
      g.precision = bits;
      g.evaluation = retained.id;
      return g;
    }
    const oracle::Rounded r = oracle::round_checked(t_out, ex.value);
    g = grade_at(c.k, *acc, t_out, x, y, params, ex, r);
    if (!g.pass) accept_other_choice(c, *acc, t_out, x, y, params, ex, g);
    g.evaluation = retained.id;
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

bool grade_fast_figures(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits,
                        const Params& params, Figures& out) {
  if (!c.opts.fast_oracle || !detail::grade_fast(c, e, y, params, out)) return false;
  add_replay(c, e, y_bits, params, out);
  return true;
}

Grade grade_element(const Context& c, const drivers::Element& e, double y, std::uint64_t y_bits, const Params& params,
                    GradeMode mode) {
  Grade g;
  if (mode == GradeMode::any && grade_fast_figures(c, e, y, y_bits, params, g)) return g;
  if (mode == GradeMode::exact || !detail::grade_cheap(c, e, y, params, g)) g = grade_oracle(c, e, y, params);
  add_replay(c, e, y_bits, params, g);
  return g;
}

const oracle::Exact* retained_exact(const Grade& g) {
  return g.evaluation != 0 && g.evaluation == retained.id ? &retained.exact : nullptr;
}

std::string exact_text(const Context& c, const drivers::Element& e, const Grade& g) {
  if (g.special) {
    const contract::SpecialRule* rule = detail::special_rule(c.k, e);
    return rule ? std::string(contract::outcome_name(rule->output)) : "(special)";
  }
  if (g.evaluation == 0 || g.evaluation != retained.id)
    throw std::logic_error(fmt::format("{} {}: the exact value of element {} was asked for after {}", c.k.name,
                                       dtype_name(c.t), e.out,
                                       g.evaluation == 0 ? "an approximate grade" : "another element's evaluation"));
  return decimal(retained.exact.value);
}

}  // namespace kc::engine
