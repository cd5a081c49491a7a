// Shape profiles, problem files and sampled exact grading
// (generators/problems.h, engine/sample.h): the grammar and its errors,
// the tails' sizes, the sample's strata and guarantee, shaped cases graded
// through the drivers, and defects that exist only at scale caught by the
// tails (and passing at tiny shapes) with a replay that reproduces them.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "backends/mutants/mutants.h"
#include "core/error.h"
#include "drivers/driver.h"
#include "drivers/shaped.h"
#include "engine/sample.h"
#include "test_support.h"

namespace kc {
namespace {

std::string parse_error(const std::string& text) {
  try {
    gen::parse_problems(text, "my.problems");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ProblemFile, ParsesLabelsOperandsParametersAndDtypes) {
  const auto p = gen::parse_problems(
      "# a comment\n\nffn.up: matmul a=1x4096 b=4096x11008  # trailing\n"
      "rms_norm_last_dim x=16x4096 eps=1e-5 dtype=f32,bf16\ncumsum x=1x32000 dim=1\n",
      "my.problems");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].label, "ffn.up");
  EXPECT_EQ(p[0].kernel, "matmul");
  EXPECT_EQ(p[0].line, 3);
  EXPECT_EQ(p[0].dims[0], (Dims{1, 4096}));
  EXPECT_EQ(p[0].dims[1], (Dims{4096, 11008}));
  EXPECT_EQ(p[0].where(), "my.problems:3 (ffn.up)");
  EXPECT_DOUBLE_EQ(p[1].params.real("eps"), 1e-5);
  EXPECT_TRUE(p[1].applies_to(DType::bf16));
  EXPECT_FALSE(p[1].applies_to(DType::f64));
  EXPECT_EQ(p[2].params.integer("dim"), 1);
}

TEST(ProblemFile, EveryErrorNamesTheFileAndLine) {
  EXPECT_EQ(parse_error("\nsoftmaxx x=2x3\n"), "my.problems:2: 'softmaxx' is not a kernel (kconform list names them)");
  EXPECT_NE(parse_error("matmul a=2x3\n").find("my.problems:1: operand 'b' of matmul is not given"), std::string::npos);
  EXPECT_NE(parse_error("matmul a=2x3 b=3x4 c=1\n").find("my.problems:1: 'c' is not an operand or parameter of matmul"),
            std::string::npos);
  EXPECT_NE(parse_error("matmul a=2xx3 b=3x4\n").find("my.problems:1: operand 'a': '' is not a size"), std::string::npos);
  EXPECT_NE(parse_error("matmul a=2x3 a=2x3 b=3x4\n").find("operand 'a' is given twice"), std::string::npos);
  EXPECT_NE(parse_error("matmul_2d a=2x3x4 b=3x4\n").find("has rank 3; matmul_2d takes rank 2 to 2"), std::string::npos);
  EXPECT_NE(parse_error("cumsum x=4 dim=x\n").find("parameter 'dim': 'x' is not an integer"), std::string::npos);
  EXPECT_NE(parse_error("cumsum x=4 dim=0 dtype=u64\n").find("dtype 'u64' is not a dtype"), std::string::npos);
}

TEST(ProblemFile, ShippedSetsParseAndEveryLineFitsItsDriver) {
  const gen::ShapeSelection s = gen::shape_selection("production");
  EXPECT_FALSE(s.random);
  std::map<std::string, int> files;
  for (const auto& p : s.problems) {
    ++files[p.file];
    const auto& k = *contract::find_kernel(p.kernel);
    EXPECT_EQ(drivers::of(k).shaped_error(k, {p.dims, p.given, p.params}), "") << p.where();
  }
  ASSERT_EQ(files.size(), 5u);
  for (const char* f : {"bert-base.problems", "llama2-7b.problems", "mistral-7b.problems", "resnet50.problems"})
    EXPECT_GE(files[f], 10) << f;
  EXPECT_EQ(files["folds.problems"], 3);  // (a sum, a dot product and a scan of 2^20 terms)
  // A problem two files share is graded once, its line naming the other.
  const auto shared = std::find_if(s.problems.begin(), s.problems.end(), [](const gen::Problem& p) { return p.label == "proj.qkvo"; });
  ASSERT_NE(shared, s.problems.end());
  EXPECT_NE(shared->where().find("; also mistral-7b.problems:"), std::string::npos) << shared->where();
  EXPECT_EQ(std::count_if(s.problems.begin(), s.problems.end(), [](const gen::Problem& p) { return p.label == "proj.q"; }), 0);
}

// Every kernel of the inventory has tails: a shape at every size that its
// own driver takes as valid, so `--shapes tails` reaches each kernel.
TEST(ProblemFile, EveryKernelHasTailsItsDriverTakes) {
  for (const auto& k : contract::all_kernels())
    for (std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{8193}}) {
      const auto s = drivers::of(k).tail_shape(k, k.inputs[0].dtypes.list().front(), n);
      ASSERT_TRUE(s.has_value()) << k.name;
      EXPECT_EQ(drivers::of(k).shaped_error(k, *s), "") << k.name << " n = " << n;
    }
}

