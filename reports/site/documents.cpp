// Reading, checking and merging results documents before any page is drawn:
// a bad document is a usage error with a message, never a half-drawn site.
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "reports/results_json.h"
#include "reports/site/site.h"

namespace kc::reports::site {

namespace fs = std::filesystem;

json load_document(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) throw UsageError(fmt::format("cannot read results document '{}'", p.string()));
  json doc;
  try {
    f >> doc;
  } catch (const json::exception& e) {
    throw UsageError(fmt::format("'{}' is not valid JSON: {}", p.string(), e.what()));
  }
  validate_document(doc, p.string());
  return doc;
}

void validate_document(const json& doc, const std::string& where) {
  auto bad = [&](const std::string& what) { throw UsageError(fmt::format("'{}' is not a kconform results document: {}", where, what)); };
  if (!doc.is_object()) bad("not a JSON object");
  if (doc.value("schema", "") != kSchema) bad(fmt::format("schema is not \"{}\"", kSchema));
  if (!doc.contains("run") || !doc["run"].is_object()) bad("no \"run\" object");
  if (!doc.contains("totals") || !doc["totals"].is_object()) bad("no \"totals\" object");
  if (!doc.contains("kernels") || !doc["kernels"].is_array()) bad("no \"kernels\" array");
  for (const auto& k : doc["kernels"]) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) bad("a kernel without a name");
    const std::string name = k["name"].get<std::string>();
    if (!k.contains("results") || !k["results"].is_array()) bad(fmt::format("kernel '{}' has no \"results\" array", name));
    for (const auto& r : k["results"]) {
      for (const char* f : {"dtype", "verdict"})
        if (!r.contains(f) || !r[f].is_string()) bad(fmt::format("a result of kernel '{}' has no string \"{}\"", name, f));
      for (const char* f : {"accuracy", "coverage"})
        if (!r.contains(f) || !r[f].is_object()) bad(fmt::format("{} {}: no \"{}\" object", name, r["dtype"].get<std::string>(), f));
      for (const char* f : {"worst", "checks", "failures"})
        if (!r.contains(f) || !r[f].is_array()) bad(fmt::format("{} {}: no \"{}\" array", name, r["dtype"].get<std::string>(), f));
      if (!r.contains("exhaustive") || !r["exhaustive"].is_boolean())
        bad(fmt::format("{} {}: no boolean \"exhaustive\"", name, r["dtype"].get<std::string>()));
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
               {"checks", arr}, {"failures", arr}, {"coverage", obj}, {"error_profile", obj}});
      fill(r["accuracy"], {{"graded", nullptr}, {"special", nullptr}, {"replayed", 0}, {"oracle_escalations", nullptr},
                           {"max_frac_ulp", nullptr}, {"mean_frac_ulp", nullptr}, {"p99_frac_ulp", nullptr},
                           {"max_distance", nullptr}, {"correctly_rounded_share", nullptr}, {"max_normalized", nullptr},
                           {"mean_normalized", nullptr}, {"bias_mean", nullptr}, {"bias_stderr", nullptr},
                           {"histogram", obj}});
      fill(r["coverage"], {{"value_classes", obj}, {"shape_classes", obj}, {"outputs", 0}, {"outputs_zero", 0}, {"outputs_nan", 0}});
      fill(r["error_profile"], {{"x_lo", arr}, {"x_hi", arr}, {"max_frac_ulp", arr}});
      for (auto& c : r["checks"]) fill(c, {{"name", ""}, {"kind", ""}, {"passed", 0}, {"failed", 0}, {"detail", ""}});
    }
  }
  return doc;
}

json merge_documents(const std::vector<json>& docs) {
  if (docs.empty()) throw UsageError("no results document given");
  if (docs.size() == 1) return docs[0];
  json out{{"schema", kSchema}, {"run", docs[0]["run"]}, {"runs", json::array()}, {"kernels", json::array()}};
  std::set<std::pair<std::string, std::string>> seen;
  std::int64_t pass = 0, fail = 0, not_graded = 0, elements = 0, n = 0;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    out["runs"].push_back(docs[i]["run"]);
    for (const auto& k : docs[i]["kernels"]) {
      const std::string name = k["name"].get<std::string>();
      json* entry = nullptr;
      for (auto& e : out["kernels"])
        if (e["name"] == name) entry = &e;
      if (!entry) {
        json copy = k;
        copy["results"] = json::array();
        out["kernels"].push_back(copy);
        entry = &out["kernels"].back();
      }
      for (auto r : k["results"]) {
        const std::string dt = r["dtype"].get<std::string>();
        if (!seen.insert({name, dt}).second)
          throw UsageError(fmt::format("kernel '{}' dtype {} appears in more than one results document; merge needs "
                                       "each kernel x dtype once", name, dt));
        r["run_index"] = i + 1;
        const std::string v = r["verdict"].get<std::string>();
        pass += v == "pass", fail += v == "fail", not_graded += v == "not_graded", ++n;
        elements += r.value("elements", std::int64_t{0});
        (*entry)["results"].push_back(std::move(r));
      }
    }
  }
  out["totals"] = {{"kernel_dtypes", n}, {"pass", pass}, {"fail", fail}, {"not_graded", not_graded}, {"elements", elements}};
  return out;
}

}  // namespace kc::reports::site
