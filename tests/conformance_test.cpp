// One conformance test per kernel and dtype of the contract table, run on
// the reference backend with the default run's settings (every bf16/f16
// input of one-input kernels; 100 random cases). A run that graded nothing
// fails. Each result must also equal, verdict and figure, the committed
// digest of the default run (tests/results_digest.h): what a refactor or a
// new family leaves alone stays exactly as it was. A result whose oracle
// made bulk exact-sum calls is graded again on every other exact-sum path
// the CPU has (oracles/exact_sum.h: eight lanes, four, scalar), and must
// give the same digest: the documents do not depend on which the CPU has.
#include <gtest/gtest.h>

#include <fstream>

#include "checks/check.h"
#include "core/backend.h"
#include "engine/conformance.h"
#include "oracles/exact_sum.h"
#include "reports/results_json.h"
#include "tests/read_back.h"
#include "tests/results_digest.h"

namespace kc {
namespace {

struct Item {
  const contract::KernelSpec* kernel;
  DType dtype;
};

std::vector<Item> items() {
  std::vector<Item> v;
  for (const auto& k : checks::checked_kernels())
    for (DType t : engine::graded_dtypes(k)) v.push_back({&k, t});
  return v;
}

void PrintTo(const Item& i, std::ostream* os) { *os << i.kernel->name << " " << dtype_name(i.dtype); }

class Conformance : public ::testing::TestWithParam<Item> {};

const nlohmann::json& golden() {
  static const nlohmann::json g = [] {
    std::ifstream in(KC_SOURCE_DIR "/tests/data/default-run-seed1.digest.json");
    return in ? nlohmann::json::parse(in) : nlohmann::json::object();
  }();
  return g;
}

// The digest of a result graded alone, as the default run grades it.
nlohmann::json digest(const engine::KernelDTypeResult& r) {
  engine::RunResults rr;
  rr.results.push_back(r);
  const auto doc = reports::results_json(rr);
  return testing_support::digest_of_result(doc["kernels"][0]["contract"], doc["kernels"][0]["results"][0]);
}

TEST_P(Conformance, ReferencePassesItsContract) {
  const auto [k, t] = GetParam();
  auto backend = make_backend("reference");
  const std::int64_t bulk_before = oracle::ExactSum::bulk_calls();
  const auto r = engine::run_kernel_dtype(*k, t, *backend, engine::RunOptions{.checks = &checks::registry()});
  const bool bulk = oracle::ExactSum::bulk_calls() > bulk_before;
  EXPECT_GT(r.elements, 0) << "graded nothing";
  EXPECT_GT(r.accuracy.graded + r.accuracy.special, 0);
  if (is_half(t) && k->driver == "elementwise") {
    EXPECT_TRUE(r.exhaustive) << "every 16-bit input";
  }
  for (const auto& c : r.checks) EXPECT_GT(c.passed + c.failed, 0) << c.name << " checked nothing";
  // Every class of result the kernel can produce in this dtype was reached
  // (issue 9): a kernel wrong only on subnormal results, or only near
  // overflow, is otherwise graded on nothing that shows it.
  for (contract::ResultClass rc : contract::kResultClasses) {
    if (!k->reachable_results(t).contains(rc)) continue;
    const auto it = r.coverage.result_classes.find(std::string(contract::result_class_name(rc)));
    EXPECT_TRUE(it != r.coverage.result_classes.end() && it->second > 0)
        << "no case produced a " << contract::result_class_name(rc) << " result";
  }
  EXPECT_EQ(r.verdict, engine::Verdict::pass);
  for (const auto& f : r.failures) ADD_FAILURE() << f.message;

  const auto got = digest(r);
  const std::string key = std::string(k->name) + " " + std::string(dtype_name(t));
  testing_support::expect_reads_back(r, key);
  ASSERT_TRUE(golden().contains(key)) << key << " is not in the committed digest of the default run (a new kernel: "
                                        "regenerate it as docs/architecture.md, \"Adding a kernel\", says)";
  for (const auto& [field, want] : golden()[key].items())
    EXPECT_EQ(got.value(field, nlohmann::json()), want) << key << ": " << field << " differs from the default run's digest";

  // Every other exact-sum path this CPU has, where the oracle took one.
  using Path = oracle::ExactSum::Path;
  if (k->name == "matmul") {
    EXPECT_TRUE(bulk) << "the dot oracle made no bulk exact-sum call: the paths went untested";
  }
  if (!bulk) return;
  for (const Path p : {Path::extract8, Path::extract4, Path::scalar}) {
    if (p == oracle::ExactSum::path() || !oracle::ExactSum::has_path(p)) continue;
    oracle::ExactSum::use_path(p);
    const auto on_path = digest(engine::run_kernel_dtype(*k, t, *backend, engine::RunOptions{.checks = &checks::registry()}));
    oracle::ExactSum::use_default_path();
    const char* name = p == Path::extract8 ? "extract8" : p == Path::extract4 ? "extract4" : "scalar";
    EXPECT_EQ(on_path, got) << key << ": the exact sums' " << name << " path gives another digest";
  }
}

// The same kernel and dtype in the conformance profile (what any correct
// implementation must do; the reference's own choices and bits counted as
// differences, never failures), with fewer cases: the reference profile's
// test above grades every input already, and the default ctest stays
// short. The reference must pass it, its conformance checks graded.
TEST_P(Conformance, ReferencePassesTheConformanceProfile) {
  const auto [k, t] = GetParam();
  auto backend = make_backend("reference");
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.profile = engine::Profile::conformance;
  opts.cases = 12;
  opts.sweeps = 1;
  opts.exhaustive_halves = false;
  const auto r = engine::run_kernel_dtype(*k, t, *backend, opts);
  EXPECT_GT(r.elements, 0) << "graded nothing";
  EXPECT_EQ(r.verdict, engine::Verdict::pass);
  for (const auto& f : r.failures) ADD_FAILURE() << f.message;
  // Every check passes (a reference-profile outcome that fails is a
  // difference here, counted in `differs`), and the conformance profile's
  // own checks graded something.
  bool conformance_checks = false;
  for (const auto& c : r.checks) {
    EXPECT_EQ(c.failed, 0) << c.name << " (" << engine::profile_name(c.profile) << " profile)";
    conformance_checks |= c.profile == engine::Profile::conformance && c.passed > 0;
  }
  EXPECT_TRUE(conformance_checks) << "no conformance-profile check passed anything";
}

INSTANTIATE_TEST_SUITE_P(Conformance, Conformance, ::testing::ValuesIn(items()), [](const auto& info) {
  return std::string(info.param.kernel->family) + "_" + std::string(info.param.kernel->name) +
         "_" + std::string(dtype_name(info.param.dtype));
});

// The engine knows no check by name: it is handed them. A run handed none
// would grade no property and still pass, so it is refused.
TEST(ConformanceTable, ARunHandedNoChecksIsRefused) {
  auto backend = make_backend("reference");
  const auto* k = contract::find_kernel("exp");
  try {
    engine::run_kernel_dtype(*k, DType::f32, *backend, engine::RunOptions{});
    ADD_FAILURE() << "a run without checks was graded";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("handed no checks"), std::string::npos) << e.what();
  }
}

TEST(ConformanceTable, RanSomething) { EXPECT_GE(items().size(), 26u * 4u); }

// ctest registers the conformance tests family by family (KC_FAMILIES in
// CMakeLists.txt): a family missing there would silently not run.
TEST(ConformanceTable, EveryFamilyHasACtestLabel) {
  const std::string labels = "," + std::string(KC_FAMILY_LABELS) + ",";
  for (const auto& k : checks::checked_kernels())
    EXPECT_NE(labels.find("," + std::string(k.family) + ","), std::string::npos)
        << "family '" << k.family << "' of " << k.name << " is not in KC_FAMILIES";
}

}  // namespace
}  // namespace kc
