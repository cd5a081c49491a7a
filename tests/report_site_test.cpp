// The static site as a reader relies on it: a page per kernel, index figures
// equal to the JSON, hostile strings inert, unreadable documents refused,
// and atomic replacement of a good site (diff and merging:
// report_merge_test.cpp).
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
#include "reports/site/site.h"
#include "reports/site/html_util.h"
#include "reports/site/svg_plots.h"

namespace kc {
namespace {

using namespace report_testing;  // NOLINT: small_doc, slurp, TempDir, write_json
namespace fs = std::filesystem;
using nlohmann::json;

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
