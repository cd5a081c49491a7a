// The static site as a reader relies on it: a page per kernel, index figures
// equal to the JSON, hostile strings inert, the diff flagging a planted
// regression, merging, and atomic replacement of a good site.
#include <gtest/gtest.h>

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
#include "reports/site/site.h"
#include "reports/site/html_util.h"
#include "reports/site/svg_plots.h"

namespace kc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// One condition-aware kernel among them, so the normalized column is exercised.
const json& small_doc() {
  static const json doc = [] {
    return reports::results_json(testing_support::small_run({"exp", "relu", "gelu_erf"}, {DType::f32, DType::f64}));
  }();
  return doc;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / fmt::format("kc_site_{}_{}", name, ::getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write_json(const fs::path& p, const json& j) { std::ofstream(p) << j.dump(); }

std::string unescape(std::string s) {
  for (auto [from, to] : {std::pair{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
    for (std::size_t pos; (pos = s.find(from)) != std::string::npos;) s.replace(pos, std::string(from).size(), to);
  return s;
}

TEST(Site, EveryKernelAndDtypeHasAPageSection) {
  TempDir dir("pages");
  reports::write_site(small_doc(), dir.path / "site");
  ASSERT_TRUE(fs::exists(dir.path / "site" / "index.html"));
  for (const auto& k : small_doc()["kernels"]) {
    const auto page = dir.path / "site" / reports::page_name(k["name"].get<std::string>());
    ASSERT_TRUE(fs::exists(page)) << page;
    const std::string html = slurp(page);
    EXPECT_NE(html.find("id=\"contract\""), std::string::npos);
    for (const auto& r : k["results"]) {
      const std::string dt = r["dtype"].get<std::string>();
      EXPECT_NE(html.find("id=\"dtype-" + dt + "\""), std::string::npos) << dt;
      EXPECT_NE(html.find("Error histogram"), std::string::npos);
      EXPECT_NE(html.find("<svg"), std::string::npos);
    }
    // Every worst case carries its one-line reproduction.
    for (const auto& r : k["results"])
      for (const auto& w : r["worst"]) EXPECT_NE(html.find(reports::escape_html(w["repro"].get<std::string>())), std::string::npos);
  }
}

// Reads the index table back: header names and, per row, each cell's data-v
// (the exact value) and text.
struct Cell {
  std::string v, text;
};
std::map<std::string, std::map<std::string, Cell>> read_index(const std::string& html) {
  std::vector<std::string> headers;
  const auto thead = html.substr(html.find("<thead>"), html.find("</thead>") - html.find("<thead>"));
  const std::regex th("<th>([^<]*)</th>");
  for (auto it = std::sregex_iterator(thead.begin(), thead.end(), th); it != std::sregex_iterator(); ++it)
    headers.push_back((*it)[1]);
  std::map<std::string, std::map<std::string, Cell>> rows;
  const std::regex tr("<tr [^>]*data-kernel=\"([^\"]*)\" data-dtype=\"([^\"]*)\">(.*?)</tr>");
  const std::regex td("<td([^>]*)>(.*?)</td>");
  const std::regex dv("data-v=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tr); it != std::sregex_iterator(); ++it) {
    const std::string key = unescape((*it)[1]) + " " + unescape((*it)[2]);
    const std::string body = (*it)[3];
    std::size_t col = 0;
    for (auto c = std::sregex_iterator(body.begin(), body.end(), td); c != std::sregex_iterator(); ++c, ++col) {
      std::smatch m;
      const std::string attrs = (*c)[1];
      Cell cell{std::regex_search(attrs, m, dv) ? std::string(m[1]) : "", (*c)[2]};
      if (col < headers.size()) rows[key][headers[col]] = cell;
    }
  }
  return rows;
}

void expect_number(const Cell& c, const json& v, const std::string& what) {
  if (v.is_null()) {
    EXPECT_EQ(c.text, "n/a") << what;
    return;
  }
  const double want = v.is_string() ? (v == "inf" ? INFINITY : NAN) : v.get<double>();
  const double got = c.v == "Infinity" ? INFINITY : std::stod(c.v);
  EXPECT_EQ(got, want) << what << ": data-v " << c.v;
  // The text shown is the value to 6 significant digits.
  EXPECT_NEAR(std::stod(c.text), want, std::abs(want) * 5e-6) << what << ": text " << c.text;
}

TEST(Site, EveryNumberOnTheIndexEqualsTheJson) {
  TempDir dir("index");
  reports::write_site(small_doc(), dir.path / "site");
  const std::string html = slurp(dir.path / "site" / "index.html");
  const auto rows = read_index(html);
  std::size_t n = 0;
  bool saw_normalized = false;
  for (const auto& k : small_doc()["kernels"])
    for (const auto& r : k["results"]) {
      const std::string key = k["name"].get<std::string>() + " " + r["dtype"].get<std::string>();
      ASSERT_TRUE(rows.count(key)) << key;
      const auto& row = rows.at(key);
      ++n;
      const auto& a = r["accuracy"];
      EXPECT_EQ(row.at("verdict").v, r["verdict"].get<std::string>()) << key;
      EXPECT_NE(row.at("verdict").text.find(r["verdict"].get<std::string>()), std::string::npos) << "verdict in text: " << key;
      expect_number(row.at("max frac ulp"), a["max_frac_ulp"], key + " max frac ulp");
      expect_number(row.at("max distance"), a["max_distance"], key + " max distance");
      expect_number(row.at("max normalized"), a["max_normalized"], key + " max normalized");
      saw_normalized |= !a["max_normalized"].is_null();
      expect_number(row.at("cases"), r["cases"], key + " cases");
      expect_number(row.at("elements"), r["elements"], key + " elements");
      expect_number(row.at("graded by oracle"), a["graded"], key + " graded");
      EXPECT_EQ(row.at("exhaustive").v, r["exhaustive"].get<bool>() ? "yes" : "no");
      for (const auto& m : k["contract"]["accuracy"])
        if (m["dtype"] == r["dtype"]) {
          if (m["kind"] == "condition-aware bound") EXPECT_EQ(row.at("bound (frac ulp)").text, "normalized &le; 1");
          else expect_number(row.at("bound (frac ulp)"), m["max_frac_ulp"], key + " bound");
        }
    }
  EXPECT_EQ(rows.size(), n);
  EXPECT_TRUE(saw_normalized) << "the test document should hold a condition-aware kernel";
  const auto& t = small_doc()["totals"];
  for (const char* f : {"kernel_dtypes", "pass", "fail", "elements"})
    EXPECT_NE(html.find(fmt::format("<b>{}</b>", t[f].get<std::int64_t>())), std::string::npos) << f;
  for (const char* f : {"commit", "compiler", "flags", "mpfr", "gmp", "glibc", "machine", "started_at"})
    EXPECT_NE(html.find(reports::escape_html(small_doc()["run"][f].get<std::string>())), std::string::npos) << f;
}

TEST(Site, HostileStringsAreEscapedEverywhere) {
  json doc = small_doc();
  const std::string evil = "<img src=x onerror=alert(1)>\"'&";
  auto& k = doc["kernels"][0];
  k["name"] = "../" + evil;
  k["family"] = evil;
  k["contract"]["summary"] = "</p><script>alert(2)</script>";
  k["contract"]["preconditions"][0]["text"] = evil;
  k["contract"]["future_field"] = {{"x", evil}};
  auto& r = k["results"][0];
  r["dtype"] = "f32\" onmouseover=\"alert(3)";
  r["worst"][0]["input_hex"] = evil;
  r["worst"][0]["repro"] = "kconform run </code><script>alert(4)</script>";
  r["failures"].push_back({{"check", evil}, {"message", "</pre><script>evil()</script>"}, {"repro", evil}});
  r["checks"][0]["name"] = evil;
  r["coverage"]["value_classes"][evil] = 1;
  r["accuracy"]["histogram"]["edges"][1] = evil;
  doc["run"]["machine"] = "<script>alert(5)</script>";
  TempDir dir("hostile");
  json base = small_doc();
  base["kernels"][0]["name"] = k["name"];  // so the diff page names the hostile kernel too
  reports::site::write_folder_atomically(dir.path / "site", reports::site::render_site(doc, &base, nullptr));
  std::size_t pages = 0;
  for (const auto& e : fs::directory_iterator(dir.path / "site")) {
    if (e.path().filename() == ".kconform") continue;  // the folder's marker (reports/output_folder.h)
    ++pages;
    const std::string html = slurp(e.path());
    std::size_t scripts = 0;
    for (std::size_t p = 0; (p = html.find("<script", p)) != std::string::npos; ++p) ++scripts;
    EXPECT_EQ(scripts, 2u) << e.path() << ": only the page's own two inline scripts";
    EXPECT_EQ(html.find("<img"), std::string::npos) << e.path();
    EXPECT_EQ(html.find("onmouseover=\""), std::string::npos) << e.path();
    EXPECT_EQ(html.find("</p><script"), std::string::npos) << e.path();
  }
  EXPECT_EQ(pages, small_doc()["kernels"].size() + 2);  // index, kernels, diff
  const std::string page = slurp(dir.path / "site" / reports::page_name(k["name"].get<std::string>()));
  EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"), std::string::npos);
  EXPECT_NE(page.find("&lt;/pre&gt;&lt;script&gt;evil()&lt;/script&gt;"), std::string::npos);
  // The page's file name stays inside the site.
  EXPECT_EQ(reports::page_name(k["name"].get<std::string>()).find('/'), std::string::npos);
}

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
  const json m = reports::site::merge_documents({a, b});
  ASSERT_EQ(m["kernels"].size(), 2u);
  EXPECT_EQ(m["runs"].size(), 2u);
  EXPECT_EQ(m["totals"]["kernel_dtypes"], 4);
  EXPECT_EQ(m["kernels"][1]["results"][0]["run_index"], 2);
  // Two dtypes of one kernel from two documents join one page.
  json f32 = a, f64 = a;
  f32["kernels"][0]["results"].erase(1);
  f64["kernels"][0]["results"].erase(0);
  EXPECT_EQ(reports::site::merge_documents({f32, f64})["kernels"][0]["results"].size(), 2u);
  try {
    reports::site::merge_documents({a, b, a});
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
  const json m = reports::site::merge_documents({s1, s2});
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

// A failing kernel merged across seeds: the findings' counts add, and the
// text says the sum; each failure is listed once.
TEST(Report, MergedFailuresAddTheirCountsAndAreListedOnce) {
  const json s1 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 1, "mutant:exp_f32_2ulp"));
  const json s2 = reports::results_json(testing_support::small_run({"exp"}, {DType::f32}, 2, "mutant:exp_f32_2ulp"));
  const json m = reports::site::merge_documents({s1, s2});
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
  for (const auto& e : r["failures"])
    if (!e["input_hex"].get<std::string>().empty())
      EXPECT_TRUE(seen.insert({e["check"].get<std::string>(), e["input_hex"].get<std::string>()}).second) << e["message"];
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

TEST(Report, UnreadableOrInvalidDocumentsAreUsageErrors) {
  TempDir dir("invalid");
  std::ofstream(dir.path / "broken.json") << "{ not json";
  write_json(dir.path / "other.json", json{{"schema", "something-else/1"}});
  json no_results = small_doc();
  no_results["kernels"][0].erase("results");
  write_json(dir.path / "partial.json", no_results);
  for (const char* f : {"missing.json", "broken.json", "other.json", "partial.json"})
    EXPECT_THROW(reports::site::load_document(dir.path / f), UsageError) << f;
  json wrong_type = small_doc();
  wrong_type["kernels"][0]["results"][0]["accuracy"]["histogram"]["counts"][0] = "many";
  write_json(dir.path / "wrong_type.json", wrong_type);
  cli::ReportOptions o;
  o.inputs = {(dir.path / "wrong_type.json").string()};
  o.out = (dir.path / "site").string();
  EXPECT_THROW(cli::report(o), UsageError);
  EXPECT_FALSE(fs::exists(dir.path / "site"));
}

TEST(Report, AFailureMidwayLeavesTheOldSiteIntact) {
  TempDir dir("atomic");
  const fs::path site = dir.path / "site";
  reports::write_site(small_doc(), site);
  const std::string before = slurp(site / "index.html");
  // Rendering fails on the last kernel: nothing may reach the disk.
  json bad = small_doc();
  bad["kernels"].back()["results"][0]["accuracy"]["histogram"]["counts"][0] = "many";
  EXPECT_ANY_THROW(reports::write_site(bad, site));
  EXPECT_EQ(slurp(site / "index.html"), before);
  // Writing fails after some files are written: the old site stays.
  reports::site::Files files = {{"index.html", "new"}, {"index.html/page.html", "x"}};  // a page under a file
  EXPECT_THROW(reports::site::write_folder_atomically(site, files), UsageError);
  EXPECT_EQ(slurp(site / "index.html"), before);
  for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_EQ(e.path().filename(), "site") << "left behind: " << e.path();
  // A good write replaces it whole.
  reports::site::write_folder_atomically(site, {{"index.html", "new"}});
  EXPECT_EQ(slurp(site / "index.html"), "new");
  EXPECT_FALSE(fs::exists(site / reports::page_name("exp")));
}

TEST(Report, UntrustworthyCaseSetsAreFlagged) {
  json doc = small_doc();
  auto& c = doc["kernels"][0]["results"][0]["coverage"];
  c["outputs_zero"] = c["outputs"].get<std::int64_t>();
  c["outputs_nan"] = 0;
  TempDir dir("trust");
  reports::write_site(doc, dir.path / "site");
  const std::string page = slurp(dir.path / "site" / reports::page_name("exp"));
  EXPECT_NE(page.find("Untrustworthy grade:</strong> 100.0% of outputs are zero or NaN"), std::string::npos);
  EXPECT_NE(slurp(dir.path / "site" / "index.html").find("untrustworthy"), std::string::npos);
  // The real runs are not flagged.
  EXPECT_EQ(slurp(dir.path / "site" / reports::page_name("relu")).find("Untrustworthy grade"), std::string::npos);
}

}  // namespace
}  // namespace kc
