// Reading, checking and merging results documents before any page is drawn:
// a bad document is a usage error with a message, never a half-drawn site.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "reports/json_number.h"
#include "reports/results_json.h"
#include "reports/site/site.h"

namespace kc::reports::site {

namespace fs = std::filesystem;

namespace {

// The nesting depth of a JSON text, scanned before parsing: nlohmann's
// copies and the page code recurse, so a hostile document nested 100k deep
// would overflow the stack.
void check_depth(std::string_view text, const std::string& where) {
  int depth = 0;
  bool in_string = false, escaped = false;
  std::size_t line = 1;
  for (char c : text) {
    if (c == '\n') ++line;
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        throw UsageError(fmt::format("'{}' is nested deeper than {} levels (line {}); a results document nests at "
                                     "most about 8",
                                     where, kMaxDepth, line));
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

// Sizes the pages draw from: each is drawn element by element, so a
// document with a million histogram bins would render a page of hundreds
// of megabytes. The limits sit far above what a run writes.
void check_sizes(const json& j, const std::string& where, int depth = 0) {
  if (j.is_string() && j.get_ref<const std::string&>().size() > kMaxString)
    throw UsageError(fmt::format("'{}': a string of {} bytes exceeds the limit of {}", where,
                                 j.get_ref<const std::string&>().size(), kMaxString));
  if (depth > kMaxDepth) return;
  if (j.is_array() || j.is_object())
    for (const auto& v : j) check_sizes(v, where, depth + 1);
}

void check_count(const json& parent, const char* field, std::size_t limit, const std::string& where,
                 const std::string& what) {
  if (parent.is_object() && parent.contains(field) && parent[field].is_array() && parent[field].size() > limit)
    throw UsageError(fmt::format("'{}': {} has {} entries in \"{}\", more than the {} a results document may hold",
                                 where, what, parent[field].size(), field, limit));
}

}  // namespace

json parse_document(std::string_view text, const std::string& where) {
  if (text.size() > kMaxBytes)
    throw UsageError(fmt::format("'{}' is {} bytes, more than the {} a results document may hold", where, text.size(),
                                 kMaxBytes));
  check_depth(text, where);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("'{}' is not valid JSON: {}", where, e.what()));
  }
  decode_nonfinite(doc);
  check_sizes(doc, where);
  validate_document(doc, where);
  return doc;
}

json load_document(const fs::path& p) {
  std::error_code ec;
  const auto st = fs::status(p, ec);
  if (!fs::exists(st)) throw UsageError(fmt::format("cannot read results document '{}': no such file", p.string()));
  if (fs::is_directory(st))
    throw UsageError(fmt::format("'{}' is a folder, not a results document (give its results.json)", p.string()));
  if (!fs::is_regular_file(st)) throw UsageError(fmt::format("'{}' is not a regular file", p.string()));
  const auto size = fs::file_size(p, ec);
  if (!ec && size > kMaxBytes)
    throw UsageError(fmt::format("'{}' is {} bytes, more than the {} a results document may hold", p.string(), size,
                                 kMaxBytes));
  std::ifstream f(p, std::ios::binary);
  if (!f) throw UsageError(fmt::format("cannot read results document '{}': {}", p.string(), std::strerror(errno)));
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) throw UsageError(fmt::format("cannot read results document '{}': {}", p.string(), std::strerror(errno)));
  return parse_document(text, p.string());
}

