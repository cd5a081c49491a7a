// The report's diff against a baseline and the merging of documents:
// regressions on the same inputs, drift across seeds, missing results,
// merged counts, maxima, failures and verdicts.
#include <gtest/gtest.h>

#include "tests/report_test_support.h"
#include "tests/test_support.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "engine/findings.h"
#include "reports/html.h"
#include "reports/results_json.h"
#include "reports/merge.h"
#include "reports/site/site.h"
#include "reports/site/html_util.h"
#include "reports/site/svg_plots.h"


namespace kc {
namespace {

using namespace report_testing;  // NOLINT: small_doc, slurp, TempDir, write_json
namespace fs = std::filesystem;
using nlohmann::json;

json planted_regression(const json& old_doc) {
  json nw = old_doc;
  nw["kernels"][0]["results"][0]["accuracy"]["max_frac_ulp"] = 7.25;  // exp f32: error up
  nw["kernels"][1]["results"][0]["verdict"] = "fail";                 // relu f32: now fails
  return nw;
}

bool lists(const std::vector<reports::site::Change>& v, const std::string& kernel, const std::string& dtype) {
  for (const auto& c : v)
    if (c.kernel == kernel && c.dtype == dtype) return true;
  return false;
}

// Same seed, same inputs: any worsening is a regression.
TEST(Diff, OnTheSameInputsAnyWorseningIsARegression) {
  const json& old_doc = small_doc();
  const auto d = reports::site::compare(old_doc, planted_regression(old_doc));
  EXPECT_TRUE(d.regressed());
  EXPECT_TRUE(lists(d.regressions, "exp", "f32")) << "error up on the same inputs";
  EXPECT_TRUE(lists(d.regressions, "relu", "f32")) << "verdict pass -> fail";
  for (const auto& c : d.regressions) EXPECT_TRUE(c.same_inputs);
  EXPECT_FALSE(reports::site::compare(old_doc, old_doc).regressed());
  // A move far smaller than the old 10% coverage threshold counts too.
  json tiny = old_doc;
  tiny["kernels"][0]["results"][0]["elements"] = old_doc["kernels"][0]["results"][0]["elements"].get<std::int64_t>() - 1;
  EXPECT_TRUE(lists(reports::site::compare(old_doc, tiny).regressions, "exp", "f32"));
  // The other way round, relu f32 is fixed and exp f32 improved.
  const auto back = reports::site::compare(planted_regression(old_doc), old_doc);
  EXPECT_FALSE(back.regressed());
  EXPECT_TRUE(lists(back.fixed, "relu", "f32"));
  EXPECT_TRUE(lists(back.improved, "exp", "f32"));
}

// Another seed: figures move; only a verdict change or a crossed bound is a regression.
TEST(Diff, AcrossSeedsOnlyAVerdictOrACrossedBoundIsARegression) {
  const json& old_doc = small_doc();
  const json other = reports::results_json(testing_support::small_run({"exp", "relu", "gelu_erf"}, {DType::f32, DType::f64}, 2));
  const auto d = reports::site::compare(old_doc, other);
  EXPECT_FALSE(d.regressed()) << (d.regressions.empty() ? "" : d.regressions[0].what);
  EXPECT_FALSE(d.drift.empty()) << "seed 2 moves some figure";
  for (const auto& c : d.drift) EXPECT_FALSE(c.same_inputs);
  json worse = other;
  worse["kernels"][0]["results"][0]["accuracy"]["max_frac_ulp"] = 2.4;  // exp f32: within its 2.5-ulp bound
  EXPECT_FALSE(reports::site::compare(old_doc, worse).regressed());
  for (auto& c : worse["kernels"][0]["results"][0]["checks"])
    if (c["name"] == "accuracy") c["failed"] = 3;  // ... and now over it
  const auto crossed = reports::site::compare(old_doc, worse);
  ASSERT_TRUE(lists(crossed.regressions, "exp", "f32"));
  EXPECT_NE(crossed.regressions[0].what.find("check 'accuracy' passed, now fails"), std::string::npos);
}

TEST(Diff, MissingResultsAreListedApartNotAsRegressions) {
  const json& old_doc = small_doc();
  json nw = old_doc;
  nw["kernels"][1]["results"].erase(0);  // relu f32 passed and is now missing
  const auto d = reports::site::compare(old_doc, nw);
  EXPECT_FALSE(d.regressed());
  ASSERT_TRUE(lists(d.missing, "relu", "f32"));
  // With a regression beside it, the regression is still the one listed as such.
  nw["kernels"][0]["results"][0]["coverage"]["value_classes"]["normal"] = 0;
  const auto both = reports::site::compare(old_doc, nw);
  ASSERT_EQ(both.regressions.size(), 1u);
  EXPECT_EQ(both.regressions[0].kernel, "exp");
  EXPECT_NE(both.regressions[0].what.find("coverage: value class normal"), std::string::npos);
}

TEST(Diff, ReportCommandExitsOneAndListsTheRegression) {
  TempDir dir("diffcmd");
  write_json(dir.path / "old.json", small_doc());
  write_json(dir.path / "new.json", planted_regression(small_doc()));
  cli::ReportOptions o;
  o.inputs = {(dir.path / "new.json").string()};
  o.baseline = (dir.path / "old.json").string();
  o.out = (dir.path / "site").string();
  o.quiet = true;
  EXPECT_EQ(cli::report(o), 1);
  const std::string html = slurp(dir.path / "site" / "diff.html");
  const auto sec = html.find("id=\"regressions\""), next = html.find("id=\"fixed\"");
  ASSERT_NE(sec, std::string::npos);
  EXPECT_NE(html.substr(sec, next - sec).find("relu f32"), std::string::npos);
  EXPECT_NE(html.substr(sec, next - sec).find("exp f32"), std::string::npos);
  EXPECT_NE(html.find("REGRESSED"), std::string::npos);
  EXPECT_NE(slurp(dir.path / "site" / "index.html").find("href=\"diff.html\""), std::string::npos);
  o.baseline = (dir.path / "new.json").string();
  EXPECT_EQ(cli::report(o), 0);
}

json only(const json& doc, const std::string& kernel) {
  json out = doc;
  out["kernels"] = json::array();
  for (const auto& k : doc["kernels"])
    if (k["name"] == kernel) out["kernels"].push_back(k);
  return out;
}

TEST(Report, MergesDocumentsAndRejectsDuplicates) {
  const json a = only(small_doc(), "exp"), b = only(small_doc(), "relu");
  const json m = reports::merge_documents({a, b});
  ASSERT_EQ(m["kernels"].size(), 2u);
  EXPECT_EQ(m["runs"].size(), 2u);
  EXPECT_EQ(m["totals"]["kernel_dtypes"], 4);
  EXPECT_EQ(m["kernels"][1]["results"][0]["run_index"], 2);
  // Two dtypes of one kernel from two documents join one page.
  json f32 = a, f64 = a;
  f32["kernels"][0]["results"].erase(1);
  f64["kernels"][0]["results"].erase(0);
  EXPECT_EQ(reports::merge_documents({f32, f64})["kernels"][0]["results"].size(), 2u);
  try {
    reports::merge_documents({a, b, a});
    FAIL() << "the same kernel x dtype from the same seed twice must be refused";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'exp'"), std::string::npos) << e.what();
  }
  TempDir dir("merge");
  write_json(dir.path / "a.json", a);
  write_json(dir.path / "b.json", b);
  cli::ReportOptions o;
  o.inputs = {(dir.path / "a.json").string(), (dir.path / "b.json").string()};
  o.out = (dir.path / "site").string();
  o.quiet = true;
  EXPECT_EQ(cli::report(o), 0);
  EXPECT_TRUE(fs::exists(dir.path / "site" / reports::page_name("exp")));
  EXPECT_TRUE(fs::exists(dir.path / "site" / reports::page_name("relu")));
  o.inputs.push_back((dir.path / "a.json").string());
  EXPECT_THROW(cli::report(o), UsageError);
}

const json& merged_result(const json& doc, const std::string& kernel, const std::string& dtype) {
  for (const auto& k : doc["kernels"])
    if (k["name"] == kernel)
      for (const auto& r : k["results"])
        if (r["dtype"] == dtype) return r;
  throw std::runtime_error("no " + kernel + " " + dtype);
}

// Two seeds of one kernel x dtype become one result: counts add, maxima
// combine, coverage adds up, and the headline speaks of the merged figures.
TEST(Report, MergesOneKernelAndDtypeAcrossSeeds) {
  const json s1 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 1));
  const json s2 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 2));
  const json m = reports::merge_documents({s1, s2});
  const json &a = merged_result(s1, "exp", "f32"), &b = merged_result(s2, "exp", "f32"), &r = merged_result(m, "exp", "f32");
  EXPECT_EQ(m["totals"]["kernel_dtypes"], 1);
  EXPECT_EQ(r["run_indices"], json::array({1, 2}));
  for (const char* k : {"cases", "elements"}) EXPECT_EQ(r[k], a[k].get<std::int64_t>() + b[k].get<std::int64_t>()) << k;
  EXPECT_EQ(r["accuracy"]["graded"], a["accuracy"]["graded"].get<std::int64_t>() + b["accuracy"]["graded"].get<std::int64_t>());
  EXPECT_EQ(r["accuracy"]["max_frac_ulp"].get<double>(),
            std::max(a["accuracy"]["max_frac_ulp"].get<double>(), b["accuracy"]["max_frac_ulp"].get<double>()));
  for (const auto& [cls, n] : r["coverage"]["value_classes"].items())
    EXPECT_EQ(n, a["coverage"]["value_classes"].value(cls, 0) + b["coverage"]["value_classes"].value(cls, 0)) << cls;
  std::int64_t bins = 0;
  for (const auto& c : r["accuracy"]["histogram"]["counts"]) bins += c.get<std::int64_t>();
  EXPECT_EQ(bins, r["accuracy"]["graded"].get<std::int64_t>());
  EXPECT_EQ(r["verdict"], "pass");
  EXPECT_EQ(r["headline"].get<std::string>().rfind("max ", 0), 0u) << r["headline"];
  EXPECT_NE(r["headline"].get<std::string>().find(engine::figure_text(r["accuracy"]["max_frac_ulp"].get<double>())),
            std::string::npos) << r["headline"];
  // The page says it is merged, and from which runs.
  TempDir dir("merge-seeds");
  reports::write_site(m, dir.path / "site");
  EXPECT_NE(slurp(dir.path / "site" / reports::page_name("exp")).find("Merged from runs"), std::string::npos);
}