TEST(ProblemFile, DriversRefuseShapesThatDisagree) {
  const auto& mm = *contract::find_kernel("matmul");
  const drivers::Shaped bad{{{2, 5}, {4, 3}}, {true, true}, {}};
  EXPECT_EQ(drivers::of(mm).shaped_error(mm, bad), "a [2, 5] has k = 5, b [4, 3] has k = 4");
  const auto& add = *contract::find_kernel("add");
  EXPECT_NE(drivers::of(add).shaped_error(add, {{{2, 5}, {5, 2}}, {true, true}, {}}).find("differ"), std::string::npos);
  // The other drivers' own rules, each error saying what disagrees.
  const auto error = [](const char* text) {
    const gen::Problem p = gen::parse_problems(text, "my.problems").at(0);
    const auto& k = *contract::find_kernel(p.kernel);
    return drivers::of(k).shaped_error(k, {p.dims, p.given, p.params});
  };
  EXPECT_NE(error("qmatmul a=1x4096 w=100 quant_type=12 k=4096 n=8\n").find("w has 100 words; n = 8 rows of k = 4096 in Q4_K take 4608"),
            std::string::npos);
  EXPECT_NE(error("dequantize_blocks w=4608 k=4096 n=8\n").find("quant_type is not given"), std::string::npos);
  EXPECT_NE(error("conv2d x=1x3x8x8 weight=4x2x3x3\n").find("x [1, 3, 8, 8] has 3 input channels, weight [4, 2, 3, 3] takes 2"),
            std::string::npos);
  EXPECT_NE(error("conv2d x=1x3x2x2 weight=4x3x5x5\n").find("the 5x5 kernel is larger than the padded 2x2 input"), std::string::npos);
  EXPECT_NE(error("max_pool2d x=1x1x2x8 kernel_size=3\n").find("the 3x3 window is larger than x [1, 1, 2, 8]"), std::string::npos);
  EXPECT_NE(error("rope x=1x4x6 cos=4x6 sin=3x6\n").find("sin [3, 6] is not [S, D] = [4, 6]"), std::string::npos);
  EXPECT_NE(error("gather x=2x8 index=3x8 dim=1\n").find("no larger off dim 1"), std::string::npos);
  EXPECT_NE(error("pad_reflect x=2x3 padding=0x0x3x3\n").find("reflect padding 3 passes axis 1 of size 3"), std::string::npos);
  EXPECT_NE(error("reduce_sum_to x=4x6 target=3\n").find("does not align"), std::string::npos);
}

