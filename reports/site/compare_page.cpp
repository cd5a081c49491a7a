#include "reports/site/compare_page.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "oracles/det_math.h"
#include "reports/html.h"
#include "reports/site/html_util.h"
#include "reports/site/svg_plots.h"

namespace kc::reports::site {

namespace {

// Kernel -> dtype -> result, per document.
using Index = std::map<std::string, std::map<std::string, const json*>>;
Index index_of(const json& doc) {
  Index ix;
  for (const auto& k : field(doc, "kernels"))
    for (const auto& r : field(k, "results"))
      if (field(k, "name").is_string() && field(r, "dtype").is_string())
        ix[k["name"].get<std::string>()][r["dtype"].get<std::string>()] = &r;
  return ix;
}
// Kernel name -> its document entry (the contract), per document.
std::map<std::string, const json*> kernels_of(const json& doc) {
  std::map<std::string, const json*> m;
  for (const auto& k : field(doc, "kernels"))
    if (field(k, "name").is_string()) m[k["name"].get<std::string>()] = &k;
  return m;
}

// Rows in the order of the first document that has them.
std::vector<std::pair<std::string, std::string>> rows_of(const std::vector<json>& docs) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& d : docs)
    for (const auto& k : field(d, "kernels"))
      for (const auto& r : field(k, "results")) {
        if (!field(k, "name").is_string() || !field(r, "dtype").is_string()) continue;
        std::pair<std::string, std::string> row{k["name"].get<std::string>(), r["dtype"].get<std::string>()};
        if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
      }
  return rows;
}

std::string claim_cell(const json& r) {
  const json& d = field(r, "declared");
  const std::string v = str(d, "claim_verdict");
  if (v.empty() || v == "unclaimed") return "<td class=\"muted\">no claim</td>";
  return fmt::format("<td><span class=\"badge claim-{0}\">{0}</span> {1} &le; {2}</td>", v, str(d, "claim_metric"),
                     show(field(d, "claimed")));
}

// The figure that decides a result's accuracy verdict, as its bound reads
// it: the largest normalized error (of 1) where the bound that graded it is
// condition-aware, else the largest fractional ulp error. An older document
// without accuracy_tier: the contract's kind decides.
struct VerdictFigure {
  const json* value;
  std::string metric;
};
VerdictFigure verdict_figure(const json& kernel, const json& r) {
  const json& acc = field(r, "accuracy");
  const json& tier = field(r, "accuracy_tier");
  const std::string bound = field(tier, "bound").is_string() ? tier["bound"].get<std::string>() : "";
  const bool normalized = tier.is_object() ? bound.starts_with("normalized")
                                           : str(contract_accuracy(kernel, str(r, "dtype")), "kind") == "condition-aware bound";
  if (normalized) return {&field(acc, "max_normalized"), "normalized error (of 1)"};
  return {&field(acc, "max_frac_ulp"), "fractional ulp"};
}

// Which profile and accuracy tier graded a document (a column's header).
std::string graded_by(const json& run) {
  const std::string tier = field(run, "accuracy_tier").is_string() ? run["accuracy_tier"].get<std::string>() : "reference";
  return fmt::format("{} profile, {} accuracy tier", str(run, "profile").empty() ? "?" : str(run, "profile"), tier);
}

// One backend's cells of a row: the verdict figure (its metric in
// data-metric), the verdict (linked to `link`), the bound and its tier,
// max ulp / distance, the claim.
std::string result_cells(const json& kernel, const json& r, const std::string& link) {
  const json& acc = field(r, "accuracy");
  const VerdictFigure vf = verdict_figure(kernel, r);
  const json& tier = field(r, "accuracy_tier");
  const std::string bound = tier.is_object() ? fmt::format("{} ({}{})", str(tier, "bound"), str(tier, "name"),
                                                           field(tier, "covered") == false ? ": not covered, the contract's" : "")
                                             : "the contract's";
  return num_td(*vf.value, "verdict-figure").insert(3, fmt::format(" data-metric=\"{}\"", escape_html(vf.metric))) +
         fmt::format("<td><a href=\"{}\">{}</a></td>", escape_html(link), verdict_badge(str(r, "verdict"))) +
         fmt::format("<td>{}</td>", escape_html(bound)) +
         fmt::format("<td class=\"num\">{} / {}</td>", show(field(acc, "max_frac_ulp")), show(field(acc, "max_distance"))) +
         claim_cell(r);
}

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

