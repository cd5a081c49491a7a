// The engine's and the readers' reliability probes (issue "No crash, no
// lost data, no false PASS"): what used to be undefined behaviour, a false
// verdict or a crash on hostile input. The command-line probes are in
// tests/reliability_test.sh.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>

#include "checks/check.h"
#include "backends/plugin/channel.h"
#include "contracts/accuracy_models.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "engine/tally.h"
#include "oracles/rounding.h"
#include "reports/html.h"
#include "reports/site/site.h"

namespace kc {
namespace {

engine::KernelDTypeResult one_run(const char* kernel, DType t, int cases) {
  auto backend = make_backend("reference");
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = cases;
  opts.exhaustive_halves = false;
  return engine::run_kernel_dtype(*contract::find_kernel(kernel), t, *backend, opts);
}

// Was: every f64 x_lo[0] and x_hi[255] -0.0 (a negation of INT64_MIN in the
// slicing by bit pattern), and a shift by -1 for u32 inputs. The profile now
// cuts the graded inputs themselves into slices of equal counts, in input
// order (no bit-pattern arithmetic at all); its bounds are graded inputs.
void expect_input_order(const engine::ErrorProfile& p) {
  ASSERT_FALSE(p.x_lo.empty());
  ASSERT_LE(p.x_lo.size(), 256u);
  for (std::size_t i = 0; i < p.x_lo.size(); ++i) {
    EXPECT_FALSE(std::isnan(p.x_lo[i]) || std::isnan(p.x_hi[i])) << "slice " << i << " holds graded inputs only";
    EXPECT_LE(p.x_lo[i], p.x_hi[i]) << i;
    if (i > 0) {
      EXPECT_LE(p.x_hi[i - 1], p.x_lo[i]) << i;
    }
  }
}

// A plug-in's worker exits when it reads EOF on its socket: kconform's
// end must close when its Channel goes (Worker::stop waited out a second
// and killed the worker at the end of every plug-in run while it did not).
TEST(Reliability, AChannelClosesItsEndOfTheSocket) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  { plugin::Channel ch(sv[0]); }
  char byte = 0;
  EXPECT_EQ(::recv(sv[1], &byte, 1, MSG_DONTWAIT), 0) << "the peer did not read EOF";
  ::close(sv[1]);
}

// The radix selection of the 99th percentile (engine/tally.cpp) against
// nth_element over a copy, on the shapes a sweep's block gives it: spread
// errors, one value throughout (e^x's underflow region: every error 0),
// a few distinct values, a dense cluster that needs every 16-bit pass,
// values on both sides of 0 (-0 too), and lists too short to refine.
TEST(Reliability, ThePercentileSelectionIsNthElements) {
  std::uint64_t state = 7;
  auto next = [&] { return state = state * 6364136223846793005u + 1442695040888963407u; };
  auto unit = [&] { return static_cast<double>(next() >> 11) * 0x1p-53; };
  std::vector<std::vector<double>> lists;
  std::vector<double> v;
  for (int i = 0; i < 300000; ++i) v.push_back(unit() * 0.5);
  lists.push_back(v);
  lists.emplace_back(300000, 0.0);
  v.clear();
  for (int i = 0; i < 300000; ++i) v.push_back(static_cast<double>(next() % 3) * 0.25);
  lists.push_back(v);
  v.clear();
  for (int i = 0; i < 300000; ++i) v.push_back(1.0 + static_cast<double>(next() % 1000) * 0x1p-52);
  lists.push_back(v);
  v.clear();
  for (int i = 0; i < 300000; ++i) v.push_back(i % 5 == 0 ? -0.0 : (unit() - 0.5) * 1e-30);
  lists.push_back(v);
  for (std::size_t n : {1, 2, 99, 100, 101, 1000}) {
    v.clear();
    for (std::size_t i = 0; i < n; ++i) v.push_back(unit());
    lists.push_back(v);
  }
  for (const auto& l : lists) {
    auto copy = l;
    const auto k = static_cast<std::size_t>(0.99 * static_cast<double>(copy.size() - 1));
    std::nth_element(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(k), copy.end());
    EXPECT_EQ(engine::quantile_99(l), copy[k]) << l.size() << " values";
  }
}

// The lane grades a stretch's set-aside candidates after the stretch's
// other elements (engine/case_run.cpp): of equal figures in one case, the
// element kept as a worst case or shown at a maximum is still the earlier
// one, whatever the order they were recorded in.
TEST(Reliability, AnEarlierElementOfACaseWinsATieWhateverTheOrderRecorded) {
  engine::Tallies t;
  auto report = [](std::int64_t case_index, std::int64_t element) {
    engine::ElementReport r;
    r.case_index = case_index, r.element = element, r.frac_ulp = 0.25;
    return r;
  };
  engine::Figures g;
  g.frac = 0.25;
  g.distance = 1;
  for (std::int64_t el = 10; el < 15; ++el) {
    ASSERT_TRUE(t.could_be_worst(g, engine::Tallies::Place{3, el}));
    t.keep_worst(report(3, el));
  }
  EXPECT_FALSE(t.could_be_worst(g, engine::Tallies::Place{3, 20}));  // later: the tie stays with the kept
  EXPECT_FALSE(t.could_be_worst(g, engine::Tallies::Place{4, 1}));   // another case: recorded later is later
  EXPECT_FALSE(t.could_be_worst(g));
  ASSERT_TRUE(t.could_be_worst(g, engine::Tallies::Place{3, 5}));
  t.keep_worst(report(3, 5));
  std::vector<std::int64_t> kept;
  for (const auto& w : t.worst) kept.push_back(w.element);
  EXPECT_EQ(kept, (std::vector<std::int64_t>{5, 10, 11, 12, 13}));

  t.note_extremes(g, [&] { return report(3, 10); }, engine::Tallies::Place{3, 10});
  t.max_dist = 1;  // (add_error's, after note_extremes)
  t.note_extremes(g, [&] { return report(3, 12); }, engine::Tallies::Place{3, 12});
  EXPECT_EQ(t.at_max_dist->element, 10);
  t.note_extremes(g, [&] { return report(3, 2); }, engine::Tallies::Place{3, 2});
  EXPECT_EQ(t.at_max_dist->element, 2);
  // (a tie is not an uncertain figure: nothing to regrade)
  EXPECT_FALSE(t.needs_exact(g, engine::Tallies::Place{3, 1}));
  g.approximate = true;
  g.frac = 0.125;  // (below the worst cases: only the distance can decide)
  g.rel_err = 0;
  t.max_rel_err = 1;
  t.at_max_rel = report(3, 2);
  t.max_abs_err = 1;
  g.abs_err = 0;
  EXPECT_TRUE(t.needs_exact(g, engine::Tallies::Place{3, 1}));   // it would be shown at the distance
  EXPECT_FALSE(t.needs_exact(g, engine::Tallies::Place{3, 4}));
}

// A profile point reserved in input order and filled later gives the
// slices of the points added in order.
TEST(Reliability, AReservedProfilePointKeepsTheSlicesOfInputOrder) {
  for (const std::size_t slice : {std::size_t{0}, std::size_t{4}}) {
    engine::ProfileBuilder in_order, reserved;
    in_order.stream_in_slices(slice), reserved.stream_in_slices(slice);  // (0: kept as points, sliced at the end)
    std::vector<std::pair<std::size_t, int>> later;
    for (int i = 0; i < 23; ++i) {
      const double frac = static_cast<double>((i * 7) % 11) / 16, x = i * 0.5;
      in_order.add(i, x, frac, i % 3, NAN, i == 9);
      if (i == 3 || i == 9 || i == 10 || i == 22) later.emplace_back(reserved.reserve(i, x), i);
      else reserved.add(i, x, frac, i % 3, NAN, i == 9);
    }
    for (const auto& [slot, i] : later) reserved.fill(slot, static_cast<double>((i * 7) % 11) / 16, i % 3, NAN, i == 9);
    const engine::ErrorProfile a = in_order.finish(), b = reserved.finish();
    EXPECT_EQ(a.x_lo, b.x_lo) << slice;
    EXPECT_EQ(a.x_hi, b.x_hi) << slice;
    EXPECT_EQ(a.max_frac_ulp, b.max_frac_ulp) << slice;
    EXPECT_EQ(a.max_distance, b.max_distance) << slice;
    EXPECT_EQ(a.failed, b.failed) << slice;
    EXPECT_GT(a.x_lo.size(), 4u);
  }
}

TEST(Reliability, TheErrorProfileOfF64IsInInputOrder) {
  const auto r = one_run("abs", DType::f64, 3);
  expect_input_order(r.profile);
}

TEST(Reliability, TheErrorProfileOfAU32InputIsByValue) {
  const auto r = one_run("cast_u32_to_f32", DType::u32, 3);
  expect_input_order(r.profile);
  EXPECT_GE(r.profile.x_lo.front(), 0.0);
  EXPECT_LE(r.profile.x_hi.back(), 4294967295.0);
}

// Was: signed overflow for f64 values far apart with opposite signs.
TEST(Reliability, UlpDistanceSaturatesInsteadOfOverflowing) {
  const double big = max_finite(DType::f64);
  EXPECT_EQ(oracle::ulp_distance(DType::f64, -big, big), INT64_MAX);
  EXPECT_EQ(oracle::ulp_distance(DType::f64, -INFINITY, INFINITY), INT64_MAX);
  EXPECT_EQ(oracle::ulp_distance(DType::f32, -max_finite(DType::f32), max_finite(DType::f32)), 2 * 0x7F7FFFFFll);
}

// Was: "only 95 samples (needs 1000)" failed the conforming reference.
TEST(Reliability, ABiasCheckWithTooFewSamplesIsNotGradedAndFailsNothing) {
  const auto r = one_run("gelu", DType::f32, 3);
  EXPECT_EQ(r.verdict, engine::Verdict::pass);
  bool seen = false;
  for (const auto& c : r.checks)
    if (c.kind == engine::CheckKind::bias) {
      seen = true;
      EXPECT_EQ(c.failed, 0);
      EXPECT_EQ(c.not_graded, 1);
      EXPECT_NE(c.detail.find("not graded: only"), std::string::npos) << c.detail;
    }
  EXPECT_TRUE(seen);
}

// Was: a negative bound for |n| > 2^24 (bf16, x = -inf, n = -2^31: -257.5 ulp).
TEST(Reliability, ThePowiBoundHoldsForEveryI32) {
  for (DType t : kFloatSet.list())
    for (std::int64_t n : {std::int64_t{INT32_MIN}, std::int64_t{INT32_MIN} + 1, std::int64_t{-16777217},
                           std::int64_t{-16777216}, std::int64_t{-2}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1},
                           std::int64_t{2}, std::int64_t{16777216}, std::int64_t{16777217}, std::int64_t{INT32_MAX}}) {
      const double b = contract::models::powi_frac_bound(t, n);
      EXPECT_GE(b, 0.5) << dtype_name(t) << " n = " << n;
      EXPECT_FALSE(std::isnan(b)) << dtype_name(t) << " n = " << n;
    }
  // Monotone in |n|: a larger exponent never has a smaller bound.
  EXPECT_LE(contract::models::powi_frac_bound(DType::f32, 1000), contract::models::powi_frac_bound(DType::f32, 1001));
  EXPECT_LE(contract::models::powi_frac_bound(DType::f32, 1 << 24), contract::models::powi_frac_bound(DType::f32, INT32_MAX));
  // The generator draws the extremes.
  const auto* powi = contract::find_kernel("powi");
  const auto& s = powi->params.at(0).samples;
  for (double v : {0.0, 1.0, -1.0, 16777216.0, -16777216.0, double{INT32_MIN}, double{INT32_MAX}})
    EXPECT_NE(std::find(s.begin(), s.end(), v), s.end()) << v;
}