// Runs graded under an accuracy tier merge under it: the merged pass
// headline quotes the tier's bound, not the contract's (issue 37: it quoted
// the contract's 1-ulp distance for a run graded at 3 ulp); documents of
// another tier are refused, whole or result by result.
TEST(Report, MergedRunsKeepTheirTierAndRefuseAnother) {
  const engine::AccuracyTier tier = engine::parse_tier("name: wide\nsource: a test\nexp f32 frac_ulp 3\n", "wide.tier");
  const json s1 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 1, "reference", &tier));
  const json s2 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 2, "reference", &tier));
  const json m = reports::merge_documents({s1, s2});
  const json& r = merged_result(m, "exp", "f32");
  ASSERT_EQ(r["verdict"], "pass");
  EXPECT_EQ(r["accuracy_tier"]["name"], "wide");
  EXPECT_EQ(r["accuracy_tier"]["max_frac_ulp"], 3.0);
  EXPECT_NE(r["headline"].get<std::string>().find("<= 3"), std::string::npos) << r["headline"];
  EXPECT_EQ(r["headline"].get<std::string>().find("distance"), std::string::npos) << r["headline"];
  const std::string one_run = merged_result(s1, "exp", "f32")["headline"].get<std::string>();
  EXPECT_EQ(r["headline"].get<std::string>().substr(0, 4), one_run.substr(0, 4));
  // Against the reference tier's run of another seed: refused, by the runs'
  // tiers and (with those made equal) by the results'.
  const json s3 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 3));
  EXPECT_THROW(reports::merge_documents({s1, s3}), UsageError);
  json same_run = s3;
  same_run["run"]["accuracy_tier"] = s1["run"]["accuracy_tier"];
  same_run["run"]["accuracy_tier_source"] = s1["run"]["accuracy_tier_source"];
  try {
    reports::merge_documents({s1, same_run});
    ADD_FAILURE() << "results of two tiers merged";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'wide' in one document and 'reference'"), std::string::npos) << e.what();
  }
}