TEST(TailSizes, PowersOfTwoAndTheirNeighboursUpTo8193) {
  const auto& n = gen::tail_sizes();
  EXPECT_EQ(n.size(), 38u);
  EXPECT_TRUE(std::is_sorted(n.begin(), n.end()));
  for (std::int64_t k = 1; k <= 13; ++k)
    for (std::int64_t v : {(1 << k) - 1, 1 << k, (1 << k) + 1})
      EXPECT_TRUE(std::find(n.begin(), n.end(), v) != n.end()) << v;
  EXPECT_EQ(n.back(), 8193);
}

TEST(Sample, StrataCoverEdgesBoundariesAndUniformDraws) {
  const drivers::Expectation want(Dims{8, 32000}, DType::f32);
  const engine::Sample s = engine::stratified_sample(want, 4096, 7);
  ASSERT_FALSE(s.indices.empty());
  EXPECT_TRUE(std::is_sorted(s.indices.begin(), s.indices.end()));
  EXPECT_EQ(std::adjacent_find(s.indices.begin(), s.indices.end()), s.indices.end());
  EXPECT_LE(static_cast<std::int64_t>(s.indices.size()), 4096);
  EXPECT_EQ(s.edges + s.boundaries + s.random, static_cast<std::int64_t>(s.indices.size()));
  EXPECT_EQ(s.draws, 1024);
  auto has = [&](std::int64_t i) { return std::binary_search(s.indices.begin(), s.indices.end(), i); };
  EXPECT_TRUE(has(0));              // the first row's first element
  EXPECT_TRUE(has(31999));          // its last
  EXPECT_TRUE(has(7 * 32000));      // the last row's first
  EXPECT_TRUE(has(8 * 32000 - 1));  // the last element
  // Every multiple of 4096 along the last axis, and one past it, in some row.
  for (std::int64_t m = 4096; m < 32000; m += 4096)
    for (std::int64_t q : {m, m + 1})
      EXPECT_TRUE(std::any_of(s.indices.begin(), s.indices.end(), [&](std::int64_t i) { return i % 32000 == q; })) << q;
  // The guarantee: 1024 uniform draws miss a defect of 1% of the elements
  // with probability 0.99^1024.
  EXPECT_NEAR(engine::miss_probability(s.draws, 0.01), 3.4e-5, 0.1e-5);
}

engine::KernelDTypeResult graded(const char* backend_name, const char* kernel, DType t, const std::string& shapes,
                                 std::optional<std::int64_t> only_case = std::nullopt) {
  auto backend = make_backend(backend_name);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 2;
  opts.exhaustive_halves = false;
  opts.backend = backend_name;
  opts.profile = engine::Profile::conformance;
  opts.shapes = std::make_shared<gen::ShapeSelection>(gen::shape_selection(shapes));
  opts.only_case = only_case;
  opts.shrink_seconds = 0;  // (the failing case's replay is what is tested, not how far it shrinks)
  return engine::run_kernel_dtype(*contract::find_kernel(kernel), t, *backend, opts);
}

TEST(ShapedCases, ProductionLinesGradeOnASampleAndReportIt) {
  const std::string file = testing::TempDir() + "/lines.problems";
  {
    std::ofstream(file) << "vocab: softmax_last_dim x=2x32000\nsplitk: matmul_2d a=2x4097 b=4097x3\n";
  }
  const auto r = graded("reference", "softmax_last_dim", DType::f32, file);
  EXPECT_EQ(r.verdict, engine::Verdict::pass) << r.headline;
  EXPECT_EQ(r.shapes.problem_cases, 1);
  EXPECT_EQ(r.shapes.tail_cases, 38);
  EXPECT_EQ(r.shapes.largest, "[2, 32000]");  // (softmax's one input)
  EXPECT_EQ(r.shapes.sampled_cases, 1 + 7);  // the line's, and the 7 tails past 4096 elements (2 x 2049 .. 2 x 8193)
  EXPECT_GT(r.shapes.sampled_graded, 0);
  EXPECT_LT(r.shapes.sampled_graded, r.shapes.sampled_of);
  EXPECT_TRUE(r.shapes.failed_problems.empty());
}

