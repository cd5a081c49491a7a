// What changed between a baseline run and a new one, so a nightly run shows
// regressions at a glance. The rule for "regressed" is kRegressionRule; it
// is printed on the page and in the README.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "reports/html.h"
#include "reports/json_number.h"
#include "reports/site/html_util.h"
#include "reports/site/site.h"

namespace kc::reports::site {

namespace {

const char* kRegressionRule =
    "Like is compared with like. When a kernel&times;dtype graded <strong>the same inputs</strong> in both runs "
    "(equal inputs digests: same seed, same cases), any change is real: it <strong>regressed</strong> when it "
    "stopped passing, when a check that passed now fails, when its max fractional ulp error, max integer distance "
    "or max normalized error grew at all, or when its coverage dropped (elements checked, or a value, shape or "
    "result class count). On <strong>other inputs</strong> (another seed) figures move from run to run: it "
    "regressed only when it stopped passing or a check crossed its bound (passed in the baseline, fails now); "
    "other moves are <strong>drift</strong>, shown apart. Results of the baseline <strong>missing</strong> from "
    "the new run are listed apart and are not regressions. <strong>Fixed</strong>: failed in the baseline, passes "
    "now.";

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

// Class counts that fell (every one on the same inputs, else those no longer hit).
void compare_classes(const json& before, const json& after, const char* what, bool same, std::vector<std::string>& out) {
  if (!before.is_object()) return;
  for (const auto& [cls, n] : before.items()) {
    const double was = as_double(n).value_or(0);
    const double now = after.is_object() && after.contains(cls) ? as_double(after[cls]).value_or(0) : 0;
    if (same ? now < was : (was > 0 && now == 0))
      out.push_back(fmt::format("{} class {} {} (was {})", what, cls, now == 0 ? "no longer hit" : "count " + fig(after[cls]), fig(n)));
  }
}

std::string check_name(const json& c) { return c.contains("name") && c["name"].is_string() ? c["name"].get<std::string>() : ""; }

// Checks that passed in the baseline and fail now: a bound crossed.
std::vector<std::string> crossed_checks(const json& before, const json& after) {
  std::map<std::string, std::int64_t> was;
  for (const auto& c : before["checks"]) was[check_name(c)] = integer_or(c.value("failed", json()), 0);
  std::vector<std::string> out;
  for (const auto& c : after["checks"]) {
    const auto it = was.find(check_name(c));
    if (it == was.end() || it->second > 0 || integer_or(c.value("failed", json()), 0) == 0) continue;
    std::string what = fmt::format("check '{}' passed, now fails", check_name(c));
    for (const auto& f : after["findings"])
      if (f.value("check", std::string()) == check_name(c)) what += ": " + f.value("text", std::string());
    out.push_back(what);
  }
  return out;
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
      d.missing.push_back({key.first, key.second, "not in the new run (was " + ov + ")"});
      continue;
    }
    const json& n = *it->second;
    const json &da = (*o).value("inputs_digest", json()), &db = n.value("inputs_digest", json());
    const bool same = da.is_string() && da == db;
    const std::string kernel = key.first, dtype = key.second;  // (a lambda may not capture a structured binding in C++20)
    auto add = [&](std::vector<Change>& v, std::string what) { v.push_back({kernel, dtype, std::move(what), same}); };
    const std::string nv = n["verdict"].get<std::string>();
    std::vector<std::string> worse, better, moved;
    if (ov == "pass" && nv != "pass") worse.push_back("verdict pass -> " + nv + ": " + n.value("headline", std::string()));
    if (ov == "fail" && nv == "pass") add(d.fixed, "verdict fail -> pass");
    for (auto& w : crossed_checks(*o, n)) worse.push_back(std::move(w));
    for (const char* f : {"max_frac_ulp", "max_distance", "max_normalized"}) {
      const json& a = (*o)["accuracy"].value(f, json()), &b = n["accuracy"].value(f, json());
      const auto x = as_double(a), y = as_double(b);
      const std::string what = fmt::format("{} {} -> {}", f, fig(a), fig(b));
      if (increased(x, y)) (same ? worse : moved).push_back(what);
      else if (increased(y, x)) (same ? better : moved).push_back(what);
    }
    std::vector<std::string> cov;
    const double e0 = as_double((*o)["elements"]).value_or(0), e1 = as_double(n["elements"]).value_or(0);
    if (same ? e1 < e0 : e1 < 0.9 * e0)
      cov.push_back(fmt::format("elements checked {} -> {} ({:+.1f}%)", fig((*o)["elements"]), fig(n["elements"]),
                                e0 > 0 ? 100 * (e1 - e0) / e0 : 0.0));
    for (const auto& [cls, word] : {std::pair{"value_classes", "value"}, {"shape_classes", "shape"}, {"result_classes", "result"}})
      compare_classes((*o)["coverage"].value(cls, json()), n["coverage"].value(cls, json()), word, same, cov);
    for (auto& c : cov) (same ? worse : moved).push_back("coverage: " + c);
    for (auto& w : worse) add(d.regressions, std::move(w));
    for (auto& b : better) add(d.improved, std::move(b));
    for (auto& m : moved) add(d.drift, std::move(m));
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
    s += "<table class=\"sortable\"><thead><tr><th>kernel dtype</th><th>change</th><th>inputs</th></tr></thead><tbody>";
    for (const auto& c : v)
      s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", link(c), escape_html(c.what),
                       c.same_inputs ? "same" : "other");
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
  body += section("regressions", "Regressions", d.regressions, true);
  body += section("fixed", "Fixed", d.fixed, false);
  body += section("improved", "Improved on the same inputs", d.improved, false);
  body += section("drift", "Drift: figures that moved on other inputs, within their bounds", d.drift, false);
  body += section("missing", "Missing from the new run (not regressions)", d.missing, false);
  body += section("added", "New kernel&times;dtype results", d.added, false);
  body += all_results(old_doc, new_doc);
  return page("kconform: changes against the baseline", body);
}

}  // namespace kc::reports::site