// The backends' max fractional ulp per input slice, one polyline each, x by
// the slice's middle input on an asinh scale (sign and magnitude both
// visible), y on a log scale from 1e-3 ulp.
std::string overlay_plot(const std::vector<std::pair<std::string, const json*>>& series) {
  double xmax = 0, ymax = 1;
  for (const auto& [_, r] : series) {
    const json& p = field(*r, "error_profile");
    const json &lo = field(p, "x_lo"), &hi = field(p, "x_hi"), &f = field(p, "max_frac_ulp");
    for (std::size_t i = 0; lo.is_array() && hi.is_array() && f.is_array() && i < lo.size() && i < hi.size() && i < f.size(); ++i) {
      const auto a = as_double(lo[i]), b = as_double(hi[i]), y = as_double(f[i]);
      if (a && b && std::isfinite(*a) && std::isfinite(*b)) xmax = std::max({xmax, std::fabs(oracle::det::asinh(*a)), std::fabs(oracle::det::asinh(*b))});
      if (y && std::isfinite(*y)) ymax = std::max(ymax, *y);
    }
  }
  if (xmax == 0) return "";
  const double W = 760, H = 300, L = 60, R = 12, T = 12, B = 40, pw = W - L - R, ph = H - T - B;
  const double ylo = -3, yhi = oracle::det::log10(ymax) + 0.2;
  auto X = [&](double asinh_x) { return L + (asinh_x / xmax + 1) / 2 * pw; };  // (x given by asinh x)
  auto Y = [&](double y) { return T + ph - (oracle::det::log10(std::max(y, 1e-3)) - ylo) / (yhi - ylo) * ph; };
  std::string s = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
                              "aria-label=\"max fractional ulp error versus input, per backend\">",
                              W, H, W, H);
  for (double p = 1e-3; p <= oracle::det::pow(10.0, yhi); p *= 10)
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" "
                     "font-size=\"11\" text-anchor=\"end\">{5}</text>",
                     L, W - R, Y(p), L - 4, Y(p) + 4, short_num(p));
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">input x (asinh scale; 0 in the middle)</text>",
                   L + pw / 2, H - 8);
  for (std::size_t b = 0; b < series.size(); ++b) {
    const json& p = field(*series[b].second, "error_profile");
    const json &lo = field(p, "x_lo"), &hi = field(p, "x_hi"), &f = field(p, "max_frac_ulp");
    std::string pts;
    for (std::size_t i = 0; lo.is_array() && hi.is_array() && f.is_array() && i < lo.size() && i < hi.size() && i < f.size(); ++i) {
      const auto a = as_double(lo[i]), c = as_double(hi[i]), y = as_double(f[i]);
      if (!a || !c || !y || !std::isfinite(*a) || !std::isfinite(*c) || std::isnan(*y)) continue;
      // (the slice's middle on the asinh scale; sinh of it may overflow where the slice ends at max)
      const double mid = (oracle::det::asinh(*a) + oracle::det::asinh(*c)) / 2;
      pts += fmt::format("{:.1f},{:.1f} ", X(mid), Y(std::isinf(*y) ? ymax : *y));
    }
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title></polyline>",
                     kColors[b % 8], pts, escape_html(series[b].first));
  }
  s += "</svg><p>";
  for (std::size_t b = 0; b < series.size(); ++b)
    s += fmt::format("<span style=\"color:{}\">&#9632;</span> {} ", kColors[b % 8], escape_html(series[b].first));
  return s + "</p>";
}

// A problem line's cell for one backend: its verdict (a link to the
// backend's page), the elements it graded exactly, and where it failed its
// largest accuracy failure's figure (or its failures' count).
std::string line_cell(const json& line, const std::string& link) {
  const std::int64_t failed = integer_or(field(line, "failed"), 0);
  std::string why;
  if (failed > 0)
    why = field(line, "worst_accuracy_failure").is_number()
              ? fmt::format(" accuracy: {} {}", show(line["worst_accuracy_failure"]), escape_html(str(line, "worst_metric")))
              : fmt::format(" {} failure(s) of its checks", failed);
  return fmt::format("<td><a href=\"{}\">{}</a>{}</td><td class=\"num\">{}</td>", escape_html(link),
                     verdict_badge(failed > 0 ? "fail" : "pass"), why, show(field(line, "graded_exactly")));
}

