// One page per kernel: its contract as the checks saw it, then per dtype the
// statistics, figures, worst cases, coverage, checks and failures. Sections
// appear when the document has data for them, never by kernel family.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "reports/html.h"
#include "reports/json_number.h"
#include "reports/site/html_util.h"
#include "reports/site/result_tables.h"
#include "reports/site/site.h"
#include "reports/site/svg_plots.h"

namespace kc::reports::site {

namespace {

std::string label(std::string key) {
  std::replace(key.begin(), key.end(), '_', ' ');
  return escape_html(key);
}

// A list of objects as a table whose columns are the union of their keys,
// so a field a later family adds to an operand or a rule shows up unasked.
std::string object_table(const json& list) {
  if (!list.is_array() || list.empty()) return "<p class=\"muted\">none</p>";
  // Identifying columns first; JSON objects come back with sorted keys.
  std::vector<std::string> cols = {"name", "dtype", "operand", "rule", "input", "output", "kind", "dtypes", "min_rank", "max_rank",
                                   "max_frac_ulp", "max_distance"};
  std::vector<std::string> extra;
  for (const auto& o : list)
    if (o.is_object())
      for (const auto& [k, v] : o.items())
        if (std::find(cols.begin(), cols.end(), k) == cols.end() && std::find(extra.begin(), extra.end(), k) == extra.end())
          extra.push_back(k);
  std::erase_if(cols, [&](const std::string& c) {
    return std::none_of(list.begin(), list.end(), [&](const json& o) { return o.is_object() && o.contains(c); });
  });
  cols.insert(cols.end(), extra.begin(), extra.end());
  std::string s = "<table><thead><tr>";
  for (const auto& c : cols) s += "<th>" + label(c) + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& o : list) {
    s += "<tr>";
    for (const auto& c : cols) s += "<td>" + (o.is_object() && o.contains(c) ? show(o[c]) : std::string()) + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

std::string contract_section(const json& c) {
  if (!c.is_object()) return "<h2 id=\"contract\">Contract</h2><p class=\"warn\">The document carries no contract for this kernel.</p>";
  std::string s = "<h2 id=\"contract\">Contract</h2><p class=\"small muted\">Rendered from the contract data the checks ran on "
                  "(<code>kconform list --json</code> prints the same object).</p>";
  s += "<dl class=\"meta\">";
  for (const char* k : {"summary", "family", "driver", "source", "oracle", "output", "layout", "zero_sign_checked", "backend_dtypes", "notes"})
    if (c.contains(k)) s += fmt::format("<dt>{}</dt><dd>{}</dd>", label(k), show(c[k]));
  s += "</dl>";
  s += "<h3>Operands</h3>" + object_table(c.value("inputs", json::array()));
  if (c.contains("params") && !c["params"].empty()) s += "<h3>Parameters</h3>" + object_table(c["params"]);
  s += "<h3>Preconditions (each broken on purpose by the bad-input checks)</h3>" + object_table(c.value("preconditions", json::array()));
  s += "<h3>Accuracy model per dtype</h3>" + object_table(c.value("accuracy", json::array()));
  s += "<h3>Special-value rules</h3>" + object_table(c.value("specials", json::array()));
  s += "<h3>Properties</h3>" + object_table(c.value("properties", json::array()));
  if (c.contains("generator") && c["generator"].is_object()) {
    const auto& g = c["generator"];
    s += "<h3>Input generator</h3><dl class=\"meta\">";
    for (const auto& [k, v] : g.items())
      if (k != "thresholds") s += fmt::format("<dt>{}</dt><dd>{}</dd>", label(k), show(v));
    s += "</dl>";
    if (g.contains("thresholds") && g["thresholds"].is_object() && !g["thresholds"].empty()) {
      s += "<table><thead><tr><th>dtype</th><th>thresholds probed at &plusmn;3 ulps</th></tr></thead><tbody>";
      for (const auto& [dt, pts] : g["thresholds"].items()) {
        std::string list;
        for (const auto& p : pts) list += (list.empty() ? "" : ", ") + show(p);
        s += fmt::format("<tr><td>{}</td><td>{}</td></tr>", escape_html(dt), list);
      }
      s += "</tbody></table>";
    }
  }
  static const std::set<std::string> shown = {"name", "summary", "family", "source", "oracle", "output", "layout",
                                              "zero_sign_checked", "backend_dtypes", "notes", "inputs", "params", "driver",
                                              "preconditions", "accuracy", "specials", "properties", "generator"};
  std::string other;
  for (const auto& [k, v] : c.items())
    if (!shown.count(k)) other += fmt::format("<dt>{}</dt><dd><code>{}</code></dd>", label(k), escape_html(v.dump()));
  if (!other.empty()) s += "<h3>Other contract fields</h3><dl class=\"meta\">" + other + "</dl>";
  return s;
}

std::string stats_table(const json& r, const json& model) {
  const auto& a = r["accuracy"];
  std::string s = "<table><thead><tr><th>figure</th><th>value</th><th>contract</th></tr></thead><tbody>";
  auto row = [&](const std::string& name, const json& v, const std::string& bound = "") {
    s += fmt::format("<tr><td>{}</td>{}<td>{}</td></tr>", name, num_td(v), bound);
  };
  row("cases", r["cases"]);
  row("elements checked", r["elements"]);
  s += fmt::format("<tr><td>exhaustive</td><td>{}</td><td></td></tr>",
                   r.value("exhaustive", false) ? "yes: every bit pattern of the dtype" : "no: random cases");
  row("graded against the oracle", a["graded"]);
  row("decided by a special-value rule", a["special"]);
  if (integer_or(a["replayed"], 0) != 0) row("graded against the replayed reference loop", a["replayed"]);
  row("oracle escalations (higher precision)", a["oracle_escalations"]);
  const std::string fb = model.is_object() && model.contains("max_frac_ulp") ? "&le; " + show(model["max_frac_ulp"]) : "";
  // A negative max_distance is the contract's "no distance bound".
  const std::string db = model.is_object() && model.contains("max_distance")
                             ? (as_double(model["max_distance"]).value_or(-1) < 0 ? "no distance bound" : "&le; " + show(model["max_distance"]))
                             : "";
  row("max fractional ulp error", a["max_frac_ulp"], model.value("kind", "") == "condition-aware bound" ? "" : fb);
  row("mean fractional ulp error", a["mean_frac_ulp"]);
  row("p99 fractional ulp error", a["p99_frac_ulp"]);
  row("max integer ulp distance", a["max_distance"], model.value("kind", "") == "condition-aware bound" ? "" : db);
  const auto share = as_double(a["correctly_rounded_share"]);
  s += fmt::format("<tr><td>share correctly rounded (distance 0)</td>{}<td>{}</td></tr>", num_td(a["correctly_rounded_share"]),
                   share ? fmt::format("{:.4f}%", 100 * *share) : "");
  if (a.contains("not_correctly_rounded")) row("not correctly rounded (distance >= 1)", a["not_correctly_rounded"]);
  row("max absolute error |y - z|", a["max_absolute"]);
  row("max relative error |y - z| / |z|", a["max_relative"]);
  // The element at each maximum, as an FKC audit cites it.
  for (const auto& [k, what] : {std::pair{"at_max_distance", "input at the max distance"}, std::pair{"at_max_relative", "input at the max relative error"}})
    if (a[k].is_object())
      s += fmt::format("<tr><td>{}</td><td colspan=\"2\"><code>{}</code> ({}) &mdash; <code>{}</code></td></tr>", what,
                       show(a[k].value("input_hex", json())), show(a[k].value("input", json())), show(a[k].value("repro", json())));
  if (!a["max_normalized"].is_null()) {
    std::string cb = "&le; 1";
    if (model.is_object() && model.contains("magnitude_coeff"))
      cb += fmt::format(", normalized by A ulp(z) + K u S with A = {}, K = {}{}", show(model.value("max_frac_ulp", json())),
                        show(model["magnitude_coeff"]), model.contains("work_dtype") ? ", work dtype " + show(model["work_dtype"]) : "");
    row("max normalized error", a["max_normalized"], cb);
    row("mean normalized error", a["mean_normalized"]);
  }
  if (!a["bias_mean"].is_null()) {
    row("bias: mean signed ulp error", a["bias_mean"], "consistent with 0");
    row("bias: standard error", a["bias_stderr"]);
  }
  static const std::set<std::string> known = {"graded", "special", "replayed", "oracle_escalations", "max_frac_ulp",
                                              "mean_frac_ulp", "p99_frac_ulp", "max_distance", "max_absolute", "max_relative", "at_max_distance", "at_max_relative",
                                              "correctly_rounded_share", "not_correctly_rounded",
                                              "max_normalized", "mean_normalized", "bias_mean", "bias_stderr", "bias_samples",
                                              "histogram", "distance_histogram", "normalized_histogram"};
  for (const auto& [k, v] : a.items())
    if (!known.count(k)) row(label(k), v);
  if (r.contains("seconds")) row("seconds", r["seconds"]);
  return s + "</tbody></table>";
}


// `possible(key)`: "" when the class can occur, else why it cannot (shown
// instead of "not exercised": rank 0 for a kernel whose minimum rank is 1).
std::string count_table(const json& counts, std::initializer_list<const char*> expected, const char* what, const char* unit,
                        const std::function<std::string(const std::string&)>& impossible = {}) {
  std::vector<std::string> keys(expected.begin(), expected.end());
  if (counts.is_object())
    for (const auto& [k, v] : counts.items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::string s = fmt::format("<table><thead><tr><th>{}</th><th>{}</th></tr></thead><tbody>", what, unit);
  for (const auto& k : keys) {
    const json v = counts.is_object() && counts.contains(k) ? counts[k] : json(0);
    const bool zero = as_double(v).value_or(0) == 0;
    const std::string why = zero && impossible ? impossible(k) : "";
    s += fmt::format("<tr><td>{}</td>{}</tr>", label(k),
                     !why.empty() ? fmt::format("<td class=\"num muted\" data-v=\"\">n/a ({})</td>", escape_html(why))
                     : zero       ? std::string("<td class=\"num zero\" data-v=\"0\">0 (not exercised)</td>")
                                  : num_td(v));
  }
  return s + "</tbody></table>";
}

std::string coverage_section(const json& k, const json& r) {
  const auto& c = r["coverage"];
  // The ranks the contract admits: a rank outside them is not a gap.
  int min_rank = 0, max_rank = 6;
  if (k.contains("contract") && k["contract"].is_object() && k["contract"].contains("inputs") &&
      k["contract"]["inputs"].is_array() && !k["contract"]["inputs"].empty() && k["contract"]["inputs"][0].is_object()) {
    const auto& in = k["contract"]["inputs"][0];
    // Clamped: a rank is a small integer, whatever a document holds.
    min_rank = static_cast<int>(std::clamp<std::int64_t>(integer_or(in.value("min_rank", json(0)), 0), 0, 1000));
    max_rank = static_cast<int>(std::clamp<std::int64_t>(integer_or(in.value("max_rank", json(6)), 6), 0, 1000));
  }
  auto rank_possible = [&](const std::string& key) -> std::string {
    if (key.rfind("rank", 0) != 0) return "";
    const long rank = std::strtol(key.c_str() + 4, nullptr, 10);  // saturates, unlike atoi
    if (rank < min_rank) return fmt::format("the contract's minimum rank is {}", min_rank);
    if (rank > max_rank) return fmt::format("the contract's maximum rank is {}", max_rank);
    return "";
  };
  std::string s = "<h3>Coverage: what the grade rests on</h3><div style=\"display:flex;gap:2em;flex-wrap:wrap\"><div>";
  s += count_table(c["value_classes"], {"zero", "subnormal", "normal", "tie", "integer", "inf", "nan", "overflow"},
                   "input value class", "inputs");
  s += "</div><div>";
  s += count_table(c["shape_classes"], {"empty", "size1_dim", "rank0", "rank1", "rank2", "rank3", "rank4", "rank5", "rank6"},
                   "shape class", "cases", rank_possible);
  // The classes of the correct results; the contract says which the kernel can produce.
  if (c.contains("result_classes") && c["result_classes"].is_object() && !c["result_classes"].empty()) {
    std::set<std::string> can;
    const std::string dt = r.value("dtype", "");
    if (k.contains("contract") && k["contract"].is_object() && k["contract"].contains("generator") &&
        k["contract"]["generator"].is_object() && k["contract"]["generator"].contains("result_classes") &&
        k["contract"]["generator"]["result_classes"].is_object() &&
        k["contract"]["generator"]["result_classes"].contains(dt) && k["contract"]["generator"]["result_classes"][dt].is_array())
      for (const auto& x : k["contract"]["generator"]["result_classes"][dt])
        if (x.is_string()) can.insert(x.get<std::string>());
    s += "</div><div>";
    s += count_table(c["result_classes"], {"zero", "subnormal", "near underflow", "normal", "near overflow", "inf", "NaN"},
                     "result class (of RN(z))", "elements", [&](const std::string& key) -> std::string {
                       return can.empty() || can.count(key) ? "" : "the kernel cannot produce it";
                     });
  }
  s += "</div><div>";
  const double outs = as_double(c["outputs"]).value_or(0);
  auto pct = [&](const json& v) { return outs > 0 ? fmt::format(" ({:.1f}%)", 100 * as_double(v).value_or(0) / outs) : std::string(); };
  s += fmt::format("<table><thead><tr><th>outputs</th><th>elements</th></tr></thead><tbody><tr><td>all</td>{}</tr>"
                   "<tr><td>zero</td><td class=\"num\">{}{}</td></tr><tr><td>NaN</td><td class=\"num\">{}{}</td></tr></tbody></table>",
                   num_td(c["outputs"]), show(c["outputs_zero"]), pct(c["outputs_zero"]), show(c["outputs_nan"]),
                   pct(c["outputs_nan"]));
  return s + "</div></div>";
}


// The metric a result's histogram and profile show: the failing check's
// (a distance failure shows distances), else the model's own (normalized
// error for a condition-aware model, distance for one correct rounding).
struct Metric {
  std::string histogram;  // field of "accuracy"
  std::string profile;    // field of "error_profile"
  std::string label;
  std::optional<double> bound;
};

Metric metric_of(const json& r, const json& model) {
  const std::string kind = model.value("kind", "");
  const std::string lead = r.contains("findings") && r["findings"].is_array() && !r["findings"].empty() &&
                                   r["findings"][0].is_object()
                               ? r["findings"][0].value("metric", "")
                               : "";
  const auto& a = r["accuracy"];
  auto has = [&](const char* f) { return a.contains(f) && a[f].is_object(); };
  if ((lead == "normalized error" || (lead.empty() && kind == "condition-aware bound")) && has("normalized_histogram"))
    return {"normalized_histogram", "max_normalized", "normalized error", 1.0};
  if ((lead == "integer distance" || (lead.empty() && kind == "correctly rounded")) && has("distance_histogram")) {
    const auto d = as_double(model.value("max_distance", json()));
    return {"distance_histogram", "max_distance", "integer distance", lead.empty() || !d || *d < 0 ? std::optional<double>(0) : d};
  }
  std::optional<double> b;
  if ((kind == "ulp bound" || kind == "correctly rounded" || kind == "exact") && model.contains("max_frac_ulp"))
    b = as_double(model["max_frac_ulp"]);
  return {"histogram", "max_frac_ulp", "fractional ulp error", b};
}

// What decides the result, first: on a failure each finding with its figure
// against its bound (data-figure and data-bound say so to a machine too);
// on a pass the figure that holds.
std::string verdict_block(const json& r) {
  const std::string v = r["verdict"].get<std::string>();
  // Which bound graded the accuracy check (docs/accuracy-tiers.md).
  const json& tier = field(r, "accuracy_tier");
  std::string s = !tier.is_object() ? ""
                  : fmt::format("<p class=\"tier\">accuracy tier <strong>{}</strong>: {}</p>", str(tier, "name"),
                                field(tier, "covered") == false ? "not covered: graded against the contract's bound"
                                                                : str(tier, "bound"));
  const json& f = r.contains("findings") && r["findings"].is_array() ? r["findings"] : json::array();
  if (v == "fail" && !f.empty()) {
    s += "<ul class=\"findings\">";
    for (std::size_t i = 0; i < f.size(); ++i)
      s += fmt::format("<li class=\"{}\" data-check=\"{}\" data-metric=\"{}\" data-figure=\"{}\" data-bound=\"{}\">{}</li>",
                       i == 0 ? "headline finding" : "finding", str(f[i], "check"), str(f[i], "metric"),
                       exact(f[i].value("figure", json())), exact(f[i].value("bound", json())),
                       i == 0 ? "<strong>" + str(f[i], "text") + "</strong>" : str(f[i], "text"));
    return s + "</ul>";
  }
  return s + fmt::format("<p class=\"headline\">{}</p>", str(r, "headline"));
}

std::string figures(const json& r, const json& model, const std::string& dt) {
  std::string s;
  const Metric m = metric_of(r, model);
  const std::string hist = error_histogram(r["accuracy"].value(m.histogram, json()), m.bound);
  if (!hist.empty())
    s += "<h3>Error histogram</h3><figure>" + hist +
         fmt::format("<figcaption>Elements graded against the oracle, by {}. Bin [a, b) counts values a &le; e &lt; b; "
                     "the count is printed over each bar. Cross-hatched: the bin holds elements that failed a check of "
                     "their accuracy (their number in bold); hatched: none did.{}</figcaption></figure>",
                     escape_html(m.label), m.bound ? fmt::format(" The contract's bound: {}.", show(*m.bound)) : "");
  if (r.contains("error_profile")) {
    const std::string prof = error_profile_plot(
        r["error_profile"], m.profile, m.label, m.bound,
        model.contains("bound_depends_on") && m.profile == "max_frac_ulp"
            ? "largest contract bound (depends on " + model["bound_depends_on"].dump() + ")"
            : "contract bound",
        dt);
    if (!prof.empty())
      s += "<h3>Error versus input</h3><figure>" + prof +
           fmt::format("<figcaption>The graded inputs in input order, cut into slices that hold equal numbers of them; a "
                       "marker is the largest {} in its slice. {} Open circle: no element of the slice failed; filled "
                       "triangle: one did.{}</figcaption></figure>",
                       escape_html(m.label),
                       r.value("exhaustive", false) ? "Every input of the dtype was graded."
                                                    : "Random cases and sweeps: each slice spans the inputs it holds.",
                       m.bound ? " Dashed line: the contract's bound." : "");
  }
  return s;
}

// What a plug-in's kernel printed, kept by its worker (never on kconform's own output).
std::string printed_section(const json& r) {
  if (!r.contains("printed") || !r["printed"].is_array() || r["printed"].empty()) return "";
  std::string s = "<h3>What the kernel printed</h3><p class=\"small\">Its stdout and stderr, per case (the first cases "
                  "that printed, the first bytes of each); kconform's own output never shows them.</p>";
  for (const auto& p : r["printed"]) {
    const auto c = as_double(p.value("case", json())).value_or(-1);
    s += fmt::format("<p>{}: {} bytes</p><pre>{}</pre>", c >= 0 ? fmt::format("case {}", c) : std::string("the run's checks"),
                     show(p.value("bytes", json())), str(p, "text"));
  }
  return s;
}

std::string dtype_section(const json& doc, const json& k, const json& r) {
  const std::string dt = r["dtype"].get<std::string>();
  const std::string v = r["verdict"].get<std::string>();
  const auto& model = contract_accuracy(k, dt);
  std::string s = fmt::format("<h2 id=\"dtype-{}\">{} {} {}</h2>", slug(dt), show(k["name"]), escape_html(dt), verdict_badge(v));
  s += verdict_block(r);
  if (r.contains("run_index") && doc.contains("runs"))
    s += fmt::format("<p class=\"small\">From run {} of the merged documents (<a href=\"index.html#run-{}\">metadata</a>).</p>",
                     show(r["run_index"]), show(r["run_index"]));
  if (r.contains("run_indices") && r["run_indices"].is_array() && doc.contains("runs")) {
    std::vector<std::string> links;
    for (const auto& i : r["run_indices"]) links.push_back(fmt::format("<a href=\"index.html#run-{}\">{}</a>", show(i), show(i)));
    s += fmt::format("<p class=\"small\" id=\"merged-{}\">Merged from runs {} of the documents: counts are their sums, "
                     "maxima and worst cases the worst of them, the p99 an upper bound.</p>",
                     slug(dt), fmt::join(links, ", "));
  }
  const std::string why = untrustworthy_reason(r);
  if (!why.empty()) s += fmt::format("<p class=\"warn\">&#9888; <strong>Untrustworthy grade:</strong> {}. {}</p>", escape_html(why), kTrustRule);
  const bool failed = v == "fail";
  if (failed) s += failures_section(r["failures"]);  // the failing case is the product: first
  s += figures(r, model, dt);
  if (!model.empty())
    s += fmt::format("<p>Accuracy model: <strong>{}</strong>. {}</p>", str(model, "kind"), str(model, "derivation"));
  s += "<h3>Statistics</h3>" + stats_table(r, model);
  const bool norm = !r["accuracy"]["max_normalized"].is_null();
  s += fmt::format("<h3>Worst cases ({})</h3>", norm ? "largest normalized error first" : "largest error first");
  s += r["worst"].empty() ? "<p class=\"muted\">No element was graded against the oracle.</p>" : elements_table(r["worst"], norm);
  s += coverage_section(k, r);
  s += shapes_section(r);
  s += "<h3>Checks run: properties, special values, bad input, ...</h3>" + checks_table(r["checks"]);
  if (!failed) s += failures_section(r["failures"]);
  s += declared_section(r, model);
  s += printed_section(r);
  // A conformance run: the reference's own choices and bits this kernel
  // does not share, which the portable contract does not require.
  if (as_double(r["differs_from_reference"]).value_or(0) > 0)
    s += failures_section(r["differences"], fmt::format("Differs from the reference: {} outcomes (conformance profile, "
                                                        "not failures)", show(r["differs_from_reference"])));
  return s;
}

}  // namespace

std::string kernel_page(const json& doc, const json& k) {
  const std::string name = k["name"].get<std::string>();
  std::string body = "<p><a href=\"index.html\">&larr; all kernels</a></p>";
  body += fmt::format("<h1>{}</h1><p>{}{}</p>", escape_html(name), str(k, "family"),
                      k.contains("contract") && k["contract"].is_object() ? " &mdash; " + str(k["contract"], "summary") : "");
  // Results first, each led by what decides it; the contract they were
  // graded by closes the page.
  body += "<nav class=\"toc\">";
  for (const auto& r : k["results"])
    body += fmt::format("<a href=\"#dtype-{}\">{}</a> {} ", slug(r["dtype"].get<std::string>()), show(r["dtype"]),
                        verdict_badge(r["verdict"].get<std::string>()));
  body += "<a href=\"#contract\">contract</a></nav>";
  for (const auto& r : k["results"]) body += dtype_section(doc, k, r);
  body += contract_section(k.contains("contract") ? k["contract"] : json());
  return page("kconform: " + name, body);
}

}  // namespace kc::reports::site