// Each at-scale mutant: right at tiny shapes in every dtype it breaks.
// Mutants.DefaultRunFlagsIt fails each at the tails in every dtype, and
// tests/replay_test.py replays every failure it prints; here the f32
// failure of the two cheapest (a row kernel's and a product's) is named by
// the tail it came from and reproduced by its replay's --case through the
// engine.
TEST(ShapedCases, AtScaleDefectsPassTinyFailTailsAndReplay) {
  int mutants = 0;
  for (const auto& m : mutants::all()) {
    if (m.shapes.empty()) continue;
    ++mutants;
    const std::string backend = "mutant:" + std::string(m.name);
    const char* kernel = m.kernels.front().data();
    for (DType t : m.dtypes.list()) {
      const auto tiny = graded(backend.c_str(), kernel, t, "tiny");
      EXPECT_EQ(tiny.verdict, engine::Verdict::pass) << m.name << " " << tiny.headline;
    }
    if (m.name != "softmax_drops_last_block" && m.name != "matmul_split_k_drops_last") continue;
    const auto tails = graded(backend.c_str(), kernel, DType::f32, "tails");
    ASSERT_EQ(tails.verdict, engine::Verdict::fail) << m.name;
    ASSERT_FALSE(tails.shapes.failed_problems.empty());
    EXPECT_EQ(tails.shapes.failed_problems.front().rfind("tail n=", 0), 0u);
    ASSERT_FALSE(tails.failures.empty());
    const std::string& repro = tails.failures.front().repro;
    EXPECT_NE(repro.find("--shapes tails --seed 1 --case "), std::string::npos) << repro;
    const auto id = std::stoll(repro.substr(repro.find("--case ") + 7));
    EXPECT_EQ(graded(backend.c_str(), kernel, DType::f32, "tails", id).verdict, engine::Verdict::fail) << repro;
  }
  EXPECT_EQ(mutants, 8);  // (softmax twice, layer_norm, cumsum, split-K matmul, flash, Q4_K, a 2^20-term sum)
}

// The relations grade the shaped cases too (checks/check.h, Cost): each
// at-scale defect of a kernel with a relation fails that relation at the
// tails, over whole rows (a row's sum, its moments, the last prefix) or
// over the sampled elements (flash against naive).
TEST(ShapedCases, RelationsGradeTheTails) {
  const std::pair<const char*, const char*> defects[] = {{"softmax_drops_last_block", "softmax_last_dim"},
                                                         {"layer_norm_wrong_welford_merge", "layer_norm_last_dim"},
                                                         {"cumsum_loses_block_carry", "cumsum"},
                                                         {"flash_drops_last_tile", "attention_flash"}};
  for (const auto& [mutant, kernel] : defects) {
    const auto r = graded((std::string("mutant:") + mutant).c_str(), kernel, DType::f32, "tails");
    std::int64_t relation_failed = 0;
    for (const auto& c : r.checks)
      if (c.kind == engine::CheckKind::property && c.name.rfind("property:", 0) == 0) relation_failed += c.failed;
    EXPECT_GT(relation_failed, 0) << mutant;
  }
}

