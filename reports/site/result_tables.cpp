// The tables of one result on a kernel page: worst cases and failures
// (each element with its replay command), the checks with their profile
// and counts, and what the backend declared beside the contract.
#include "reports/site/result_tables.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "reports/html.h"
#include "reports/json_number.h"
#include "reports/site/html_util.h"
#include "reports/site/svg_plots.h"

namespace kc::reports::site {

namespace {

std::string value_with_hex(const json& e, const char* v, const char* hex) {
  std::string s = e.contains(v) ? show(e[v]) : "";
  const std::string h = str(e, hex);
  if (!h.empty()) s += " <code>" + h + "</code>";
  return s;
}

std::string where_of(const json& e) {
  std::string s = fmt::format("case {}", show(e.value("case", json())));
  if (e.is_object() && e.contains("element") && integer_or(e["element"], -1) >= 0) s += fmt::format(", element {}", show(e["element"]));
  if (!str(e, "shape").empty()) s += ", shape " + str(e, "shape");
  if (!str(e, "params").empty()) s += ", params " + str(e, "params");
  return s;
}

}  // namespace

std::string elements_table(const json& list, bool normalized) {
  std::string s = "<table><thead><tr><th>#</th><th>input (decimal, hex bits)</th><th>result</th><th>exact value</th>"
                  "<th>correctly rounded</th><th>frac ulp</th><th>distance</th>";
  if (normalized) s += "<th>normalized</th>";
  s += "<th>bound</th><th>where</th></tr></thead><tbody>";
  int i = 0;
  const int cols = normalized ? 10 : 9;
  for (const auto& e : list) {
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td>{}{}", ++i,
                     value_with_hex(e, "input", "input_hex"), value_with_hex(e, "result", "result_hex"), str(e, "exact"),
                     value_with_hex(e, "correctly_rounded", "correctly_rounded_hex"), num_td(e.value("frac_ulp", json())),
                     num_td(e.value("distance", json())));
    if (normalized) s += num_td(e.value("normalized", json()));
    s += fmt::format("{}<td>{}</td></tr><tr><td></td><td colspan=\"{}\">reproduce: <code>{}</code></td></tr>",
                     num_td(e.value("bound", json())), where_of(e), cols - 1, str(e, "repro"));
  }
  return s + "</tbody></table>";
}

namespace {
int kind_rank(const std::string& k) {
  static const char* order[] = {"accuracy", "special", "property", "bad-input", "output", "layout", "determinism", "bias", "run"};
  for (int i = 0; i < 9; ++i)
    if (k == order[i]) return i;
  return 9;
}

}  // namespace

std::string checks_table(const json& checks) {
  std::vector<const json*> v;
  for (const auto& c : checks) v.push_back(&c);
  std::stable_sort(v.begin(), v.end(), [](const json* a, const json* b) {
    return kind_rank(a->value("kind", "")) < kind_rank(b->value("kind", ""));
  });
  std::string s = "<table class=\"sortable\"><thead><tr><th>kind</th><th>check</th><th>profile</th><th>passed</th>"
                  "<th>failed</th><th>differs</th><th>result</th><th>detail</th></tr></thead><tbody>";
  for (const json* c : v) {
    const bool failed = as_double((*c)["failed"]).value_or(0) > 0;
    const bool judged = failed || as_double((*c)["passed"]).value_or(0) > 0;
    const bool not_graded = !judged && as_double((*c)["not_graded"]).value_or(0) > 0;
    s += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td>{}{}{}<td>{}</td><td>{}</td></tr>",
                     failed ? "v-fail" : "", str(*c, "kind"), str(*c, "name"), str(*c, "profile"), num_td((*c)["passed"]),
                     num_td((*c)["failed"]), num_td((*c)["differs"]),
                     verdict_badge(failed ? "fail" : not_graded ? "not_graded" : "pass"), str(*c, "detail"));
  }
  return s + "</tbody></table>";
}