void validate_document(const json& doc, const std::string& where) {
  auto bad = [&](const std::string& what) { throw UsageError(fmt::format("'{}' is not a kconform results document: {}", where, what)); };
  if (!doc.is_object()) bad("not a JSON object");
  if (doc.value("schema", "") != kSchema) bad(fmt::format("schema is not \"{}\"", kSchema));
  if (!doc.contains("run") || !doc["run"].is_object()) bad("no \"run\" object");
  if (!doc.contains("totals") || !doc["totals"].is_object()) bad("no \"totals\" object");
  if (!doc.contains("kernels") || !doc["kernels"].is_array()) bad("no \"kernels\" array");
  check_count(doc, "kernels", kMaxKernels, where, "the document");
  for (const auto& k : doc["kernels"]) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) bad("a kernel without a name");
    const std::string name = k["name"].get<std::string>();
    if (!k.contains("results") || !k["results"].is_array()) bad(fmt::format("kernel '{}' has no \"results\" array", name));
    check_count(k, "results", kMaxResults, where, fmt::format("kernel '{}'", name));
    for (const auto& r : k["results"]) {
      if (!r.is_object()) bad(fmt::format("a result of kernel '{}' is not an object", name));
      for (const char* f : {"dtype", "verdict"})
        if (!r.contains(f) || !r[f].is_string()) bad(fmt::format("a result of kernel '{}' has no string \"{}\"", name, f));
      for (const char* f : {"accuracy", "coverage"})
        if (!r.contains(f) || !r[f].is_object()) bad(fmt::format("{} {}: no \"{}\" object", name, r["dtype"].get<std::string>(), f));
      for (const char* f : {"worst", "checks", "failures"})
        if (!r.contains(f) || !r[f].is_array()) bad(fmt::format("{} {}: no \"{}\" array", name, r["dtype"].get<std::string>(), f));
      if (r.contains("differences") && !r["differences"].is_array())
        bad(fmt::format("{} {}: \"differences\" is not an array", name, r["dtype"].get<std::string>()));
      if (!r.contains("exhaustive") || !r["exhaustive"].is_boolean())
        bad(fmt::format("{} {}: no boolean \"exhaustive\"", name, r["dtype"].get<std::string>()));
      const std::string what = fmt::format("{} {}", name, r["dtype"].get<std::string>());
      check_count(r, "worst", kMaxListed, where, what);
      check_count(r, "failures", kMaxListed, where, what);
      check_count(r, "differences", kMaxListed, where, what);
      check_count(r, "checks", kMaxListed, where, what);
      for (const char* hname : {"histogram", "distance_histogram", "normalized_histogram"}) {
        if (!r["accuracy"].contains(hname) || !r["accuracy"][hname].is_object()) continue;
        const json& h = r["accuracy"][hname];
        check_count(h, "edges", kMaxBins + 1, where, what + " " + hname);
        check_count(h, "counts", kMaxBins, where, what + " " + hname);
        check_count(h, "failing", kMaxBins, where, what + " " + hname);
        for (const char* f : {"counts", "failing"})
          if (h.contains(f) && h[f].is_array())
            for (const auto& v : h[f])
              if (integer_or(v, -1) < 0)
                bad(fmt::format("{}: {}.{} holds {}, not a count", what, hname, f, v.dump()));
      }
      if (r.contains("error_profile") && r["error_profile"].is_object())
        for (const char* f : {"x_lo", "x_hi", "max_frac_ulp"})
          check_count(r["error_profile"], f, kMaxBins, where, what + " error profile");
    }
  }
}

namespace {

// nlohmann's const operator[] on a missing key is undefined behaviour, so
// every field a page reads is made present (null, 0 or empty) up front.
void fill(json& obj, std::initializer_list<std::pair<const char*, json>> defaults) {
  if (!obj.is_object()) obj = json::object();
  for (const auto& [k, v] : defaults)
    if (!obj.contains(k)) obj[k] = v;
}

}  // namespace

json normalize(const json& in) {
  json doc = in;
  const json arr = json::array(), obj = json::object();
  fill(doc, {{"run", obj}, {"totals", obj}, {"kernels", arr}});
  fill(doc["totals"], {{"kernel_dtypes", 0}, {"pass", 0}, {"fail", 0}, {"not_graded", 0}, {"elements", 0}});
  for (auto& k : doc["kernels"]) {
    fill(k, {{"family", nullptr}, {"contract", nullptr}, {"results", arr}});
    for (auto& r : k["results"]) {
      fill(r, {{"cases", nullptr}, {"elements", nullptr}, {"exhaustive", false}, {"accuracy", obj}, {"worst", arr},
               {"checks", arr}, {"failures", arr}, {"findings", arr}, {"differences", arr}, {"differs_from_reference", 0},
               {"coverage", obj}, {"error_profile", obj}});
      fill(r["accuracy"], {{"graded", nullptr}, {"special", nullptr}, {"replayed", 0}, {"oracle_escalations", nullptr},
                           {"max_frac_ulp", nullptr}, {"mean_frac_ulp", nullptr}, {"p99_frac_ulp", nullptr},
                           {"max_distance", nullptr}, {"max_absolute", nullptr}, {"max_relative", nullptr},
                           {"at_max_distance", nullptr}, {"at_max_relative", nullptr},
                           {"correctly_rounded_share", nullptr}, {"max_normalized", nullptr},
                           {"mean_normalized", nullptr}, {"bias_mean", nullptr}, {"bias_stderr", nullptr},
                           {"histogram", obj}});
      fill(r["coverage"], {{"value_classes", obj}, {"shape_classes", obj}, {"outputs", 0}, {"outputs_zero", 0}, {"outputs_nan", 0}});
      fill(r["error_profile"], {{"x_lo", arr}, {"x_hi", arr}, {"max_frac_ulp", arr}});
      for (auto& c : r["checks"])
        fill(c, {{"name", ""}, {"kind", ""}, {"profile", "conformance"}, {"passed", 0}, {"failed", 0}, {"differs", 0},
                 {"not_graded", 0}, {"detail", ""}});
    }
  }
  return doc;
}

}  // namespace kc::reports::site