// The backends side by side by problem line (`--shapes production` or a
// problem file): one row per line, kernel and dtype, in the order of the
// first document that graded it; "" where no document has problem lines.
std::string lines_table(const std::vector<json>& docs, const std::vector<Index>& ix) {
  struct Row {
    std::string line, kernel, dtype;
  };
  std::vector<Row> rows;
  for (const auto& [kernel, dtype] : rows_of(docs))
    for (std::size_t b = 0; b < docs.size(); ++b) {
      const auto k = ix[b].find(kernel);
      if (k == ix[b].end() || !k->second.count(dtype)) continue;
      for (const auto& l : field(field(*k->second.at(dtype), "shapes"), "problem_lines")) {
        Row row{str(l, "line"), kernel, dtype};
        // (compared with row's own fields: a lambda may not capture a structured binding before C++20's clang 16)
        if (std::none_of(rows.begin(), rows.end(),
                         [&row](const Row& x) { return x.line == row.line && x.kernel == row.kernel && x.dtype == row.dtype; }))
          rows.push_back(std::move(row));
      }
    }
  if (rows.empty()) return "";
  std::string head = "<tr><th>problem line</th><th>kernel</th><th>dtype</th>";
  for (std::size_t b = 0; b < docs.size(); ++b)
    head += fmt::format("<th>{}</th><th title=\"output elements graded exactly\">graded</th>", escape_html(backend_label(docs[b])));
  std::string body;
  for (const auto& row : rows) {
    body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td>", escape_html(row.line), escape_html(row.kernel), escape_html(row.dtype));
    for (std::size_t b = 0; b < docs.size(); ++b) {
      const auto k = ix[b].find(row.kernel);
      const json* r = k == ix[b].end() || !k->second.count(row.dtype) ? nullptr : k->second.at(row.dtype);
      const json* line = nullptr;
      if (r)
        for (const auto& l : field(field(*r, "shapes"), "problem_lines"))
          if (str(l, "line") == row.line) line = &l;
      body += line ? line_cell(*line, fmt::format("b{}/{}#dtype-{}", b, page_name(row.kernel), slug(row.dtype)))
                   : "<td colspan=\"2\" class=\"muted\">not graded</td>";
    }
    body += "</tr>\n";
  }
  return fmt::format("<h2 id=\"problem-lines\">By problem line</h2><p>Each problem line each backend graded (a model's "
                     "shapes: <code>--shapes production</code> or a problem file): its verdict, the first failure kept "
                     "from its case (the check and the figure that failed it), and the output elements it graded "
                     "exactly.</p><table class=\"sortable\" id=\"problem-lines-table\"><thead>{}</tr></thead><tbody>\n{}"
                     "</tbody></table>",
                     head, body);
}

// Per kernel: the backends' error profiles overlaid, per dtype, one page each.
void kernel_pages(const std::vector<json>& docs, const std::vector<std::string>& labels, const std::vector<Index>& ix,
                  Files& files) {
  std::vector<std::string> kernels;
  for (const auto& [kernel, _] : rows_of(docs))
    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) kernels.push_back(kernel);
  for (const auto& kernel : kernels) {
    std::string kb = fmt::format("<p><a href=\"index.html\">&larr; all kernels</a></p><h1>{}: backends compared</h1>", escape_html(kernel));
    for (const auto& [kn, dtype] : rows_of(docs)) {
      if (kn != kernel) continue;
      std::vector<std::pair<std::string, const json*>> series;
      std::string links;
      for (std::size_t b = 0; b < docs.size(); ++b) {
        const auto k = ix[b].find(kernel);
        if (k == ix[b].end() || !k->second.count(dtype)) continue;
        series.emplace_back(labels[b], k->second.at(dtype));
        links += fmt::format("<li><a href=\"{}\">{}</a>: {} {}</li>", escape_html(fmt::format("b{}/{}#dtype-{}", b, page_name(kernel), slug(dtype))),
                             escape_html(labels[b]), verdict_badge(str(*k->second.at(dtype), "verdict")), str(*k->second.at(dtype), "headline"));
      }
      const std::string plot = overlay_plot(series);
      kb += fmt::format("<h2 id=\"dtype-{}\">{}</h2><ul>{}</ul>{}", slug(dtype), escape_html(dtype), links,
                        plot.empty() ? "<p class=\"muted\">No error profile (not a one-input elementwise kernel).</p>" : plot);
    }
    files.emplace_back("compare-" + page_name(kernel).substr(7), page("kconform: " + kernel + " compared", kb));
  }
}

}  // namespace

