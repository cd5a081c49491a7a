#include "reports/html.h"

#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"

namespace kc::reports {

namespace fs = std::filesystem;
using nlohmann::json;

std::string escape_html(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string page_name(std::string_view kernel) {
  std::string s = "kernel-";
  for (char c : kernel) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    s += ok ? std::string(1, c) : fmt::format("%{:02x}", static_cast<unsigned char>(c));
  }
  // '%' is not safe in a file name referenced from HTML: replace it.
  for (char& c : s)
    if (c == '%') c = '.';
  return s + ".html";
}

namespace {

std::string text(const json& v) {
  if (v.is_string()) return escape_html(v.get<std::string>());
  if (v.is_null()) return "&ndash;";
  if (v.is_number_float()) return escape_html(fmt::format("{:.6g}", v.get<double>()));
  return escape_html(v.dump());
}

const char* kStyle = R"(body{font-family:sans-serif;margin:1.5em;color:#111}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #999;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#eee}.pass{background:#e3f4e3}.fail{background:#f8dcdc;font-weight:bold}.not_graded{background:#eee}
pre{background:#f6f6f6;padding:.5em;overflow-x:auto;white-space:pre-wrap}code{font-size:90%})";

std::string page(const std::string& title, const std::string& body) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{}</style>"
                     "</head><body>\n{}\n</body></html>\n",
                     escape_html(title), kStyle, body);
}

std::string index_page(const json& doc) {
  std::string rows;
  for (const auto& k : doc["kernels"])
    for (const auto& r : k["results"]) {
      const auto& a = r["accuracy"];
      const std::string v = r["verdict"].get<std::string>();
      rows += fmt::format(
          "<tr class=\"{}\"><td><a href=\"{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          escape_html(v), escape_html(page_name(k["name"].get<std::string>())), text(k["name"]), text(k["family"]),
          text(r["dtype"]), escape_html(v), text(a["max_frac_ulp"]), text(a["max_distance"]), text(a["max_normalized"]),
          text(r["cases"]), text(r["elements"]), r["exhaustive"].get<bool>() ? "yes" : "no");
    }
  const auto& t = doc["totals"];
  const auto& run = doc["run"];
  std::string body = fmt::format(
      "<h1>kconform conformance results</h1>\n<p>{} kernel&times;dtype results: {} pass, {} fail, {} not graded; {} "
      "elements graded.</p>\n<p>Seed {}, backend {}, commit {}, {} ({}), MPFR {}, GMP {}, glibc {}, started {}, {} s, "
      "on {}.</p>\n"
      "<table><tr><th>kernel</th><th>family</th><th>dtype</th><th>verdict</th><th>max frac ulp</th><th>max "
      "distance</th><th>max normalized</th><th>cases</th><th>elements</th><th>exhaustive</th></tr>\n{}</table>",
      text(t["kernel_dtypes"]), text(t["pass"]), text(t["fail"]), text(t["not_graded"]), text(t["elements"]),
      text(run["seed"]), text(run["backend"]), text(run["commit"]), text(run["compiler"]), text(run["flags"]),
      text(run["mpfr"]), text(run["gmp"]), text(run["glibc"]), text(run["started_at"]), text(run["duration_s"]),
      text(run["machine"]), rows);
  return page("kconform results", body);
}

std::string kernel_page(const json& k) {
  const auto& c = k["contract"];
  std::string body = fmt::format("<p><a href=\"index.html\">&larr; all kernels</a></p><h1>{}</h1>", text(k["name"]));
  if (!c.is_null()) {
    body += fmt::format("<h2>Contract</h2><p>{} &mdash; {} ({})</p>", text(c["summary"]), text(c["family"]), text(c["source"]));
    body += "<table><tr><th>operand</th><th>dtypes</th><th>ranks</th></tr>";
    for (const auto& op : c["inputs"])
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}..{}</td></tr>", text(op["name"]), text(op["dtypes"]),
                          text(op["min_rank"]), text(op["max_rank"]));
    body += "</table>";
    if (!c["params"].empty()) {
      body += "<table><tr><th>parameter</th><th>kind</th><th>domain</th></tr>";
      for (const auto& p : c["params"])
        body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", text(p["name"]), text(p["kind"]), text(p["domain"]));
      body += "</table>";
    }
    body += fmt::format("<p>Output: {}. Layout: {}. Oracle: {}.</p>", text(c["output"]), text(c["layout"]), text(c["oracle"]));
    body += "<h3>Preconditions</h3><table><tr><th>rule</th><th>operand</th><th>requirement</th></tr>";
    for (const auto& p : c["preconditions"])
      body += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>", text(p["rule"]), text(p["operand"]), text(p["text"]));
    body += "</table><h3>Accuracy model</h3><table><tr><th>dtype</th><th>model</th><th>max frac ulp</th><th>max "
            "distance</th><th>derivation</th></tr>";
    for (const auto& a : c["accuracy"])
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", text(a["dtype"]),
                          text(a["kind"]), text(a["max_frac_ulp"]), text(a["max_distance"]), text(a["derivation"]));
    body += "</table><h3>Special values</h3><ul>";
    for (const auto& s : c["specials"]) body += fmt::format("<li>{} &rarr; {}</li>", text(s["input"]), text(s["output"]));
    body += "</ul><h3>Properties</h3><ul>";
    for (const auto& p : c["properties"]) body += fmt::format("<li>{} ({})</li>", text(p["name"]), text(p["kind"]));
    body += fmt::format("</ul><p>Notes: {}</p>", text(c["notes"]));
  }
  for (const auto& r : k["results"]) {
    const auto& a = r["accuracy"];
    body += fmt::format("<h2>{} &mdash; {}</h2><p>{} cases, {} elements{}; max fractional ulp {}, mean {}, p99 {}, max "
                        "integer distance {}, correctly rounded share {}, max normalized {}.</p>",
                        text(r["dtype"]), text(r["verdict"]), text(r["cases"]), text(r["elements"]),
                        r["exhaustive"].get<bool>() ? " (every 16-bit input)" : "", text(a["max_frac_ulp"]),
                        text(a["mean_frac_ulp"]), text(a["p99_frac_ulp"]), text(a["max_distance"]),
                        text(a["correctly_rounded_share"]), text(a["max_normalized"]));
    body += "<table><tr><th>check</th><th>passed</th><th>failed</th><th>detail</th></tr>";
    for (const auto& ch : r["checks"])
      body += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                          ch["failed"].get<std::int64_t>() > 0 ? "fail" : "pass", text(ch["name"]), text(ch["passed"]),
                          text(ch["failed"]), text(ch["detail"]));
    body += "</table>";
    if (!r["worst"].empty()) {
      body += "<h3>Worst cases</h3>";
      for (const auto& w : r["worst"]) body += fmt::format("<pre>{}</pre>", text(w["message"]));
    }
    if (!r["failures"].empty()) {
      body += "<h3>Failures</h3>";
      for (const auto& f : r["failures"]) body += fmt::format("<pre>{}</pre>", text(f["message"]));
    }
  }
  return page("kconform: " + k["name"].get<std::string>(), body);
}

void write_file(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary);
  f << s;
  if (!f) throw UsageError("cannot write " + p.string());
}

}  // namespace

void write_site(const json& results, const fs::path& dir) {
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  fs::create_directories(parent);
  const fs::path tmp = parent / (dir.filename().string() + ".tmp-site");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  write_file(tmp / "index.html", index_page(results));
  for (const auto& k : results["kernels"]) write_file(tmp / page_name(k["name"].get<std::string>()), kernel_page(k));
  const fs::path old = parent / (dir.filename().string() + ".old-site");
  fs::remove_all(old);
  std::error_code ec;
  if (fs::exists(dir)) fs::rename(dir, old);
  fs::rename(tmp, dir);
  fs::remove_all(old, ec);
}

}  // namespace kc::reports