// A failing kernel merged across seeds: the findings' counts add, and the
// text says the sum; each failure is listed once.
TEST(Report, MergedFailuresAddTheirCountsAndAreListedOnce) {
  const json s1 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 1, "mutant:exp_f32_2ulp"));
  const json s2 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 2, "mutant:exp_f32_2ulp"));
  const json m = reports::merge_documents({s1, s2});
  const json &a = merged_result(s1, "exp", "f32"), &b = merged_result(s2, "exp", "f32"), &r = merged_result(m, "exp", "f32");
  ASSERT_EQ(r["verdict"], "fail");
  ASSERT_FALSE(a["findings"].empty());
  ASSERT_FALSE(b["findings"].empty());
  const auto& f = r["findings"][0];
  EXPECT_EQ(f["failure"], a["findings"][0]["failure"]);
  const std::int64_t sum = a["findings"][0]["count"].get<std::int64_t>() + b["findings"][0]["count"].get<std::int64_t>();
  EXPECT_EQ(f["count"], sum);
  EXPECT_NE(f["text"].get<std::string>().find(std::to_string(sum) + " elements"), std::string::npos) << f["text"];
  EXPECT_EQ(r["headline"], f["text"]);
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& e : r["failures"]) {
    if (!e["input_hex"].get<std::string>().empty()) {
      EXPECT_TRUE(seen.insert({e["check"].get<std::string>(), e["input_hex"].get<std::string>()}).second) << e["message"];
    }
  }
}