std::string backend_label(const json& doc) {
  const json& run = field(doc, "run");
  const json& p = field(run, "plugin");
  if (field(p, "name").is_string())
    return p["name"].get<std::string>() + (field(p, "version").is_string() ? " " + p["version"].get<std::string>() : "");
  return field(run, "backend").is_string() ? run["backend"].get<std::string>() : "unknown backend";
}

Files render_comparison(const std::vector<json>& in) {
  std::vector<json> docs;
  for (const auto& d : in) docs.push_back(normalize(d));
  std::vector<std::string> labels;
  std::vector<Index> ix;
  std::vector<std::map<std::string, const json*>> kx;
  for (const auto& d : docs) {
    labels.push_back(backend_label(d));
    ix.push_back(index_of(d));
    kx.push_back(kernels_of(d));
  }
  Files files;
  std::string head = "<tr><th rowspan=\"2\">kernel</th><th rowspan=\"2\">dtype</th>", sub;
  for (std::size_t b = 0; b < docs.size(); ++b) {
    const json& run = docs[b]["run"];
    head += fmt::format("<th colspan=\"5\" title=\"{}\">{}<br><span class=\"muted\">{}</span></th>",
                        escape_html(field(field(run, "plugin"), "build_flags").is_string() ? "built with " + run["plugin"]["build_flags"].get<std::string>() : ""),
                        escape_html(labels[b]),
                        escape_html(fmt::format("{}; seed {}, {} cases", graded_by(run), show(field(run, "seed")),
                                                show(field(run, "cases_per_kernel")))));
    sub += "<th title=\"the figure the accuracy verdict rests on, against the bound that graded it\">verdict figure</th>"
           "<th>verdict</th><th>bound (tier)</th><th>max ulp</th><th>its claim</th>";
  }
  std::string rows;
  for (const auto& [kernel, dtype] : rows_of(docs)) {
    rows += fmt::format("<tr><td><a href=\"{}\">{}</a></td><td>{}</td>", escape_html("compare-" + page_name(kernel).substr(7)),
                        escape_html(kernel), escape_html(dtype));
    for (std::size_t b = 0; b < docs.size(); ++b) {
      const auto k = ix[b].find(kernel);
      const json* r = k == ix[b].end() || !k->second.count(dtype) ? nullptr : k->second.at(dtype);
      if (!r) {
        rows += "<td colspan=\"5\" class=\"muted\">not graded</td>";
        continue;
      }
      static const json none;
      rows += result_cells(kx[b].count(kernel) ? *kx[b].at(kernel) : none, *r,
                           fmt::format("b{}/{}#dtype-{}", b, page_name(kernel), slug(dtype)));
    }
    rows += "</tr>\n";
  }
  std::string body = fmt::format(
      "<h1>Backends side by side</h1><p>Every kernel x dtype graded by any of these runs against the MPFR oracle. "
      "Per backend: the figure its accuracy verdict rests on (the largest normalized error, of 1, where the bound is "
      "condition-aware: a sum's or a product's ulp error alone says nothing of its correctness; else the largest "
      "fractional ulp error), the verdict (a link to the backend's own page for the kernel, with its failures and "
      "replay commands), the bound that graded it and its accuracy tier, the largest fractional ulp error and integer "
      "ulp distance measured (inf where a result was infinite or NaN), and the verdict of what the backend itself "
      "claims. Each column's header names its profile and tier. A backend that did not grade a kernel x dtype says "
      "so.</p>"
      "<table class=\"sortable\" id=\"comparison\"><thead>{}</tr><tr>{}</tr></thead><tbody>\n{}</tbody></table>",
      head, sub, rows);
  body += lines_table(docs, ix);
  files.emplace_back("index.html", page("kconform: backends compared", body));
  kernel_pages(docs, labels, ix, files);
  // Each backend's own site, where the links above land.
  for (std::size_t b = 0; b < docs.size(); ++b)
    for (auto& [name, content] : render_site(docs[b], nullptr, nullptr)) files.emplace_back(fmt::format("b{}/{}", b, name), std::move(content));
  return files;
}

}  // namespace kc::reports::site
