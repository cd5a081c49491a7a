// The index: every kernel x dtype of the document with its verdict and
// headline figures, sortable and filterable in the browser, plus totals and
// the metadata of the run(s) the figures come from.
#include <fmt/format.h>

#include "reports/html.h"
#include "reports/site/html_util.h"
#include "reports/site/site.h"

namespace kc::reports::site {

namespace {

std::string run_metadata(const json& run) {
  static const std::pair<const char*, const char*> fields[] = {
      {"commit", "project commit"}, {"kconform", "kconform version"}, {"backend", "backend"},
      {"profile", "contract profile"},  {"accuracy_tier", "accuracy tier"}, {"accuracy_tier_source", "its bounds' source"},
      {"plugin", "plug-in"},            {"environment", "recorded environment"},
      {"compiler", "compiler"},     {"flags", "flags"},               {"mpfr", "MPFR"},
      {"gmp", "GMP"},               {"glibc", "glibc"},               {"boost", "Boost"},
      {"seed", "seed"},             {"cases_per_kernel", "random cases per kernel x dtype"},
      {"started_at", "started"},    {"duration_s", "duration (s)"},   {"machine", "machine"},
      {"command", "command"},       {"interrupted_by", "interrupted by"}, {"planned", "kernel x dtype planned"}};
  std::string s = "<dl class=\"meta\">";
  for (const auto& [key, label] : fields)
    if (run.contains(key)) s += fmt::format("<dt>{}</dt><dd>{}</dd>", label, run[key].is_object() ? fields_table(run[key]) : show(run[key]));
  return s + "</dl>";
}

// A conformance run's pass that differs from the reference says so beside its verdict.
std::string differs_badge(const json& r) {
  const auto n = r.contains("differs_from_reference") ? as_double(r["differs_from_reference"]) : std::nullopt;
  std::string s;
  if (n && *n > 0)
    s += fmt::format(" <span class=\"badge differs\" title=\"outcomes where the kernel differs from the reference "
                     "without failing the portable contract\">differs from the reference: {}</span>",
                     show(r["differs_from_reference"]));
  // What the backend declared: its claim's verdict, an expected failure's outcome.
  if (r.contains("declared") && r["declared"].is_object()) {
    const json& d = r["declared"];
    const std::string claim = str(d, "claim_verdict"), outcome = str(d, "expected_outcome");
    if (claim == "confirmed" || claim == "refuted")
      s += fmt::format(" <span class=\"badge claim-{0}\">claim {0}</span>", claim);
    if (!outcome.empty()) s += fmt::format(" <span class=\"badge expected\">{}</span>", outcome);
  }
  return s;
}

// What decides the row, beside its verdict: a failure's first finding (its
// figure and bound also as data, so a test can hold the two together), or
// a pass's deciding figure.
std::string headline_cell(const json& r) {
  const json& f = r.contains("findings") && r["findings"].is_array() ? r["findings"] : json::array();
  if (r.value("verdict", "") == "fail" && !f.empty() && f[0].is_object())
    return fmt::format("<td class=\"headline\" data-metric=\"{}\" data-figure=\"{}\" data-bound=\"{}\">{}{}</td>",
                       str(f[0], "metric"), exact(f[0].value("figure", json())), exact(f[0].value("bound", json())),
                       str(f[0], "text"), f.size() > 1 ? fmt::format(" <span class=\"muted\">(+{} more)</span>", f.size() - 1) : "");
  return fmt::format("<td class=\"headline\">{}</td>", str(r, "headline"));
}

bool any_normalized(const json& doc) {
  for (const auto& k : doc["kernels"])
    for (const auto& r : k["results"])
      if (!r["accuracy"]["max_normalized"].is_null()) return true;
  return false;
}

// A result's shape classes: its tails and problem lines, and the largest
// case graded ("" for a tiny run's: the column is left out).
std::string shapes_text(const json& r) {
  const json& s = field(r, "shapes");
  const std::int64_t tails = integer_or(field(s, "tail_cases"), 0), lines = integer_or(field(s, "problem_cases"), 0);
  if (tails + lines == 0) return "tiny";
  std::string t = "tiny";
  if (tails > 0) t += fmt::format(", {} tails", tails);
  if (lines > 0) t += fmt::format(", {} problem lines", lines);
  return t + fmt::format("; largest {}", str(s, "largest"));
}
bool any_shaped(const json& doc) {
  for (const auto& k : doc["kernels"])
    for (const auto& r : k["results"])
      if (shapes_text(r) != "tiny") return true;
  return false;
}

}  // namespace

std::string index_page(const json& doc, bool has_diff) {
  const bool norm = any_normalized(doc), shaped = any_shaped(doc);
  std::string rows;
  for (const auto& k : doc["kernels"]) {
    const std::string name = k["name"].get<std::string>();
    for (const auto& r : k["results"]) {
      const auto& a = r["accuracy"];
      const std::string v = r["verdict"].get<std::string>();
      const std::string dt = r["dtype"].get<std::string>();
      const auto& model = contract_accuracy(k, dt);
      const std::string why = untrustworthy_reason(r);
      rows += fmt::format(
          "<tr class=\"v-{0}\" data-verdict=\"{0}\" data-kernel=\"{1}\" data-dtype=\"{2}\">"
          "<td><a href=\"{3}#dtype-{4}\">{1}</a></td><td>{5}</td><td>{2}</td><td data-v=\"{0}\">{6}</td>{7}<td>{8}</td>",
          slug(v), escape_html(name), escape_html(dt), escape_html(page_name(name)), slug(dt), str(k, "family"),
          verdict_badge(v) + differs_badge(r), headline_cell(r), model.empty() ? "n/a" : str(model, "kind"));
      rows += num_td(a["max_frac_ulp"]);
      // A condition-aware model's max_frac_ulp is its coefficient A, not a bound on the column beside it.
      rows += model.value("kind", "") == "condition-aware bound" ? "<td data-v=\"\">normalized &le; 1</td>"
                                                                 : num_td(model.empty() ? json() : model.value("max_frac_ulp", json()));
      rows += num_td(a["max_distance"]);
      if (norm) rows += num_td(a["max_normalized"]);
      rows += num_td(r["cases"]) + num_td(r["elements"]) + num_td(a["graded"]);
      if (shaped) rows += fmt::format("<td>{}</td>", escape_html(shapes_text(r)));
      rows += fmt::format("<td data-v=\"{0}\">{0}</td><td>{1}</td></tr>\n", r["exhaustive"].get<bool>() ? "yes" : "no",
                          why.empty() ? "" : "<span class=\"badge\">&#9888; untrustworthy</span> " + escape_html(why));
    }
  }
  const auto& t = doc["totals"];
  std::string body = "<h1>kconform conformance results</h1>\n";
  body += fmt::format(
      "<div class=\"totals\"><div><b>{}</b>kernel&times;dtype</div><div><b>{}</b>{}</div><div><b>{}</b>{}</div>"
      "<div><b>{}</b>{}</div><div><b>{}</b>elements checked</div></div>\n",
      show(t["kernel_dtypes"]), show(t["pass"]), verdict_badge("pass"), show(t["fail"]), verdict_badge("fail"),
      show(t["not_graded"]), verdict_badge("not_graded"), show(t["elements"]));
  const auto& run = doc["run"];
  if (run.is_object() && run.contains("interrupted_by") && run["interrupted_by"].is_string() &&
      !run["interrupted_by"].get<std::string>().empty())
    body += fmt::format("<p class=\"warn\"><b>Partial run</b>: interrupted by {} after {} of {} kernel&times;dtype "
                        "results had started; the last of them stopped at a case boundary and is not graded.</p>\n",
                        show(run["interrupted_by"]), show(t["kernel_dtypes"]), show(run.value("planned", json())));
  if (has_diff) body += "<p><a href=\"diff.html\">Changes against the baseline run &rarr;</a></p>\n";
  body +=
      "<p class=\"small\">Figures are rounded to 6 significant digits; hover a number for the exact value of "
      "<code>results.json</code>. <em>max frac ulp</em> is the largest fractional ulp error "
      "|y&minus;z|/ulp(z); <em>max distance</em> the largest integer ulp distance to the correctly rounded value";
  if (norm) body += "; <em>max normalized</em> the condition-aware error |y&minus;z|/(A ulp(z) + K u S), passing at &le; 1";
  body += ". Definitions: <code>docs/accuracy-bounds.md</code> and the README. " + std::string(kTrustRule) + "</p>\n";
  body +=
      "<div id=\"controls\" hidden><label>Filter <input id=\"filter\" type=\"search\" placeholder=\"kernel, dtype, "
      "family...\"></label><label>Verdict <select id=\"verdict\"><option value=\"\">all</option><option "
      "value=\"pass\">pass</option><option value=\"fail\">fail</option><option value=\"not_graded\">not "
      "graded</option></select></label> <span id=\"shown\" class=\"muted\"></span> <span class=\"muted small\">Click a "
      "column heading to sort.</span></div>\n";
  body += "<table id=\"results\" class=\"sortable\"><thead><tr><th>kernel</th><th>family</th><th>dtype</th><th>verdict</th>"
          "<th>why</th><th>accuracy model</th><th>max frac ulp</th><th>bound (frac ulp)</th><th>max distance</th>";
  if (norm) body += "<th>max normalized</th>";
  body += "<th>cases</th><th>elements</th><th>graded by oracle</th>";
  if (shaped) body += "<th title=\"the shape classes graded (tails, problem lines) and the largest case\">shapes</th>";
  body += "<th>exhaustive</th><th>trust</th></tr></thead><tbody>\n" +
          rows + "</tbody></table>\n";
  if (doc.contains("runs") && doc["runs"].size() > 1) {
    body += fmt::format("<h2>Runs ({} documents merged)</h2>", doc["runs"].size());
    for (std::size_t i = 0; i < doc["runs"].size(); ++i)
      body += fmt::format("<h3 id=\"run-{}\">Run {}</h3>{}", i + 1, i + 1, run_metadata(doc["runs"][i]));
  } else {
    body += "<h2>Run</h2>" + run_metadata(doc["run"]);
  }
  return page("kconform conformance results", body);
}

}  // namespace kc::reports::site