// Two conformance runs of a correct gelu that is not the reference's (its
// constant correctly rounded: a biased error the reference profile flags):
// merged, the pooled bias test differs from the reference rather than
// fails, and what differs is the sum of the checks' differences (before the
// typed merge it was the first run's count).
TEST(Report, MergedConformanceRunsDifferWhereEachRunDiffers) {
  auto run = [](std::uint64_t seed) {
    const char* backend_name = "mutant:gelu_cr_constant";
    auto backend = make_backend(backend_name);
    engine::RunOptions opts{.checks = &checks::registry()};
    opts.seed = seed;
    opts.backend = backend_name;
    opts.profile = engine::Profile::conformance;
    engine::RunResults r;
    r.run = reports::collect_metadata(seed, backend_name, "test");
    r.run.profile = engine::Profile::conformance;
    r.results.push_back(engine::run_kernel_dtype(*contract::find_kernel("gelu"), DType::f32, *backend, opts));
    return reports::results_json(r);
  };
  const json s1 = run(1), s2 = run(2);
  const json m = reports::merge_documents({s1, s2});
  const json& r = merged_result(m, "gelu", "f32");
  EXPECT_EQ(r["verdict"], "pass") << r["headline"];
  std::int64_t differs = 0;
  for (const auto& c : r["checks"]) {
    differs += c["differs"].get<std::int64_t>();
    if (c["kind"] != "bias") continue;
    EXPECT_EQ(c["failed"], 0) << c["detail"];
    EXPECT_EQ(c["differs"], 1) << c["detail"];
    EXPECT_NE(c["detail"].get<std::string>().find("pooled over the merged runs"), std::string::npos) << c["detail"];
  }
  EXPECT_GT(differs, 1);
  EXPECT_EQ(r["differs_from_reference"], differs);
  EXPECT_GT(r["differs_from_reference"].get<std::int64_t>(),
            merged_result(s1, "gelu", "f32")["differs_from_reference"].get<std::int64_t>());
  // A conformance run and a reference run grade other contracts' checks: not merged.
  json reference = s2;
  reference["run"]["profile"] = "reference";
  try {
    (void)reports::merge_documents({s1, reference});
    ADD_FAILURE() << "documents of two profiles were merged";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("other profiles"), std::string::npos) << e.what();
  }
}

// Issue 9's smaller page faults, each pinned: the results lead and the
// contract follows; a rank under the contract's minimum is "n/a", not "not
// exercised"; the right-most tick of the error profile is anchored at its
// end, so "1.7e+38" is not cut to "1.7e+3" by the plot's edge.
TEST(Site, ResultsLeadRanksOutsideTheContractAreNotApplicableTicksAreWhole) {
  const json doc = reports::results_json(testing_support::small_run({"sum_dim", "exp"}, {DType::f32}));
  TempDir dir("faults");
  reports::write_site(doc, dir.path / "site");
  const std::string sum_dim = slurp(dir.path / "site" / reports::page_name("sum_dim"));
  const auto results = sum_dim.find("id=\"dtype-f32\""), contract = sum_dim.find("id=\"contract\"");
  ASSERT_NE(results, std::string::npos);
  ASSERT_NE(contract, std::string::npos);
  EXPECT_LT(results, contract) << "the contract is drawn before the results";
  EXPECT_NE(sum_dim.find("<td>rank0</td><td class=\"num muted\" data-v=\"\">n/a (the contract&#39;s minimum rank is 1)"),
            std::string::npos);
  EXPECT_EQ(sum_dim.find("<td>rank0</td><td class=\"num zero\""), std::string::npos);

  const std::string exp = slurp(dir.path / "site" / reports::page_name("exp"));
  const json& prof = merged_result(doc, "exp", "f32")["error_profile"];
  ASSERT_FALSE(prof["x_lo"].empty());
  const std::string last = reports::site::short_num(reports::site::as_double(prof["x_lo"].back()).value());
  EXPECT_NE(exp.find("text-anchor=\"end\">" + last + "</text>"), std::string::npos) << last;
  EXPECT_NE(exp.find("text-anchor=\"start\">"), std::string::npos);
}

}  // namespace
}  // namespace kc
