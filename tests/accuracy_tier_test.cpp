// Accuracy tiers (issue 37, item 3; engine/accuracy_tier.h): the accuracy
// check grades against the tier's bound where it covers the kernel x dtype,
// the contract's elsewhere, and each result names the tier and the bound.
// Shown tight both ways with a backend that moves every finite f32 exp
// result k units up: 2 units fails the contract (distance <= 1) and passes
// a 5-ulp tier (k units are at most 2k + 1/2 ulps of z, where they cross
// into the next binade), 6 units (at least 5.5 ulps) fails it. Tier files: the built-in ones parse, and
// every error names the file and the line.
#include <gtest/gtest.h>

#include "tests/test_support.h"

#include <bit>
#include <cmath>

#include "backends/reference/executor.h"
#include "checks/check.h"
#include "checks/property_latitude.h"
#include "core/error.h"
#include "drivers/driver.h"
#include "engine/accuracy_tier.h"
#include "engine/conformance.h"
#include "engine/context.h"

namespace kc {
namespace {

// The reference, every finite non-zero f32 result of a non-zero input moved
// `ulps` units up in magnitude (exp(0) = 1 is a special-value rule).
class UlpsOff final : public testing_support::ReferenceBut {
 public:
  explicit UlpsOff(int ulps) : ReferenceBut("ulps_off_test"), ulps_(ulps) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    if (out[0].dtype() != DType::f32) return out;
    for (std::int64_t i = 0; i < out[0].numel(); ++i) {
      const float v = static_cast<float>(out[0].value_at(i));
      if (std::isfinite(v) && v != 0 && std::fabs(v) < 1e38f && in[0].value_at(i) != 0)
        out[0].set_bits(i, std::bit_cast<std::uint32_t>(v) + static_cast<std::uint32_t>(ulps_));
    }
    return out;
  }

