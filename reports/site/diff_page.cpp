// What changed between a baseline run and a new one, so a nightly run shows
// regressions at a glance. The rule for "regressed" is kRegressionRule; it
// is printed on the page and in the README.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "reports/html.h"
#include "reports/site/html_util.h"
#include "reports/site/site.h"

namespace kc::reports::site {

namespace {

const char* kRegressionRule =
    "A kernel&times;dtype <strong>regressed</strong> when it passed in the baseline and now fails, is not graded or is "
    "missing; when its max fractional ulp error, max integer distance or max normalized error increased; or when its "
    "coverage dropped: elements checked fell by more than 10%, or an input value class or shape class that was hit "
    "(count &gt; 0) is no longer hit. <strong>Fixed</strong>: failed in the baseline, passes now.";

using Key = std::pair<std::string, std::string>;

std::map<Key, const json*> index_results(const json& doc) {
  std::map<Key, const json*> m;
  for (const auto& k : doc["kernels"])
    for (const auto& r : k["results"]) m[{k["name"].get<std::string>(), r["dtype"].get<std::string>()}] = &r;
  return m;
}

// NaN compares as worse than any number: an error that became NaN grew.
bool increased(std::optional<double> before, std::optional<double> after) {
  if (!after) return false;
  if (!before) return false;
  if (std::isnan(*after)) return !std::isnan(*before);
  if (std::isnan(*before)) return false;
  return *after > *before;
}

std::string fig(const json& v) { return v.is_null() ? "n/a" : v.is_number_float() ? fmt::format("{:.6g}", v.get<double>()) : v.dump(); }

void compare_classes(const json& before, const json& after, const char* what, std::vector<std::string>& out) {
  if (!before.is_object()) return;
  for (const auto& [cls, n] : before.items()) {
    const double was = as_double(n).value_or(0);
    const double now = after.is_object() && after.contains(cls) ? as_double(after[cls]).value_or(0) : 0;
    if (was > 0 && now == 0) out.push_back(fmt::format("{} class {} no longer hit (was {})", what, cls, fig(n)));
  }
}

// Every kernel x dtype side by side, so a move too small to be a regression
// (a coverage dip under 10%) is still visible.
std::string all_results(const json& old_in, const json& new_in) {
  const json old_doc = normalize(old_in), new_doc = normalize(new_in);
  const auto before = index_results(old_doc), after = index_results(new_doc);
  std::map<Key, std::pair<const json*, const json*>> both;
  for (const auto& [k, r] : before) both[k].first = r;
  for (const auto& [k, r] : after) both[k].second = r;
  auto pair_td = [](const json* a, const json* b, auto get) {
    const json x = a ? get(*a) : json(), y = b ? get(*b) : json();
    const bool moved = a && b && x != y;
    return fmt::format("<td class=\"num{}\" data-v=\"{}\">{} &rarr; {}</td>", moved ? " zero" : "", exact(y), a ? show(x) : "&ndash;",
                       b ? show(y) : "&ndash;");
  };
  std::string s = "<h2 id=\"all\">All results, baseline &rarr; new</h2><p class=\"small\">Underlined: the figure moved.</p>"
                  "<table class=\"sortable\"><thead><tr><th>kernel</th><th>dtype</th><th>verdict</th><th>max frac ulp</th>"
                  "<th>max distance</th><th>max normalized</th><th>elements</th></tr></thead><tbody>";
  for (const auto& [k, p] : both) {
    const auto [a, b] = p;
    s += fmt::format("<tr><td>{}</td><td>{}</td>", escape_html(k.first), escape_html(k.second));
    s += pair_td(a, b, [](const json& r) { return r["verdict"]; });
    for (const char* f : {"max_frac_ulp", "max_distance", "max_normalized"})
      s += pair_td(a, b, [f](const json& r) { return r["accuracy"][f]; });
    s += pair_td(a, b, [](const json& r) { return r["elements"]; }) + "</tr>";
  }
  return s + "</tbody></table>";
}

}  // namespace

Diff compare(const json& old_in, const json& new_in) {
  const json old_doc = normalize(old_in), new_doc = normalize(new_in);
  Diff d;
  const auto before = index_results(old_doc), after = index_results(new_doc);
  for (const auto& [key, o] : before) {
    const auto it = after.find(key);
    const std::string ov = (*o)["verdict"].get<std::string>();
    if (it == after.end()) {
      (ov == "pass" ? d.new_failures : d.removed).push_back({key.first, key.second, "missing from the new run (was " + ov + ")"});
      continue;
    }
    const json& n = *it->second;
    const std::string nv = n["verdict"].get<std::string>();
    if (ov == "pass" && nv != "pass") d.new_failures.push_back({key.first, key.second, "verdict pass -> " + nv});
    if (ov == "fail" && nv == "pass") d.fixed.push_back({key.first, key.second, "verdict fail -> pass"});
    for (const char* f : {"max_frac_ulp", "max_distance", "max_normalized"}) {
      const json& a = (*o)["accuracy"].value(f, json()), &b = n["accuracy"].value(f, json());
      const auto x = as_double(a), y = as_double(b);
      const std::string what = fmt::format("{} {} -> {}", f, fig(a), fig(b));
      if (increased(x, y)) d.error_up.push_back({key.first, key.second, what});
      else if (increased(y, x)) d.error_down.push_back({key.first, key.second, what});
    }
    std::vector<std::string> cov;
    const double e0 = as_double((*o)["elements"]).value_or(0), e1 = as_double(n["elements"]).value_or(0);
    if (e1 < 0.9 * e0) cov.push_back(fmt::format("elements checked {} -> {} ({:+.1f}%)", fig((*o)["elements"]), fig(n["elements"]),
                                                 100 * (e1 - e0) / e0));
    compare_classes((*o)["coverage"].value("value_classes", json()), n["coverage"].value("value_classes", json()), "value", cov);
    compare_classes((*o)["coverage"].value("shape_classes", json()), n["coverage"].value("shape_classes", json()), "shape", cov);
    for (auto& c : cov) d.coverage_dropped.push_back({key.first, key.second, std::move(c)});
  }
  for (const auto& [key, n] : after)
    if (!before.count(key)) d.added.push_back({key.first, key.second, "new in this run: " + (*n)["verdict"].get<std::string>()});
  return d;
}

std::string diff_page(const json& old_doc, const json& new_doc, const Diff& d) {
  const auto after = index_results(new_doc);
  auto link = [&](const Change& c) {
    const std::string txt = escape_html(c.kernel) + " " + escape_html(c.dtype);
    if (!after.count({c.kernel, c.dtype})) return txt;
    return fmt::format("<a href=\"{}#dtype-{}\">{}</a>", escape_html(page_name(c.kernel)), slug(c.dtype), txt);
  };
  auto section = [&](const char* id, const char* title, const std::vector<Change>& v, bool regression) {
    std::string s = fmt::format("<h2 id=\"{}\">{} ({}){}</h2>", id, title, v.size(),
                                regression && !v.empty() ? " <span class=\"badge v-fail\">&#10007; regression</span>" : "");
    if (v.empty()) return s + "<p class=\"muted\">none</p>";
    s += "<table class=\"sortable\"><thead><tr><th>kernel dtype</th><th>change</th></tr></thead><tbody>";
    for (const auto& c : v) s += fmt::format("<tr><td>{}</td><td>{}</td></tr>", link(c), escape_html(c.what));
    return s + "</tbody></table>";
  };
  std::string body = "<p><a href=\"index.html\">&larr; all kernels (new run)</a></p><h1>Changes against the baseline</h1>";
  const auto& o = old_doc["run"];
  const auto& n = new_doc["run"];
  body += fmt::format("<dl class=\"meta\"><dt>baseline</dt><dd>commit {}, started {}, seed {}, backend {}</dd>"
                      "<dt>new</dt><dd>commit {}, started {}, seed {}, backend {}</dd></dl>",
                      str(o, "commit"), str(o, "started_at"), str(o, "seed"), str(o, "backend"), str(n, "commit"),
                      str(n, "started_at"), str(n, "seed"), str(n, "backend"));
  body += d.regressed() ? "<p class=\"warn\" id=\"verdict\">&#10007; <strong>REGRESSED</strong>: see the sections marked regression.</p>"
                        : "<p id=\"verdict\"><span class=\"badge v-pass\">&#10003; no regression</span></p>";
  body += fmt::format("<p class=\"small\">{}</p>", kRegressionRule);
  body += section("new-failures", "New failures", d.new_failures, true);
  body += section("error-up", "Max error increased", d.error_up, true);
  body += section("coverage-dropped", "Coverage dropped", d.coverage_dropped, true);
  body += section("fixed", "Fixed", d.fixed, false);
  body += section("error-down", "Max error decreased", d.error_down, false);
  body += section("added", "New kernel&times;dtype results", d.added, false);
  body += section("removed", "No longer graded (did not pass before)", d.removed, false);
  body += all_results(old_doc, new_doc);
  return page("kconform: changes against the baseline", body);
}

}  // namespace kc::reports::site
