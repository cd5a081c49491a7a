// The oracle's two approximations, the double fast path (oracles/fast.h)
// and MPFR at 64 bits (where the oracle rounds once, engine/grading.cpp
// grade_cheap), against MPFR at the working precision, element by element: every input of every 16-bit dtype and random f32 inputs (all
// bit patterns alike, so every binade, subnormals and the extremes; for a
// binary kernel paired with a random operand, its negation, itself or its
// neighbour: cancellation, ties and near-ties), each
// with the kernel's own result and its two neighbours (so that results
// either side of the bound are met). Wherever an approximation answers, it
// must give MPFR's verdict, RN_T(z) and distance, and figures within the
// uncertainty it states; wherever it answers, the exact value lies farther
// from every rounding boundary (a midpoint) than that uncertainty; and the
// inputs do meet such boundaries (MPFR's own re-evaluations count them).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <sstream>

#include <fmt/format.h>

#include "checks/check.h"
#include "core/backend.h"
#include "engine/conformance.h"
#include "engine/context.h"
#include "engine/grading.h"
#include "oracles/exact.h"
#include "oracles/oracle.h"
#include "oracles/rounding.h"

KC_MATH_OF(Scalar, identity)  // (oracles/cast.cpp)

namespace kc {
namespace {

struct Counts {
  std::int64_t elements = 0, fast = 0, cheap = 0, near_boundary = 0;
  double min_margin = INFINITY;  // the closest a fast answer's exact value came to a midpoint, in ulps
};

// The distance, in ulps of T, from the element's exact value to the
// nearest midpoint between two T values (MPFR at 4x the working precision).
double midpoint_distance(const engine::Context& c, const drivers::Element& e) {
  oracle::PrecisionScope scope(4 * oracle::working_bits(c.t));
  oracle::Exact ex;
  c.k.math.exact(e.in, ex);
  if (!oracle::is_number(ex.value) || oracle::is_zero(ex.value)) return INFINITY;
  oracle::Mp s = ex.value;
  mpfr_mul_2si(oracle::raw(s), oracle::raw(ex.value), -oracle::ulp_exponent(c.t, ex.value), MPFR_RNDN);
  oracle::Mp fl = s;
  mpfr_floor(oracle::raw(fl), oracle::raw(s));
  return std::fabs((s - fl - oracle::Mp(0.5)).convert_to<double>());
}

void compare(const contract::KernelSpec& k, DType t, const Backend& backend, const std::vector<Tensor>& xs,
             const Params& p, Counts& n) {
  const auto y = backend.run(k.name, xs, p).at(0);
  engine::RunOptions opts{.checks = &checks::registry()};
  const engine::Context c{k, t, backend, drivers::of(k), opts};
  std::int64_t i = 0;
  c.driver.for_each_element(k, gen::Case{xs, p}, [&](const drivers::Element& e) {
    const double y0 = y.value_at(i++);
    std::optional<double> to_midpoint;  // computed where the fast path answers
    for (int step = -1; step <= 1; ++step) {
      double yv = y0;
      if (step != 0 && std::isfinite(y0)) yv = bits_to_double(t, double_to_bits(t, y0) + step);  // a neighbour (or NaN at the ends)
      const std::uint64_t yb = double_to_bits_exact(t, yv);
      const engine::Grade exact = engine::grade_element(c, e, yv, yb, p, engine::GradeMode::exact);
      ++n.elements;
      ASSERT_FALSE(exact.approximate);
      if (step == 0) n.near_boundary += exact.escalations > 0;  // MPFR met a boundary and re-evaluated
      // Both approximations: the double fast path (any) and MPFR at 64 bits (mpfr, where the oracle rounds once).
      for (const engine::GradeMode mode : {engine::GradeMode::any, engine::GradeMode::mpfr}) {
        const engine::Grade fast = engine::grade_element(c, e, yv, yb, p, mode);
        if (!fast.approximate) continue;
        ++(mode == engine::GradeMode::any ? n.fast : n.cheap);
        const std::string where = fmt::format("{} {} x = {} ({}) y = {} ({})", k.name, dtype_name(t), oracle::first_value(e.in),
                                              hex_bits(t, e.shown[0]), yv, mode == engine::GradeMode::any ? "fast path" : "MPFR at 64 bits");
        // The same verdict, and for a failure (an exact model's, where z is
        // a T value: fast_exact_failure) the same way of failing.
        ASSERT_EQ(fast.pass, exact.pass) << where << ": the fast path's verdict is not MPFR's (" << exact.why << ")";
        ASSERT_EQ(fast.failure, exact.failure) << where;
        ASSERT_EQ(fast.overflow, exact.overflow) << where;
        if (exact.overflow) {  // RN_T(z) infinite on both paths (the boundary is the overflow threshold): no error figure
          ASSERT_EQ(fast.rn, exact.rn) << where;
          ASSERT_TRUE(std::isnan(fast.frac) && std::isnan(exact.frac) && std::isnan(fast.abs_err)) << where;
          continue;
        }
        if (!to_midpoint) to_midpoint = midpoint_distance(c, e);
        // The exact value is farther from a rounding boundary than the
        // approximation's own bound: the rounding was decided.
        ASSERT_GT(*to_midpoint, fast.uncertainty) << where << ": the fast path answered at a rounding boundary";
        n.min_margin = std::min(n.min_margin, *to_midpoint);
        ASSERT_EQ(fast.rn, exact.rn) << where;
        ASSERT_EQ(fast.distance, exact.distance) << where;
        // MPFR's figures are doubles too (one rounding of the exact ratio).
        auto tol = [](double unc, double exact_value) { return unc + std::ldexp(std::fabs(exact_value), -52); };
        ASSERT_LE(std::fabs(fast.frac - exact.frac), tol(fast.uncertainty, exact.frac)) << where;
        ASSERT_LE(std::fabs(fast.signed_frac - exact.signed_frac), tol(fast.uncertainty, exact.frac)) << where;
        ASSERT_LE(std::fabs(fast.abs_err - exact.abs_err), tol(fast.abs_uncertainty, exact.abs_err)) << where;
        // (MPFR's exponent range ends near 2^-2^30: e^x for x < -7.4e8 is 0
        // there, with no relative error, and a tiny positive value here.)
        if (!std::isnan(exact.rel_err)) {
          ASSERT_LE(std::fabs(fast.rel_err - exact.rel_err), tol(fast.rel_uncertainty, exact.rel_err)) << where;
        }
        ASSERT_EQ(fast.bias_sample, exact.bias_sample) << where;
      }
    }
  });
}

Params params_of(const contract::KernelSpec& k) {
  Params p;
  for (const auto& prm : k.params) p.set(std::string(prm.name), prm.name == "max" ? 2.5 : prm.name == "min" ? -0.75 : 0.3);
  return p;
}

// Every `stride`-th input of the 16-bit dtypes, `f32_inputs` random f32 ones.
void agree(int stride, std::int64_t f32_inputs, std::int64_t min_elements) {
  const auto backend = make_backend("reference");
  Counts total;
  std::mt19937_64 rng(20261201);
  for (const auto& k : contract::all_kernels()) {
    // (Not the data movers and dequantize_blocks: their fast path is the
    // driver's exact value itself, as the default-run digest holds it.)
    if (!k.math.has_fast() || k.math.fast_of<oracle::Scalar>() == oracle::fast::identity) continue;
    const Params p = params_of(k);
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
      if (!k.accuracy_for(t)) continue;
      const std::int64_t n = t == DType::f32 ? f32_inputs : 65536 / stride;
      const std::uint64_t mask = t == DType::f32 ? 0xffffffffu : 0xffffu;
      Tensor x(t, {n});
      for (std::int64_t i = 0; i < n; ++i)
        x.set_bits(i, t == DType::f32 ? (rng() & mask) : static_cast<std::uint64_t>(i * stride + (rng() % stride)));
      std::vector<Tensor> xs{x};
      if (k.inputs.size() == 2) {  // b: random, or -a (a sum that cancels), or a (a tie), or a's neighbour
        Tensor b(t, {n});
        const std::uint64_t sign = t == DType::f32 ? 0x80000000u : 0x8000u;
        for (std::int64_t i = 0; i < n; ++i) {
          const std::uint64_t a = x.bits_at(i), r = rng();
          b.set_bits(i, r % 8 == 0 ? a ^ sign : r % 8 == 1 ? a : r % 8 == 2 ? ((a + 1) & mask) : (r >> 8) & mask);
        }
        xs.push_back(b);
      }
      Counts c;
      compare(k, t, *backend, xs, p, c);
      if (::testing::Test::HasFatalFailure()) return;
      // The fast path must be worth having: a quarter of the kernel's own
      // results (a third of the elements graded) decided without MPFR.
      EXPECT_GT(c.fast, c.elements / 12) << k.name << " " << dtype_name(t);
      total.elements += c.elements, total.fast += c.fast, total.cheap += c.cheap, total.near_boundary += c.near_boundary;
      total.min_margin = std::min(total.min_margin, c.min_margin);
    }
  }
  EXPECT_GT(total.elements, min_elements);
  EXPECT_GT(total.near_boundary, 100);  // the inputs do meet rounding boundaries
  EXPECT_GT(total.cheap, total.elements / 20);  // MPFR at 64 bits was tried on enough of them
  std::printf("%lld elements, %lld decided by the fast path and %lld by MPFR at 64 bits (closest to a midpoint: "
              "%.3g ulp), %lld inputs near a rounding boundary (re-evaluated by MPFR)\n",
              static_cast<long long>(total.elements), static_cast<long long>(total.fast),
              static_cast<long long>(total.cheap), total.min_margin, static_cast<long long>(total.near_boundary));
}

// The default suite: a quarter of the 16-bit inputs, 10,000 f32 per kernel.
TEST(FastOracle, AgreesWithMpfrWhereverItAnswers) { agree(4, 10000, 2'000'000); }
// Nightly (ctest -L nightly): every 16-bit input, 40,000 f32 per kernel, 11 million elements.
TEST(FastOracle, FullAgreesWithMpfrWhereverItAnswers) { agree(1, 40000, 10'000'000); }

// decide()'s common-case path (engine/grading.cpp decide_common, a plain
// double inside one normal binade) is the general procedure on that case:
// wherever it answers, the general procedure gives the same answer and,
// where they decide, every figure bit for bit. Every input of the 16-bit
// dtypes and 200,000 random f32 per kernel with a fast path, each with the
// kernel's result and its two neighbours.
bool same_figures(const engine::Figures& a, const engine::Figures& b) {
  auto same = [](double u, double v) { return std::memcmp(&u, &v, sizeof u) == 0; };
  return a.pass == b.pass && a.overflow == b.overflow && a.approximate == b.approximate && a.bias_sample == b.bias_sample &&
         a.distance == b.distance && same(a.frac, b.frac) && same(a.signed_frac, b.signed_frac) &&
         same(a.signed_normalized, b.signed_normalized) && same(a.bound, b.bound) && same(a.rn, b.rn) &&
         same(a.abs_err, b.abs_err) && same(a.rel_err, b.rel_err) && same(a.uncertainty, b.uncertainty) &&
         same(a.abs_uncertainty, b.abs_uncertainty) && same(a.rel_uncertainty, b.rel_uncertainty);
}

TEST(FastOracle, CommonCaseIsDecide) {
  const auto backend = make_backend("reference");
  std::mt19937_64 rng(20261203);
  std::int64_t answered = 0, decided = 0, total = 0;
  for (const auto& k : contract::all_kernels()) {
    const auto fast = k.math.fast_of<oracle::Scalar>();
    if (!fast || k.inputs.size() != 1 || fast == oracle::fast::identity) continue;
    const Params p = params_of(k);
    for (DType t : {DType::bf16, DType::f16, DType::f32}) {
      const contract::Accuracy* acc = k.accuracy_for(t);
      if (!acc) continue;
      const std::int64_t n = t == DType::f32 ? 200000 : 65536;
      Tensor x(t, {n});
      for (std::int64_t i = 0; i < n; ++i) x.set_bits(i, t == DType::f32 ? rng() & 0xffffffffu : static_cast<std::uint64_t>(i));
      const std::vector<Tensor> xs{x};
      const Tensor y = backend->run(k.name, xs, p).at(0);
      engine::RunOptions opts{.checks = &checks::registry()};
      const engine::Context c{k, t, *backend, drivers::of(k), opts};
      for (std::int64_t i = 0; i < n; ++i) {
        const double xv = x.value_at(i), y0 = y.value_at(i);
        oracle::fast::Approx a;
        if (!fast(oracle::Scalar{{.dtype = t, .out_dtype = t, .params = &p}, xv}, a)) continue;
        for (int step = -1; step <= 1; ++step) {
          const double yv = step == 0 || !std::isfinite(y0) ? y0 : bits_to_double(t, double_to_bits(t, y0) + step);
          ++total;
          engine::Figures common, general;
          const auto answer = engine::decide_common_for_test(c, *acc, yv, a, common);
          if (!answer) continue;
          ++answered;
          const bool expected = engine::decide_general_for_test(c, *acc, yv, a, general);
          ASSERT_EQ(*answer, expected) << k.name << " " << dtype_name(t) << " x = " << xv << " y = " << yv;
          if (!expected) continue;
          ++decided;
          ASSERT_TRUE(same_figures(common, general)) << k.name << " " << dtype_name(t) << " x = " << xv << " y = " << yv;
        }
      }
    }
  }
  std::printf("%lld elements, %lld answered by the common-case path, %lld decided\n", static_cast<long long>(total),
              static_cast<long long>(answered), static_cast<long long>(decided));
  EXPECT_GT(answered, total / 4);
  EXPECT_GT(decided, answered / 4);  // (two of the three results tried are a neighbour, which mostly fails)
}

// The bulk lane of a one-input elementwise case (engine/case_run.cpp)
// tallies the elements it passes without building them, and regrades only
// the block's candidates to be shown: the results must be those of the
// general path element by element (--dump turns the lane off), the same
// worst cases, maxima, elements at them, histograms, coverage and checks.
// The kernels: errors growing with x (exp near 0, tanh), exact results
// with ties everywhere (neg, relu), correct rounding (sqrt), functions
// capped below 1 (cos, erf, sigmoid).
TEST(FastOracle, BulkLaneTalliesAsTheGeneralPath) {
  const auto backend = make_backend("reference");
  int compared = 0;
  for (const char* name : {"exp", "neg", "relu", "sqrt", "tanh", "cos", "erf", "sigmoid", "log"}) {
    const auto* k = contract::find_kernel(name);
    ASSERT_NE(k, nullptr) << name;
    for (DType t : {DType::f32, DType::bf16, DType::f16}) {
      if (!k->accuracy_for(t)) continue;
      engine::RunOptions lane{.checks = &checks::registry()};
      engine::RunOptions general{.checks = &checks::registry()};
      std::ostringstream sink;
      general.dump = &sink;
      const auto a = engine::run_kernel_dtype(*k, t, *backend, lane);
      const auto b = engine::run_kernel_dtype(*k, t, *backend, general);
      const std::string where = fmt::format("{} {}", name, dtype_name(t));
      ASSERT_EQ(a.verdict, b.verdict) << where;
      ASSERT_EQ(a.elements, b.elements) << where;
      ASSERT_EQ(a.worst.size(), b.worst.size()) << where;
      for (std::size_t i = 0; i < a.worst.size(); ++i) {
        EXPECT_EQ(a.worst[i].input_hex, b.worst[i].input_hex) << where << " worst " << i;
        EXPECT_EQ(a.worst[i].frac_ulp, b.worst[i].frac_ulp) << where << " worst " << i;
      }
      const auto &x = a.accuracy, &y = b.accuracy;
      EXPECT_EQ(x.graded, y.graded) << where;
      EXPECT_EQ(x.max_frac_ulp, y.max_frac_ulp) << where;
      EXPECT_EQ(x.max_distance, y.max_distance) << where;
      EXPECT_EQ(x.max_absolute, y.max_absolute) << where;
      EXPECT_EQ(x.max_relative, y.max_relative) << where;
      EXPECT_EQ(x.at_max_distance.has_value(), y.at_max_distance.has_value()) << where;
      if (x.at_max_distance && y.at_max_distance) {
        EXPECT_EQ(x.at_max_distance->input_hex, y.at_max_distance->input_hex) << where;
      }
      EXPECT_EQ(x.at_max_relative.has_value(), y.at_max_relative.has_value()) << where;
      if (x.at_max_relative && y.at_max_relative) {
        EXPECT_EQ(x.at_max_relative->input_hex, y.at_max_relative->input_hex) << where;
      }
      EXPECT_EQ(x.histogram.counts, y.histogram.counts) << where;
      EXPECT_EQ(a.coverage.value_classes, b.coverage.value_classes) << where;
      EXPECT_EQ(a.coverage.result_classes, b.coverage.result_classes) << where;
      ASSERT_EQ(a.checks.size(), b.checks.size()) << where;
      for (std::size_t i = 0; i < a.checks.size(); ++i) {
        EXPECT_EQ(a.checks[i].name, b.checks[i].name) << where;
        EXPECT_EQ(a.checks[i].passed, b.checks[i].passed) << where << " " << a.checks[i].name;
        EXPECT_EQ(a.checks[i].failed, b.checks[i].failed) << where << " " << a.checks[i].name;
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 20);
}

}  // namespace
}  // namespace kc
