// The self-test: each planted defect must be flagged, on every dtype it
// breaks, by the check its entry names. A mutant that passes means a check
// that cannot fail.
#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "checks/check.h"
#include "backends/mutants/mutants.h"
#include "engine/conformance.h"
#include "engine/findings.h"
#include "reports/html.h"
#include "reports/results_json.h"
#include "tests/read_back.h"
#include "reports/site/site.h"

namespace kc {
namespace {

std::string page_of(const reports::site::Files& files, const std::string& name) {
  for (const auto& [n, content] : files)
    if (n == name) return content;
  return {};
}

// The figure beside a failing verdict violates the bound beside it, on the
// kernel's page (its headline finding) and on the index row (issue 9): the
// pages carry both as data-figure and data-bound, and the text shows the
// figure. Where the failure is of accuracy, the page's plots mark failing
// elements as failing.
void expect_failing_figures(const engine::KernelDTypeResult& r, const std::string& what) {
  engine::RunResults rr;
  rr.results.push_back(r);
  const auto files = reports::site::render_site(reports::results_json(rr), nullptr, nullptr);
  const std::string index = page_of(files, "index.html"), page = page_of(files, reports::page_name(r.kernel));
  ASSERT_FALSE(r.findings.empty()) << what << ": a failing result without a finding";
  const std::string text = r.findings.front().text;
  EXPECT_EQ(r.headline, text) << what;
  EXPECT_NE(text.find(engine::figure_text(r.findings.front().figure)), std::string::npos)
      << what << ": the headline '" << text << "' does not show its figure";
  const std::pair<const char*, std::regex> places[] = {
      {"index row", std::regex(R"re(<td class="headline" data-metric="[^"]*" data-figure="([^"]*)" data-bound="([^"]*)">)re")},
      {"kernel page", std::regex(R"re(<li class="headline finding" data-check="[^"]*" data-metric="[^"]*" data-figure="([^"]*)" data-bound="([^"]*)">)re")}};
  for (const auto& [where, re] : places) {
    std::smatch m;
    const std::string& html = std::string(where) == "index row" ? index : page;
    ASSERT_TRUE(std::regex_search(html, m, re)) << what << ": no headline figure on the " << where;
    const double figure = std::strtod(m[1].str().c_str(), nullptr), bound = std::strtod(m[2].str().c_str(), nullptr);
    EXPECT_GT(figure, bound) << what << " " << where << ": the figure shown, " << m[1] << ", is within its bound "
                             << m[2] << " (" << text << ")";
  }
  if (r.findings.front().kind == engine::CheckKind::accuracy) {
    EXPECT_NE(page.find("class=\"failing\""), std::string::npos) << what << ": no plot marks the failing elements";
  }
}

class Mutants : public ::testing::TestWithParam<const mutants::Mutant*> {};

TEST_P(Mutants, DefaultRunFlagsIt) {
  const mutants::Mutant& m = *GetParam();
  auto backend = make_backend("mutant:" + std::string(m.name));
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.backend = "mutant:" + std::string(m.name);
  opts.profile = m.correct ? engine::Profile::reference : *engine::parse_profile(m.profile);
  // (A defect past a size: at the shapes that reach it, tests/shapes_test.cpp
  // shows it passes at tiny ones.)
  if (!m.shapes.empty()) opts.shapes = std::make_shared<gen::ShapeSelection>(gen::shape_selection(std::string(m.shapes)));
  const auto expected = engine::kCheckKinds.find(m.expected_check);
  ASSERT_TRUE(expected) << m.name << ": '" << m.expected_check << "' is no check kind";
  int runs = 0;
  for (std::string_view kernel : m.kernels)
  for (DType t : m.dtypes.list()) {
    const auto* k = contract::find_kernel(kernel);
    ASSERT_NE(k, nullptr) << kernel;
    if (!k->accuracy_for(t)) continue;  // another of the mutant's kernels' dtypes (u32 dequantize_blocks, f32 qmatmul)
    if (m.correct) {
      // Another correct evaluation: the conformance profile passes it and
      // lists where it differs from the reference.
      engine::RunOptions conf = opts;
      conf.profile = engine::Profile::conformance;
      const auto rc = engine::run_kernel_dtype(*k, t, *backend, conf);
      EXPECT_EQ(rc.verdict, engine::Verdict::pass) << m.name << " on " << kernel << " " << dtype_name(t)
                                    << ": correct, but the conformance profile failed it: " << rc.headline;
      EXPECT_GT(rc.differs, 0) << m.name << " on " << kernel << " " << dtype_name(t) << ": no difference listed";
      bool listed = false;
      for (const auto& c : rc.checks) listed |= c.differs > 0 && c.kind == *expected && c.failed == 0;
      EXPECT_TRUE(listed) << m.name << ": its '" << m.expected_check << "' check lists no difference";
    }
    const auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
    bool flagged = false;
    for (const auto& c : r.checks) flagged |= c.failed > 0 && c.kind == *expected;
    EXPECT_TRUE(flagged) << m.name << " on " << kernel << " " << dtype_name(t) << " was not flagged by a '"
                         << m.expected_check << "' check";
    EXPECT_EQ(r.verdict, engine::Verdict::fail);
    // (Failing results: failures, findings and figures read back too.)
    testing_support::expect_reads_back(r, std::string(m.name) + " on " + std::string(kernel));
    expect_failing_figures(r, std::string(m.name) + " on " + std::string(kernel) + " " + std::string(dtype_name(t)));
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

// Defects that only the results reveal (a subnormal result flushed, an
// overflow a little early, a window of width 2^-16 around a threshold) are
// caught on every seed, not by luck: the threshold sweep is the same on all.
TEST(Mutants, ResultClassDefectsAreCaughtOnTenSeeds) {
  for (const char* name : {"exp_f32_ftz_results", "exp_f32_overflows_early", "tanh_f32_edge_window"}) {
    const mutants::Mutant* m = mutants::find(name);
    ASSERT_NE(m, nullptr) << name;
    auto backend = make_backend("mutant:" + std::string(name));
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      engine::RunOptions opts{.checks = &checks::registry()};
      opts.seed = seed;
      opts.backend = "mutant:" + std::string(name);
      const auto r = engine::run_kernel_dtype(*contract::find_kernel(m->kernels.front()), DType::f32, *backend, opts);
      EXPECT_EQ(r.verdict, engine::Verdict::fail) << name << " missed on seed " << seed;
      bool flagged = false;
      for (const auto& c : r.checks) flagged |= c.failed > 0 && engine::kCheckKinds.name(c.kind) == m->expected_check;
      EXPECT_TRUE(flagged) << name << " on seed " << seed << ": not by its '" << m->expected_check << "' check";
    }
  }
}

TEST(MutantTable, HasAtLeastTenDefectsOverEveryCheckKind) {
  std::set<std::string> kinds;
  for (const auto& m : mutants::all()) kinds.insert(std::string(m.expected_check));
  EXPECT_GE(mutants::all().size(), 10u);
  for (const char* kind : {"accuracy", "special", "bias", "bad-input", "semantics", "statistics", "layout"})
    EXPECT_TRUE(kinds.count(kind)) << kind;
}

}  // namespace
}  // namespace kc