TEST(Reliability, HostileDocumentsAreClearErrorsNotCrashes) {
  using reports::site::parse_document;
  EXPECT_THROW(parse_document(std::string(100000, '[') + std::string(100000, ']'), "deep"), UsageError);
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  objects += "1" + std::string(100000, '}');
  EXPECT_THROW(parse_document(objects, "deep"), UsageError);
  EXPECT_THROW(parse_document("not json", "x"), UsageError);
  EXPECT_THROW(parse_document("{\"schema\": \"kconform-results/1\"}", "x"), UsageError);
  // Brackets inside strings are not nesting.
  EXPECT_THROW(parse_document("{\"schema\": \"kconform-results/1\", \"x\": \"" + std::string(1000, '[') + "\"}", "x"),
               UsageError);  // (invalid for lack of run/totals/kernels, not for depth)
  try {
    parse_document("{\"schema\": \"kconform-results/1\", \"x\": \"" + std::string(1000, '[') + "\"}", "x");
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("nested"), std::string::npos) << e.what();
  }
}

TEST(Reliability, ControlCharactersAndLongNamesAreSafeInPages) {
  EXPECT_EQ(reports::escape_html("\x1b[31m"), "&#x241B;[31m");
  EXPECT_EQ(reports::escape_html(std::string("a\0b", 3)), "a&#x2400;b");
  EXPECT_EQ(reports::escape_html("\x7f"), "&#x2421;");
  EXPECT_EQ(reports::escape_html("tab\tline\n"), "tab\tline\n");
  const std::string long_name(400, 'k');
  const std::string page = reports::page_name(long_name);
  EXPECT_LT(page.size(), 120u);
  EXPECT_NE(reports::page_name(long_name + "x"), page) << "long names stay distinct";
  EXPECT_EQ(reports::page_name("exp"), "kernel-exp.html");
}

}  // namespace
}  // namespace kc