// What the backend declared, beside the contract and the measurement.
std::string declared_section(const json& r, const json& model) {
  if (!r.contains("declared") || !r["declared"].is_object()) return "";
  const json& d = r["declared"];
  const std::string metric = str(d, "claim_metric"), reason = str(d, "expected_failure");
  std::string s = "<h3>Declared by the backend</h3>";
  s += "<table><thead><tr><th>metric</th><th>backend's claim</th><th>contract's bound</th><th>measured</th>"
       "<th>verdict</th></tr></thead><tbody>";
  if (metric.empty())
    s += fmt::format("<tr><td colspan=\"4\">no claim (the contract's model: {})</td><td>unclaimed</td></tr>",
                     model.empty() ? std::string("none") : str(model, "kind"));
  else
    s += fmt::format("<tr><td>{}</td>{}{}{}<td class=\"claim-{}\">{}</td></tr>", escape_html(metric), num_td(d["claimed"]),
                     d["contract_bound"].is_null() ? std::string("<td>not in these terms</td>") : num_td(d["contract_bound"]),
                     num_td(d["measured"]), slug(str(d, "claim_verdict")), str(d, "claim_verdict"));
  s += "</tbody></table>";
  if (!reason.empty())
    s += fmt::format("<p>Expected to fail: {}. <strong>{}</strong>.</p>", reason, str(d, "expected_outcome"));  // (str escapes)
  return s;
}

std::string failures_section(const json& failures, std::string_view title) {
  std::string s = fmt::format("<h3>{} ({} kept)</h3>", title, failures.size());
  if (failures.empty()) return s + "<p>None.</p>";
  s += "<p class=\"small\">Up to 5 distinct failures per check are kept (the checks table has the counts). A check "
       "named <code>shrunk: ...</code> is the first failing case after shrinking.</p>";
  // The shrunk case first: the smallest counterexample is the one to read.
  std::vector<const json*> order;
  for (const auto& f : failures) order.push_back(&f);
  std::stable_partition(order.begin(), order.end(),
                        [](const json* f) { return f->is_object() && f->value("check", "").rfind("shrunk: ", 0) == 0; });
  for (const json* fp : order) {
    const json& f = *fp;
    const std::string check = str(f, "check");
    const std::string shrunk = f.contains("shrunk_elements") && f["shrunk_elements"].is_number()
                                   ? fmt::format(" <span class=\"badge\">shrunk to {} input element{}</span>", show(f["shrunk_elements"]),
                                                 f["shrunk_elements"] == 1 ? "" : "s")
                               : check.rfind("shrunk: ", 0) == 0 ? " <span class=\"badge\">shrunk</span>"
                                                                  : "";
    s += fmt::format("<div><p><strong>{}</strong>{} &mdash; {}</p><pre>{}</pre><p>reproduce: <code>{}</code></p></div>", check,
                     shrunk, where_of(f), str(f, "message"), str(f, "repro"));
  }
  return s;
}

// The shapes a result graded (results' `shapes`): the profile, the shaped
// cases, the largest case, the sampled outputs with what their draws
// guarantee, and the problem lines whose case failed.
std::string shapes_section(const json& r) {
  if (!r.contains("shapes") || !r["shapes"].is_object()) return "";
  const json& sh = r["shapes"];
  std::string s = fmt::format("<h3>Shapes</h3><p class=\"shapes\">Profile <strong>{}</strong>: {} tail and {} problem-line "
                              "cases; the largest case {} ({} bytes).",
                              escape_html(str(sh, "profile")), integer_or(sh.value("tail_cases", json(0)), 0),
                              integer_or(sh.value("problem_cases", json(0)), 0), escape_html(str(sh, "largest")),
                              integer_or(sh.value("peak_bytes", json(0)), 0));
  if (sh.contains("sample") && sh["sample"].is_object()) {
    const json& m = sh["sample"];
    s += fmt::format(" {} sampled outputs: {} of their {} elements graded exactly ({} edges, {} boundaries, {} random); "
                     "{} uniform draws an output miss a defect of 1% of its elements with probability {}.",
                     integer_or(sh.value("sampled_cases", json(0)), 0), integer_or(m.value("graded_exactly", json(0)), 0),
                     integer_or(m.value("elements_of_sampled_outputs", json(0)), 0), integer_or(m.value("edges", json(0)), 0),
                     integer_or(m.value("boundaries", json(0)), 0), integer_or(m.value("random", json(0)), 0),
                     integer_or(m.value("random_draws_per_output", json(0)), 0),
                     escape_html(short_num(as_double(m.value("miss_probability_f_1e-2", json(1))).value_or(1))));
  }
  s += "</p>";
  if (sh.contains("failed_problems") && sh["failed_problems"].is_array() && !sh["failed_problems"].empty()) {
    s += "<p>Failing problem lines and tails:</p><ul class=\"failed-problems\">";
    for (const auto& p : sh["failed_problems"]) s += "<li>" + escape_html(p.is_string() ? p.get<std::string>() : p.dump()) + "</li>";
    s += "</ul>";
  }
  return s;
}

}  // namespace kc::reports::site
