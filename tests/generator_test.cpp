// The generators reach what the RapidCheck float generator does not, stay
// within the Debian build's limits, and are reproducible from their seed.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "backends/reference/executor.h"
#include "core/error.h"
#include "generators/invalid.h"
#include "drivers/driver.h"
#include "generators/values.h"

namespace kc {
namespace {

TEST(Generators, ElementValuesCoverEveryClass) {
  const auto* k = contract::find_kernel("round");
  for (DType t : kFloatDTypes) {
    auto g = gen::element_bits(t, k->values);
    std::map<std::string, int> seen;
    const FloatFormat f = float_format(t);
    for (std::uint64_t i = 0; i < 20000; ++i) {
      const double v = bits_to_double(t, g(rc::Random(i), gen::kMaxSize).value());
      if (std::isnan(v)) ++seen["nan"];
      else if (std::isinf(v)) ++seen[v > 0 ? "+inf" : "-inf"];
      else if (v == 0) ++seen[std::signbit(v) ? "-0" : "+0"];
      else if (std::fabs(v) < std::ldexp(1.0, f.emin)) ++seen["subnormal"];
      else ++seen["normal"];
      if (std::isfinite(v) && std::fabs(v - std::trunc(v)) == 0.5) ++seen["tie"];
      if (std::fabs(v) == std::ldexp(2.0 - std::ldexp(1.0, 1 - f.precision), f.emax)) ++seen["max"];
    }
    for (const char* c : {"nan", "+inf", "-inf", "+0", "-0", "subnormal", "normal", "tie", "max"})
      EXPECT_GT(seen[c], 0) << dtype_name(t) << " never generated " << c;
  }
}

TEST(Generators, ShapesCoverRanksEmptyAndSizeOne) {
  auto g = gen::shape(0, 6);
  std::map<int, int> ranks;
  int empty = 0, size1 = 0;
  for (std::uint64_t i = 0; i < 3000; ++i) {
    Dims d = g(rc::Random(i), gen::kMaxSize).value();
    ASSERT_LE(checked_numel(d), gen::kMaxElements);
    ++ranks[static_cast<int>(d.size())];
    empty += checked_numel(d) == 0;
    size1 += std::count(d.begin(), d.end(), 1) > 0;
  }
  for (int r = 0; r <= 6; ++r) EXPECT_GT(ranks[r], 0) << "rank " << r;
  EXPECT_GT(empty, 0);
  EXPECT_GT(size1, 0);
}

TEST(Generators, SeedsAreDerivedPerKernelDtypeAndStable) {
  const auto a = gen::derive_seed(1, "exp", "f32", "case", 0);
  EXPECT_NE(a, gen::derive_seed(1, "exp", "f64", "case", 0));
  EXPECT_NE(a, gen::derive_seed(1, "log", "f32", "case", 0));
  EXPECT_NE(a, gen::derive_seed(2, "exp", "f32", "case", 0));
  EXPECT_NE(a, gen::derive_seed(1, "exp", "f32", "case", 1));
  EXPECT_EQ(a, gen::derive_seed(1, "exp", "f32", "case", 0));
  const auto* k = contract::find_kernel("powi");
  auto c1 = drivers::of(*k).random_case(*k, DType::f32)(rc::Random(a), gen::kMaxSize).value();
  auto c2 = drivers::of(*k).random_case(*k, DType::f32)(rc::Random(a), gen::kMaxSize).value();
  ASSERT_EQ(c1.inputs[0].dims(), c2.inputs[0].dims());
  EXPECT_EQ(c1.params.to_string(), c2.params.to_string());
  EXPECT_TRUE(std::equal(c1.inputs[0].bytes(), c1.inputs[0].bytes() + c1.inputs[0].byte_size(), c2.inputs[0].bytes()));
}

TEST(Generators, FamilyCasesAreValidCalls) {
  for (const auto& k : contract::all_kernels()) {
    for (DType t : k.dtypes().list()) {
      for (std::uint64_t i = 0; i < 20; ++i) {
        gen::Case cs = drivers::of(k).random_case(k, t)(rc::Random(i), gen::kMaxSize).value();
        EXPECT_NO_THROW(ref::execute(k.name, cs.inputs, cs.params)) << k.name << " " << dtype_name(t) << " case " << i;
      }
    }
  }
}

// has_statistics_case answers without building the case: it must say what
// statistics_case does, for every kernel and dtype, and the case it
// promises must be a valid call.
TEST(Generators, StatisticsCasesAreWhereTheDriverSaysAndValid) {
  int cases = 0;
  for (const auto& k : contract::all_kernels()) {
    for (DType t : k.dtypes().list()) {
      const auto& d = drivers::of(k);
      const auto c = d.statistics_case(k, t, 7);
      ASSERT_EQ(d.has_statistics_case(k, t), c.has_value()) << k.name << " " << dtype_name(t);
      if (!c) continue;
      ++cases;
      EXPECT_NO_THROW(ref::execute(k.name, c->inputs, c->params)) << k.name << " " << dtype_name(t);
    }
  }
  EXPECT_GT(cases, 50);
}

TEST(Generators, BroadcastPairsAreCompatibleAndReduceTargetsFit) {
  const auto* k = contract::find_kernel("broadcast_mul");
  int expanded = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    auto cs = drivers::of(*k).random_case(*k, DType::f32)(rc::Random(i), gen::kMaxSize).value();
    expanded += cs.inputs[0].dims() != cs.inputs[1].dims();
  }
  EXPECT_GT(expanded, 100);  // most pairs really broadcast
  const auto* b = contract::find_kernel("broadcast_to");
  int pure = 0, copies = 0;
  for (std::uint64_t i = 0; i < 300; ++i) {
    auto cs = drivers::of(*b).random_case(*b, DType::f32)(rc::Random(i), gen::kMaxSize).value();
    const bool p = is_pure_padding(cs.inputs[0].dims(), cs.params.shape("target"));
    pure += p;
    copies += !p;
  }
  EXPECT_GT(pure, 30);
  EXPECT_GT(copies, 30);
}

TEST(Generators, EveryPreconditionHasAnInvalidInputTheReferenceRejects) {
  int checked = 0;
  for (const auto& k : contract::all_kernels()) {
    const DType t = k.dtypes().list().front();
    gen::Case valid = drivers::of(k).random_case(k, t)(rc::Random(3), gen::kMaxSize).value();
    for (const auto& rule : k.preconditions) {
      for (std::uint64_t i = 0; i < 4; ++i) {
        auto bad = drivers::of(k).violate(k, rule, valid, i);
        if (!bad) bad = gen::violate_shared(k, rule, valid, i);
        ASSERT_TRUE(bad) << k.name << " " << rule_name(rule.rule);
        try {
          ref::execute(k.name, bad->inputs, bad->params);
          ADD_FAILURE() << k.name << " accepted an input breaking " << rule_name(rule.rule);
        } catch (const KernelError& e) {
          EXPECT_EQ(e.rule(), rule.rule) << e.what();
          EXPECT_EQ(e.operand(), rule.operand) << e.what();
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 68 * 4 * 4);
}

}  // namespace
}  // namespace kc
