// The self-test: each planted defect must be flagged, on every dtype it
// breaks, by the check its entry names. A mutant that passes means a check
// that cannot fail.
#include <gtest/gtest.h>

#include "backends/mutants/mutants.h"
#include "engine/conformance.h"

namespace kc {
namespace {

class Mutants : public ::testing::TestWithParam<const mutants::Mutant*> {};

TEST_P(Mutants, DefaultRunFlagsIt) {
  const mutants::Mutant& m = *GetParam();
  auto backend = make_backend("mutant:" + std::string(m.name));
  engine::RunOptions opts;
  opts.backend = "mutant:" + std::string(m.name);
  int runs = 0;
  for (std::string_view kernel : m.kernels)
  for (DType t : m.dtypes.list()) {
    const auto* k = contract::find_kernel(kernel);
    ASSERT_NE(k, nullptr) << kernel;
    const auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
    bool flagged = false;
    for (const auto& c : r.checks) flagged |= c.failed > 0 && c.kind == m.expected_check;
    EXPECT_TRUE(flagged) << m.name << " on " << kernel << " " << dtype_name(t) << " was not flagged by a '"
                         << m.expected_check << "' check";
    EXPECT_EQ(r.verdict, "fail");
    bool has_repro = false;
    for (const auto& f : r.failures) has_repro |= f.repro.find("--backend mutant:") != std::string::npos;
    EXPECT_TRUE(has_repro) << "failures must print a replay command naming the backend";
    ++runs;
  }
  EXPECT_GT(runs, 0);
}

INSTANTIATE_TEST_SUITE_P(Mutants, Mutants, ::testing::ValuesIn([] {
                           std::vector<const mutants::Mutant*> v;
                           for (const auto& m : mutants::all()) v.push_back(&m);
                           return v;
                         }()),
                         [](const auto& info) { return std::string(info.param->name); });

TEST(MutantTable, HasAtLeastTenDefectsOverEveryCheckKind) {
  std::set<std::string> kinds;
  for (const auto& m : mutants::all()) kinds.insert(std::string(m.expected_check));
  EXPECT_GE(mutants::all().size(), 10u);
  for (const char* kind : {"accuracy", "special", "bias", "bad-input", "semantics", "statistics", "layout"})
    EXPECT_TRUE(kinds.count(kind)) << kind;
}

}  // namespace
}  // namespace kc
