// The double fast path of grading (oracles/fast.h) and the cheap first
// MPFR evaluation: both decided by engine/fast_decide.h where nothing
// reported can depend on the approximation; the lanes of a sweep
// (grade_fast_block).
#include <cmath>
#include <optional>

#include "engine/fast_decide.h"
#include "engine/grading.h"
#include "engine/grading_steps.h"
#include "oracles/exact.h"
#include "oracles/replay.h"

namespace kc::engine {

using contract::AccuracyKind;
using detail::binade_of;
using detail::decide;
using detail::decide_common;

namespace {

// The accuracy model, when an approximation of z may decide this kernel's
// elements in this dtype at all: a result of a float dtype of at most 24
// bits (the midpoints of T are exact in double), a model with a fixed bound
// and no magnitude S, and the result in the input dtype unless the model is
// exact (dequantize_blocks: u32 words in, the values exact in f32).
// nullptr: MPFR's, always.
const contract::Accuracy* approximable_model(const Context& c) {
  const DType out = c.out_dtype();
  if (!is_float(out) || out == DType::f64) return nullptr;
  const contract::Accuracy* acc = c.accuracy();
  if (!acc || acc->kind == AccuracyKind::condition_aware || acc->param_bound) return nullptr;
  if (out != c.t && acc->kind != AccuracyKind::exact) return nullptr;
  return acc;
}

// The model, when an approximation may decide this element: one per
// operand, finite operands that meet no special-value rule, a result that
// is not NaN. nullptr: the element is MPFR's at the working precision.
const contract::Accuracy* approximable(const Context& c, const drivers::Element& e, double y) {
  const auto* scalar = std::get_if<oracle::Scalar>(&e.in);
  const auto* pair = std::get_if<oracle::Pair>(&e.in);
  const std::size_t operands = scalar ? 1 : pair ? 2 : 0;
  if (operands == 0 || operands != c.k.inputs.size() || e.context().signaling_nan || std::isnan(y)) return nullptr;
  const double args[2] = {scalar ? scalar->x : pair->a, scalar ? 0.5 : pair->b};  // (0.5: no second operand)
  bool zero_arg = false;
  for (double arg : args) {
    if (!std::isfinite(arg)) return nullptr;
    zero_arg |= arg == 0;
  }
  // Special-value rules name NaN, the infinities and the zeros: with
  // finite operands only a zero can meet one.
  if (zero_arg && detail::special_rule(c.k, e)) return nullptr;
  return approximable_model(c);
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
  const DType t_out = c.out_dtype();
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
}  // namespace

bool detail::grade_fast(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g) {
  if (!c.k.math.has_fast()) return false;
  const contract::Accuracy* acc = approximable(c, e, y);
  oracle::fast::Approx a;
  return acc && c.k.math.fast(e.in, a) && (decide(c, *acc, y, a, g) || fast_exact_failure(c, *acc, y, a, g));
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

bool detail::grade_cheap(const Context& c, const drivers::Element& e, double y, const Params& params, Figures& g) {
  if (!c.k.oracle_rounds_once) return false;
  const contract::Accuracy* acc = approximable(c, e, y);
  if (!acc) return false;
  oracle::PrecisionScope scope(kCheapBits);
  static thread_local oracle::Exact reused;  // (one per thread: evaluate above)
  const oracle::Exact& ex = detail::evaluate(c, e, params, reused);
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

std::optional<bool> decide_common_for_test(const Context& c, const contract::Accuracy& acc, double y,
                                           const oracle::fast::Approx& a, Figures& g) {
  return decide_common(c.t, float_format(c.t), acc, y, a, g);
}
bool decide_general_for_test(const Context& c, const contract::Accuracy& acc, double y, const oracle::fast::Approx& a,
                             Figures& g) {
  return decide<Figures, false>(c, acc, y, a, g);
}

const contract::Accuracy* fast_model(const Context& c) {
  const bool one_to_one = c.driver.one_to_one() && c.k.inputs.size() == 1 && c.out_dtype() == c.t;
  return c.opts.fast_oracle && c.k.math.fast_of<oracle::Scalar>() && one_to_one ? approximable_model(c) : nullptr;
}

namespace {

// One lane element (grade_fast_scalar): the element's Scalar input `in`
// (its value set here), with the kernel's fast path and replay, which do
// not change along a block, passed in. (decide()'s common case inlined
// here, the rest out of line.)
[[gnu::always_inline]] inline bool grade_lane_element(const Context& c, const FloatFormat& f,
                                                      const contract::Accuracy& acc,
                                                      oracle::FastFn<oracle::Scalar> fast,
                                                      oracle::ReplayFn<oracle::Scalar> replay, oracle::Scalar& in,
                                                      double x, double y, std::uint64_t y_bits, LaneFigures& out) {
  // (approximable()'s conditions for one finite, non-zero input: no
  // special-value rule can apply, no signalling NaN.)
  if (!std::isfinite(x) || x == 0 || std::isnan(y)) return false;
  in.x = x;
  oracle::fast::Approx a;
  if (!fast(in, a)) return false;
  const std::optional<bool> common = decide_common(c.t, f, acc, y, a, out);
  if (common ? !*common : !decide<LaneFigures, false>(c, acc, y, a, out)) return false;
  // The semantics replay, as add_replay compares it (the output dtype is c.t here: fast_model).
  if (replay) out.replayed_ok = double_to_bits_exact(c.t, replay(in)) == y_bits;
  return true;
}

// The Scalar input of the bulk lane's elements, as the elementwise driver
// builds it (a finite input is never a signalling NaN).
oracle::Scalar lane_input(const Context& c, const Params& params) {
  return {.ctx = {.dtype = c.t, .out_dtype = c.t, .params = &params}};
}

}  // namespace

bool grade_fast_scalar(const Context& c, const contract::Accuracy& acc, double x, double y, std::uint64_t y_bits,
                       const Params& params, LaneFigures& out) {
  oracle::Scalar in = lane_input(c, params);
  return grade_lane_element(c, float_format(c.t), acc, c.k.math.fast_of<oracle::Scalar>(),
                            c.k.math.replay_of<oracle::Scalar>(), in, x, y, y_bits, out);
}

void grade_fast_block(const Context& c, const contract::Accuracy& acc, const ElementReader& x, const ElementReader& y,
                      std::int64_t lo, std::size_t n, const Params& params, LaneFigures* out, char* passed) {
  oracle::Scalar in = lane_input(c, params);
  const auto fast = c.k.math.fast_of<oracle::Scalar>();
  const auto replay = c.k.math.replay_of<oracle::Scalar>();
  const FloatFormat format = float_format(c.t);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t i = lo + static_cast<std::int64_t>(k);
    LaneFigures& f = out[k];
    passed[k] = grade_lane_element(c, format, acc, fast, replay, in, x.value(i), y.value(i), y.bits(i), f) &&
                f.pass && f.replayed_ok;
  }
}

}  // namespace kc::engine
