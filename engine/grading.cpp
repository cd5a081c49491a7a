#include "engine/grading.h"

#include <cmath>

#include <fmt/format.h>

#include "oracles/mp.h"
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
  if (mpfr_nan_p(z.backend().data())) return "NaN";
  if (mpfr_inf_p(z.backend().data())) return mpfr_signbit(z.backend().data()) ? "-inf" : "inf";
  if (mpfr_zero_p(z.backend().data())) return mpfr_signbit(z.backend().data()) ? "-0" : "0";
  return z.str(25, std::ios_base::scientific);
}

// A parameter as the reference converts it into T (NumCast, §0.3).
Mp param_in(DType t, double c) {
  if (t == DType::f64) return Mp(c);
  return Mp(round_to_format(round_to_format(c, DType::f32), t));
}

double real_or(const Params& p, const char* name) {
  const ParamValue* v = p.find(name);
  if (!v) return 0;
  if (const double* d = std::get_if<double>(v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(v)) return static_cast<double>(*i);
  return 0;
}

void fill_io(oracle::OracleIO& io, DType t, DType t_out, std::span<const double> args, const Params& params) {
  io.dtype = t;
  io.out_dtype = t_out;
  io.args.clear();
  for (double a : args) io.args.emplace_back(a);
  io.x = io.args.empty() ? Mp(0) : io.args.front();
  if (const ParamValue* n = params.find("n"))
    if (const auto* i = std::get_if<std::int64_t>(n)) io.n = static_cast<std::int32_t>(*i);
  io.c = param_in(t, real_or(params, "c"));
  io.lo = param_in(t, real_or(params, "min"));
  io.hi = param_in(t, real_or(params, "max"));
  io.out = Mp(0);
  io.magnitude = Mp(0);
}

// The grade proper, at the current working precision.
// Integer results (argmax/argmin, casts to u32) are compared as values.
Grade grade_integer(double y, const oracle::OracleIO& io) {
  Grade g;
  g.rn = io.out.convert_to<double>();
  g.exact = decimal(io.out);
  g.frac = std::fabs(y - g.rn);
  g.distance = static_cast<std::int64_t>(g.frac);
  g.pass = y == g.rn;
  if (!g.pass) g.why = "not the exact integer result";
  return g;
}

Grade grade_at(const contract::KernelSpec& k, const contract::Accuracy& acc, DType t, double x, double y,
               const Params& params, const oracle::OracleIO& io, const oracle::Rounded& r) {
  Grade g;
  g.rn = r.value;
  g.exact = decimal(io.out);
  g.replayed = io.replayed;
  const bool z_nan = mpfr_nan_p(io.out.backend().data()) != 0;
  g.overflow = std::isinf(r.value) && std::isfinite(x);
  // Agreement on NaN or on an infinity is a pass with no ulp figure (frac
  // NaN): it does not enter the error statistics (accuracy.md, special values).
  if (z_nan || std::isnan(y)) {
    g.distance = -1;
    g.frac = NAN;
    if (z_nan && std::isnan(y)) return g;
    g.pass = false;
    g.frac = INFINITY;
    g.why = z_nan ? "the exact result is NaN but the kernel returned a number" : "the kernel returned NaN for a "
                                                                                 "non-NaN exact result";
    return g;
  }
  // A condition-aware result may legitimately stay finite when the exact
  // value lies just past the overflow threshold (a sum whose partial sums
  // never overflow): with z and y finite the model's bound decides.
  const bool finite_z = mpfr_number_p(io.out.backend().data()) != 0;
  const bool bound_decides = acc.kind == AccuracyKind::condition_aware && finite_z && std::isfinite(y);
  if ((std::isinf(r.value) || std::isinf(y)) && !bound_decides) {
    g.distance = -1;
    g.frac = NAN;
    if (r.value == y) return g;
    g.pass = false;
    g.frac = INFINITY;
    g.why = std::isinf(r.value) ? "the correctly rounded result is infinite (overflow) but the kernel returned a "
                                  "finite value or the other infinity"
                                : "the kernel returned an infinity where the correctly rounded result is finite";
    return g;
  }
  g.signed_frac = oracle::signed_frac_ulp(t, y, io.out);
  g.frac = std::fabs(g.signed_frac);
  g.distance = std::isinf(r.value) ? -1 : oracle::ulp_distance(t, y, r.value);
  if (io.replayed) {  // bit-exact against the replayed reference loop
    g.bound = 0;
    g.pass = g.distance == 0;
    if (!g.pass) g.why = "differs from the reference's square-and-multiply replayed outside the normal range";
    return g;
  }
  const bool sign_graded = acc.kind == AccuracyKind::exact || acc.kind == AccuracyKind::correctly_rounded;
  if (sign_graded && k.zero_sign_checked && y == 0 && r.value == 0 && std::signbit(y) != std::signbit(r.value)) {
    g.pass = false;
    g.why = "wrong sign of zero";
    return g;
  }
  switch (acc.kind) {
    case AccuracyKind::exact:
      g.bound = 0;
      g.pass = g.frac == 0;
      if (!g.pass) g.why = "not the exact result";
      break;
    case AccuracyKind::correctly_rounded:
      g.bound = 0.5;
      g.pass = g.distance == 0;
      if (!g.pass) g.why = "not correctly rounded";
      break;
    case AccuracyKind::ulp_bound: {
      g.bound = acc.max_frac_ulp;
      if (acc.param_bound)
        if (const ParamValue* v = params.find(std::string(acc.bound_param)))
          g.bound = acc.param_bound(t, std::get<std::int64_t>(*v));
      const bool frac_ok = g.frac <= g.bound;
      const bool dist_ok = acc.max_distance < 0 || g.distance <= acc.max_distance;
      g.pass = frac_ok && dist_ok;
      if (!frac_ok) g.why = fmt::format("fractional error above the bound of {:.6g} ulp", g.bound);
      else if (!dist_ok) g.why = fmt::format("integer distance above the bound of {}", acc.max_distance);
      g.bias_sample = acc.check_bias;
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    }
    case AccuracyKind::condition_aware: {
      // bound = A ulp_T(z) + K u_work S, with u_work = 2^-p of the working format.
      const double ulp = std::ldexp(1.0, oracle::ulp_exponent(t, io.out));
      const double S = io.magnitude.convert_to<double>();
      const double u_work = std::ldexp(1.0, -float_format(acc.work).precision);
      const double bound_abs = acc.max_frac_ulp * ulp + acc.magnitude_coeff * u_work * S;
      const double err = (Mp(y) - io.out).convert_to<double>();
      g.normalized = bound_abs > 0 ? std::fabs(err) / bound_abs : (err == 0 ? 0.0 : INFINITY);
      if (bound_abs > 0) g.signed_ratio = err / bound_abs;
      g.bound_abs = bound_abs;
      g.bound = 1;
      g.pass = *g.normalized <= 1;
      if (!g.pass) g.why = fmt::format("error above the condition-aware bound {:.6g} ulp + {} u S", acc.max_frac_ulp,
                                       acc.magnitude_coeff);
      // The bias statistic takes the signed ulp error where the result does
      // not cancel (S <= 4|z|): there rounding errors carry the sign of a
      // systematic defect; where it cancels they are amplified noise.
      g.bias_sample = acc.check_bias && S <= 4 * std::fabs(io.out.convert_to<double>());
      if (g.bias_sample) g.signed_normalized = g.signed_frac;
      break;
    }
  }
  return g;
}

}  // namespace