// Folds of 2^20 terms (the shipped set `folds`): the reference's sums,
// dot products and prefixes pass their condition-aware bounds (valid at
// scale); a sum moved by 1.25 times its bound fails, and the line's figure
// is that 1.25 (the bound is the one graded, not a looser one). (Label
// nightly: a minute.)
TEST(ShapedCases, FoldsOfAMillionTermsHoldTheirBoundsTightly) {
  for (const char* kernel : {"sum_dim", "matmul_2d", "cumsum"}) {
    const auto r = graded("reference", kernel, DType::f32, "folds");
    EXPECT_EQ(r.verdict, engine::Verdict::pass) << kernel << ": " << r.headline;
    ASSERT_EQ(r.shapes.lines.size(), 1u) << kernel;
    EXPECT_EQ(r.shapes.lines[0].failed, 0) << kernel;
  }
  for (DType t : {DType::f32, DType::f64}) {
    const auto m = graded("mutant:sum_error_past_bound", "sum_dim", t, "folds");
    ASSERT_EQ(m.verdict, engine::Verdict::fail) << dtype_name(t);
    ASSERT_EQ(m.shapes.lines.size(), 1u);
    EXPECT_TRUE(m.shapes.lines[0].worst_normalized);
    EXPECT_NEAR(m.shapes.lines[0].worst, 1.25, 0.01) << dtype_name(t);
  }
}

// The whole-output check's condition: a fold whose partial sums, grown by
// every rounding, could pass the dtype's range is left out (an infinity is
// then a reachable answer); the bound is (1 + u)^steps, so the edge is
// where fold (1 + u)^steps crosses the largest finite value.
TEST(ShapedCases, FiniteOutputsLeaveOutFoldsThatMayReachAnOverflow) {
  using drivers::unless_overflow_reachable;
  EXPECT_EQ(unless_overflow_reachable(3.0, 8193.0, DType::f32, 8193), 3.0);
  EXPECT_EQ(unless_overflow_reachable(3.0, 16.0, DType::f16, 16), 3.0);
  // f16: 8193 ones grow to 8193 (1 + 2^-11)^8193 > 4 10^5 > 65504.
  EXPECT_FALSE(unless_overflow_reachable(3.0, 8193.0, DType::f16, 8193));
  // (1 + 2^-11)^2048 = e^1.0 (to 2^-12): 24000 e < 65504 < 26000 e.
  EXPECT_TRUE(unless_overflow_reachable(1.0, 24000.0, DType::f16, 2048));
  EXPECT_FALSE(unless_overflow_reachable(1.0, 26000.0, DType::f16, 2048));
  EXPECT_FALSE(unless_overflow_reachable(1.0, 1.7976931348623157e308, DType::f64, 1));
}

// One NaN element a row that the exact sample does not grade: the accuracy
// check passes the tails (its sample misses element 4743 of every row),
// the whole-output check fails them, naming the element, and its replay
// fails the same way.
TEST(ShapedCases, WholeOutputCheckCatchesWhatTheSampleMisses) {
  const auto r = graded("mutant:softmax_stale_lane", "softmax_last_dim", DType::f32, "tails");
  ASSERT_EQ(r.verdict, engine::Verdict::fail);
  const engine::CheckTally* accuracy = nullptr;
  const engine::CheckTally* finite = nullptr;
  for (const auto& c : r.checks) {
    if (c.name == "accuracy") accuracy = &c;
    if (c.name == "finite_outputs") finite = &c;
  }
  ASSERT_TRUE(accuracy && finite);
  EXPECT_EQ(accuracy->failed, 0);
  EXPECT_GT(finite->failed, 0);
  EXPECT_GT(r.shapes.finite_held, 0);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures.front().message.find("element 4743 is NaN"), std::string::npos) << r.failures.front().message;
  const std::string& repro = r.failures.front().repro;
  const auto id = std::stoll(repro.substr(repro.find("--case ") + 7));
  EXPECT_EQ(graded("mutant:softmax_stale_lane", "softmax_last_dim", DType::f32, "tails", id).verdict, engine::Verdict::fail);
  // (The reference: every element of every tail finite, and held so.)
  const auto ref = graded("reference", "softmax_last_dim", DType::f32, "tails");
  EXPECT_EQ(ref.verdict, engine::Verdict::pass) << ref.headline;
  EXPECT_GT(ref.shapes.finite_held, 38 * 2);
}

}  // namespace
}  // namespace kc
