// The algebra of results (engine/combine.h) on results built by hand: the
// pieces a run's tally shares with every merge, each with the defect that
// it would let through.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "checks/bias.h"
#include "core/error.h"
#include "engine/combine.h"
#include "engine/error_profile.h"

namespace kc {
namespace {

using engine::ElementReport;
using engine::KernelDTypeResult;

// A profile of one slice per input, each slice [x, x] with error e.
engine::ErrorProfile profile_of(const std::vector<double>& xs, double e) {
  engine::ErrorProfile p;
  for (double x : xs) {
    p.x_lo.push_back(x), p.x_hi.push_back(x), p.max_frac_ulp.push_back(e);
    p.max_distance.push_back(NAN), p.max_normalized.push_back(NAN), p.failed.push_back(0);
  }
  return p;
}

KernelDTypeResult result(std::int64_t run) {
  KernelDTypeResult r;
  r.run_index = run;
  return r;
}

// A run orders its inputs by their bits (NaNs by sign beyond the
// infinities); merged runs' slices take the same order. Sorted by `<` on
// the doubles, as the merge did, a NaN compares with nothing and the
// slices after it kept no order (seen: ticks "NaN, -362, 2.8e-40, 1.1e4").
TEST(Combine, ProfileSlicesOfMergedRunsAreInInputOrder) {
  const double qnan = std::nan(""), neg_nan = -std::nan("");
  KernelDTypeResult a = result(1), b = result(2);
  a.profile = profile_of({neg_nan, 3.0, -1.0e30, qnan}, 1);
  b.profile = profile_of({INFINITY, -2.0, qnan, 0.5, -INFINITY}, 2);
  engine::combine(a, b, {.where = "test"});
  ASSERT_EQ(a.profile.x_lo.size(), 9u);
  EXPECT_TRUE(std::isnan(a.profile.x_lo[0]) && std::signbit(a.profile.x_lo[0])) << "the negative NaN first";
  const std::vector<double> middle{-INFINITY, -1.0e30, -2.0, 0.5, 3.0, INFINITY};
  for (std::size_t i = 0; i < middle.size(); ++i) EXPECT_EQ(a.profile.x_lo[i + 1], middle[i]) << "slice " << i + 1;
  EXPECT_TRUE(std::isnan(a.profile.x_lo[7]) && std::isnan(a.profile.x_lo[8])) << "the positive NaNs last";
}

// Past 256 slices they group as a run groups streamed ones: maxima of
// maxima, the upper end the last in input order.
TEST(Combine, ProfileSlicesGroupAsTheRunGroupsThem) {
  std::vector<double> xs_a, xs_b;
  for (int i = 0; i < 300; ++i) (i % 2 ? xs_b : xs_a).push_back(i);
  KernelDTypeResult a = result(1), b = result(2);
  a.profile = profile_of(xs_a, 1), b.profile = profile_of(xs_b, 2);
  b.profile.max_frac_ulp[10] = 7;  // input 21
  engine::combine(a, b, {.where = "test"});
  ASSERT_EQ(a.profile.x_lo.size(), engine::kProfileSlices);
  std::vector<engine::ProfileSlice> in_order;
  for (int i = 0; i < 300; ++i) in_order.push_back({.x_lo = double(i), .x_hi = double(i), .frac = i == 21 ? 7.0 : i % 2 ? 2.0 : 1.0});
  const engine::ErrorProfile want = engine::grouped(in_order);
  EXPECT_EQ(a.profile.x_lo, want.x_lo);
  EXPECT_EQ(a.profile.x_hi, want.x_hi);
  EXPECT_EQ(a.profile.max_frac_ulp, want.max_frac_ulp);
  EXPECT_EQ(*std::max_element(a.profile.max_frac_ulp.begin(), a.profile.max_frac_ulp.end()), 7);
}

ElementReport worst_case(double frac, const char* input, std::int64_t element) {
  ElementReport e;
  e.check = "accuracy", e.frac_ulp = frac, e.input_hex = input, e.element = element;
  return e;
}

// The worst cases of merged runs are the five largest, ranked as a run
// ranks them; on a tie the first run's is kept ahead (another run's
// element has no place in this one's cases).
TEST(Combine, WorstCasesAreTheLargestFiveTheFirstRunsAheadOnATie) {
  KernelDTypeResult a = result(1), b = result(2);
  a.worst = {worst_case(5, "0x1", 0), worst_case(3, "0x2", 1), worst_case(1, "0x3", 2)};
  b.worst = {worst_case(4, "0x4", 0), worst_case(3, "0x5", 0), worst_case(2, "0x6", 3), worst_case(0.5, "0x7", 4)};
  engine::combine(a, b, {.where = "test"});
  std::vector<std::string> got;
  for (const auto& e : a.worst) got.push_back(e.input_hex);
  EXPECT_EQ(got, (std::vector<std::string>{"0x1", "0x4", "0x2", "0x5", "0x6"}));
  EXPECT_EQ(a.worst[1].run_index, 2);
  EXPECT_EQ(a.worst[2].run_index, 1);
}

// The bias test is one test over all the samples: two runs too short to
// judge are judged together by the rule the check hands in, which finds
// the bias neither could; without the rule the tallies only add.
TEST(Combine, BiasIsJudgedAgainOverThePooledSamples) {
  auto run = [](std::int64_t index) {
    KernelDTypeResult r = result(index);
    r.verdict = engine::Verdict::pass;  // (each run too short to judge: passed)
    // Mean 0.1 ulp, s.e. 0.0125 over 600 samples: z = 8 on its own, but
    // under the test's 1000 samples; pooled, s.e. about 0.0088, z about 11.
    r.accuracy.bias_samples = 600, r.accuracy.bias_mean = 0.1, r.accuracy.bias_stderr = 0.0125;
    r.checks.push_back({.name = "bias: mean signed ulp error is zero", .kind = engine::CheckKind::bias, .not_graded = 1});
    return r;
  };
  KernelDTypeResult a = run(1);
  engine::combine(a, run(2), {.where = "test", .pool = checks::pool_bias});
  const engine::CheckTally& t = a.checks.front();
  EXPECT_EQ(a.accuracy.bias_samples, 1200);
  EXPECT_EQ(t.not_graded, 0);
  EXPECT_EQ(t.failed, 1) << t.detail;
  ASSERT_TRUE(t.figure);
  EXPECT_GT(*t.figure, checks::kBiasMaxZ);
  EXPECT_EQ(a.verdict, engine::Verdict::fail) << "both runs passed; pooled, the bias fails the result";

  KernelDTypeResult no_rule = run(1);
  engine::combine(no_rule, run(2), {.where = "test"});
  EXPECT_EQ(no_rule.checks.front().not_graded, 2);
  EXPECT_EQ(no_rule.checks.front().failed, 0);
}

TEST(Combine, HistogramsOfOtherBinsAreAUsageErrorNamingTheResult) {
  KernelDTypeResult a = result(1), b = result(2);
  a.accuracy.histogram = engine::Histogram{.metric = "fractional ulp", .edges = {0, 1, INFINITY}, .counts = {1, 2}};
  b.accuracy.histogram = engine::Histogram{.metric = "fractional ulp", .edges = {0, 2, INFINITY}, .counts = {1, 2}};
  try {
    engine::combine(a, b, {.where = "kernel 'exp' dtype f32"});
    FAIL() << "combined histograms of other bins";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'exp' dtype f32: the runs' fractional ulp histograms have different bins"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kc