std::string special_rule_name(const contract::SpecialRule& r) {
  return fmt::format("{}->{}", contract::value_class_name(r.input), contract::outcome_name(r.output));
}

Grade grade_element(const contract::KernelSpec& k, DType t, std::span<const double> args, double y,
                    const Params& params, bool signaling_nan) {
  const double x = args.empty() ? 0.0 : args.front();
  const DType t_out = k.out_dtype(t);
  for (const auto& rule : k.specials) {
    if (args.size() != 1 || !matches(rule.input, x)) continue;
    Grade g;
    g.special = true;
    g.rule = special_rule_name(rule);
    g.rn = outcome_value(rule.output, x);
    g.exact = fmt::format("{}", contract::outcome_name(rule.output));
    g.distance = -1;
    g.pass = same_value(g.rn, y);
    if (!g.pass) {
      g.frac = INFINITY;
      g.why = fmt::format("special-value rule {} broken", g.rule);
    }
    return g;
  }
  const contract::Accuracy* acc = k.accuracy_for(t);
  unsigned bits = oracle::working_bits(t);
  bool was_midpoint = false;
  Grade g;
  for (int attempt = 0; attempt < 3; ++attempt) {
    oracle::PrecisionScope scope(bits);
    oracle::OracleIO io;
    fill_io(io, t, t_out, args, params);
    io.signaling_nan = signaling_nan;
    k.oracle(io);
    if (!is_float(t_out)) return grade_integer(y, io);
    const oracle::Rounded r = oracle::round_checked(t_out, io.out);
    g = grade_at(k, *acc, t_out, x, y, params, io, r);
    g.escalations = attempt;
    if (io.has_replay) {
      g.replay = oracle::round_to(t_out, io.replay);
      g.semantics_ok = same_value(g.replay, y) || (std::isnan(g.replay) && std::isnan(y));
    }
    // Ziv: re-evaluate when the value sits on a rounding boundary, unless
    // it is an exact midpoint at two precisions (then it is one: x + c ties).
    if (!r.near_boundary || (r.exactly_midpoint && was_midpoint)) break;
    was_midpoint = r.exactly_midpoint;
    bits *= 2;
  }
  return g;
}

}  // namespace kc::engine