 private:
  int ulps_;
};

engine::KernelDTypeResult run(int ulps, const engine::AccuracyTier* tier, std::string_view kernel = "exp") {
  const UlpsOff backend(ulps);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 20;
  opts.profile = engine::Profile::conformance;
  opts.backend = backend.name();
  opts.tier = tier;
  return engine::run_kernel_dtype(*contract::find_kernel(kernel), DType::f32, backend, opts);
}

// (A function's static, not a global: parsing reads the contract table,
// which must not be built during static initialization.)
const engine::AccuracyTier& five_ulps() {
  static const engine::AccuracyTier tier = engine::parse_tier("name: five\nsource: a test\nexp f32 frac_ulp 5\n", "t.tier");
  return tier;
}

bool has_check(const engine::KernelDTypeResult& r, std::string_view name) {
  for (const auto& c : r.checks)
    if (c.name == name) return true;
  return false;
}

TEST(AccuracyTier, TheTiersBoundGradesAndIsTightBothWays) {
  const auto contract2 = run(2, nullptr);
  EXPECT_EQ(contract2.verdict, engine::Verdict::fail) << "2 ulps is above the contract's distance <= 1";
  EXPECT_EQ(contract2.tier.name, "reference");

  const auto tier2 = run(2, &five_ulps());
  EXPECT_EQ(tier2.verdict, engine::Verdict::pass) << tier2.headline;
  EXPECT_EQ(tier2.tier.name, "five");
  EXPECT_EQ(tier2.tier.bound, "<= 5 ulp");
  EXPECT_TRUE(tier2.tier.covered);
  EXPECT_GT(tier2.accuracy.max_frac_ulp, 1.5);

  const auto tier6 = run(6, &five_ulps());
  EXPECT_EQ(tier6.verdict, engine::Verdict::fail) << "6 ulps is above the tier's 5";
}

TEST(AccuracyTier, TheContractModelsStatisticsDoNotRunUnderATier) {
  // gelu f32's contract asks for the bias test; a tier's bound replaces the model.
  const engine::AccuracyTier gelu = engine::parse_tier("name: g\nsource: s\ngelu f32 frac_ulp 3\n", "g.tier");
  EXPECT_TRUE(has_check(run(0, nullptr, "gelu"), "bias: mean signed ulp error is zero"));
  EXPECT_FALSE(has_check(run(0, &gelu, "gelu"), "bias: mean signed ulp error is zero"));
}

TEST(AccuracyTier, AKernelTheTierDoesNotCoverKeepsTheContract) {
  const engine::AccuracyTier other = engine::parse_tier("name: other\nsource: s\nlog f32 frac_ulp 3\n", "o.tier");
  const auto r = run(2, &other);
  EXPECT_EQ(r.verdict, engine::Verdict::fail);
  EXPECT_FALSE(r.tier.covered);
  EXPECT_EQ(r.tier.name, "other");
}

TEST(AccuracyTier, TheBuiltInTiersParse) {
  const auto names = engine::builtin_tier_names();
  ASSERT_EQ(names.size(), 3u);
  const auto ref = make_backend("reference");
  for (const auto& n : names) {
    const auto t = engine::load_tier(n, *ref, {});
    ASSERT_TRUE(t) << n;
    EXPECT_FALSE(t->source.empty()) << n;
    EXPECT_GE(t->bounds.size(), 28u) << n;
  }
  const auto ocl = engine::load_tier("opencl-full-profile", *ref, {});
  const contract::Accuracy* exp32 = ocl->find("exp", DType::f32);
  ASSERT_NE(exp32, nullptr);
  EXPECT_EQ(exp32->max_frac_ulp, 3);
  EXPECT_EQ(ocl->find("exp", DType::bf16), nullptr) << "halves are not in the OpenCL table here";
  const auto cuda = engine::load_tier("cuda-programming-guide", *ref, {});
  EXPECT_EQ(cuda->find("exp", DType::f32)->max_distance, 2) << "CUDA states distances from RN(z)";
}

TEST(AccuracyTier, EveryErrorNamesTheFileAndLine) {
  const auto message = [](std::string_view text) {
    try {
      engine::parse_tier(text, "my.tier");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("name: a\nsource: b\nexpp f32 frac_ulp 3\n"), "tier file my.tier, line 3: unknown kernel 'expp' (kconform list)");
  EXPECT_NE(message("name: a\nsource: b\nexp u32 frac_ulp 3\n").find("line 3: kernel 'exp' does not take 'u32'"), std::string::npos);
  EXPECT_NE(message("name: a\nsource: b\nexp f32 ulps 3\n").find("line 3: 'ulps 3' is not a bound"), std::string::npos);
  EXPECT_NE(message("name: a\nsource: b\nexp f32 distance 1.5\n").find("line 3"), std::string::npos);
  EXPECT_NE(message("name: a\nsource: b\nexp f32 frac_ulp\n").find("line 3: 'exp f32 frac_ulp' is not"), std::string::npos);
  EXPECT_NE(message("name: a\nsource: b\nexp f32 frac_ulp 3\nexp f32 frac_ulp 4\n").find("line 4: exp f32 listed twice"),
            std::string::npos);
  EXPECT_EQ(message("source: b\nexp f32 frac_ulp 3\n"), "tier file my.tier: no 'name:' line");
}

// The claimed tier is the backend's own claims; a backend with none covers nothing.
TEST(AccuracyTier, ClaimedWithoutClaimsCoversNothing) {
  const auto ref = make_backend("reference");
  const auto t = engine::load_tier("claimed", *ref, {contract::find_kernel("exp")});
  ASSERT_TRUE(t);
  EXPECT_TRUE(t->bounds.empty());
}

// The properties' latitude is zero for an exact or correctly rounded model
// and the tier's bound on each side for an ulp bound.
TEST(AccuracyTier, PropertyLatitudeFollowsTheGradedModel) {
  const auto ref = make_backend("reference");
  const contract::KernelSpec& k = *contract::find_kernel("cos");
  const auto latitude = [&](const engine::AccuracyTier& tier, double a, double b) {
    engine::RunOptions opts;
    opts.tier = &tier;
    const engine::Context c{k, DType::f32, *ref, drivers::of(k), opts};  // (the bound is looked up here)
    return checks::property_latitude(c, a, b);
  };
  const engine::AccuracyTier cr = engine::parse_tier("name: cr\nsource: s\ncos f32 correctly_rounded\n", "c.tier");
  EXPECT_EQ(latitude(cr, 0.5, 0.5), 0);
  const engine::AccuracyTier four = engine::parse_tier("name: four\nsource: s\ncos f32 frac_ulp 4\n", "f.tier");
  EXPECT_EQ(latitude(four, 0.75, 0.75), 2 * 4 * 2 * 0x1p-24);
  EXPECT_EQ(latitude(four, INFINITY, 0.75), 0);
}

}  // namespace
}  // namespace kc

namespace kc {
namespace {

// tanh whose results at and above 1 - 2^-24 come back as 1 + 2^-23: within
// the contract's bound (distance 1 <= 2), outside |tanh(x)| <= 1. A run
// flags the property; `--input` on the failing element replays it too
// (issue 37, P2: it replayed as PASS).
class TanhPastOne final : public testing_support::ReferenceBut {
 public:
  TanhPastOne() : ReferenceBut("tanh_past_one_test") {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    for (std::int64_t i = 0; i < out[0].numel(); ++i)
      if (out[0].value_at(i) == 1.0) out[0].set_bits(i, std::bit_cast<std::uint32_t>(1.0f + 0x1p-23f));
    return out;
  }

};

TEST(ReplayElement, RunsThePointwiseProperties) {
  const TanhPastOne backend;
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.profile = engine::Profile::conformance;
  opts.backend = backend.name();
  const contract::KernelSpec& k = *contract::find_kernel("tanh");
  bool failed = false;
  const auto r = engine::replay_element(k, DType::f32, backend, {std::bit_cast<std::uint32_t>(10.0f)}, {}, opts, failed);
  EXPECT_TRUE(failed) << r.message;
  EXPECT_EQ(r.check, "property:|tanh(x)| <= 1") << r.message;
  failed = true;
  engine::replay_element(k, DType::f32, backend, {std::bit_cast<std::uint32_t>(0.5f)}, {}, opts, failed);
  EXPECT_FALSE(failed) << "tanh(0.5) is the reference's";
}

}  // namespace
}  // namespace kc
