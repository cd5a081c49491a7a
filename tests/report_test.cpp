// Results JSON and HTML: structure, escaping of hostile strings, atomic
// writes, and figures equal to the JSON they came from.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/backend.h"
#include "engine/conformance.h"
#include "engine/findings.h"
#include "reports/html.h"
#include "reports/results_json.h"
#include "tests/test_support.h"

namespace kc {
namespace {

namespace fs = std::filesystem;

engine::RunResults small_run() { return testing_support::small_run({"exp", "relu"}, {DType::f32}); }

TEST(ResultsJson, HasTheDocumentedFields) {
  const auto doc = reports::results_json(small_run());
  EXPECT_EQ(doc["schema"], reports::kSchema);
  for (const char* f : {"seed", "backend", "commit", "compiler", "flags", "mpfr", "gmp", "glibc", "started_at", "machine"})
    EXPECT_TRUE(doc["run"].contains(f)) << f;
  ASSERT_EQ(doc["kernels"].size(), 2u);
  const auto& r = doc["kernels"][0]["results"][0];
  for (const char* f : {"dtype", "verdict", "exhaustive", "cases", "elements", "accuracy", "worst", "checks",
                        "failures", "coverage", "error_profile"})
    EXPECT_TRUE(r.contains(f)) << f;
  for (const char* f : {"max_frac_ulp", "mean_frac_ulp", "p99_frac_ulp", "max_distance", "histogram"})
    EXPECT_TRUE(r["accuracy"].contains(f)) << f;
  EXPECT_FALSE(r["worst"].empty());
  EXPECT_NE(r["worst"][0]["repro"].get<std::string>().find("kconform run"), std::string::npos);
  EXPECT_EQ(doc["kernels"][0]["contract"]["name"], "exp");
}

TEST(Html, EscapesHostileStrings) {
  EXPECT_EQ(reports::escape_html("<script>alert('x')&\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;");
  const std::string page = reports::page_name("../../etc/<b>");
  EXPECT_EQ(page.find('/'), std::string::npos);
  EXPECT_EQ(page.find('<'), std::string::npos);

  auto doc = reports::results_json(small_run());
  doc["kernels"][0]["name"] = "<img src=x onerror=alert(1)>";
  doc["kernels"][0]["results"][0]["failures"].push_back({{"message", "</pre><script>evil()</script>"}});
  const fs::path dir = fs::temp_directory_path() / "kc_report_test_site";
  reports::write_site(doc, dir);
  std::string all;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream f(e.path());
    std::stringstream ss;
    ss << f.rdbuf();
    all += ss.str();
  }
  // The pages carry their own inline script (sorting); the hostile one must not appear.
  EXPECT_EQ(all.find("<script>evil"), std::string::npos);
  EXPECT_NE(all.find("&lt;script&gt;evil()"), std::string::npos);
  EXPECT_EQ(all.find("<img src=x"), std::string::npos);
  EXPECT_NE(all.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Html, EveryKernelHasAPageAndTheIndexShowsTheJsonFigures) {
  const auto doc = reports::results_json(small_run());
  const fs::path dir = fs::temp_directory_path() / "kc_report_test_site2";
  reports::write_site(doc, dir);
  std::ifstream f(dir / "index.html");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string index = ss.str();
  for (const auto& k : doc["kernels"]) {
    EXPECT_TRUE(fs::exists(dir / reports::page_name(k["name"].get<std::string>())));
    EXPECT_NE(index.find(std::to_string(k["results"][0]["elements"].get<std::int64_t>())), std::string::npos);
  }
  reports::write_site(doc, dir);  // replacing a good site leaves a good site
  EXPECT_TRUE(fs::exists(dir / "index.html"));
  EXPECT_FALSE(fs::exists(dir.string() + ".tmp-site"));
  fs::remove_all(dir);
}

// A figure beside its bound never reads as the bound when it is not: the
// terminal's "claim: fractional ulp error 1 > 1" for 1.0000003 was a lie.
TEST(FigureText, ANonIntegerNeverReadsAsAnInteger) {
  EXPECT_EQ(engine::figure_text(2.0), "2");
  EXPECT_EQ(engine::figure_text(0.5008293), "0.5008");
  EXPECT_EQ(engine::figure_text(1.0000003), "1.0000003");
  EXPECT_EQ(engine::figure_text(0.99999994), "0.9999999");
  EXPECT_EQ(engine::figure_text(INFINITY), "inf");
}

}  // namespace
}  // namespace kc
