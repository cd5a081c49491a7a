// Merging results documents (reports/merge.h): several runs of one kernel x dtype (other
// seeds, other shards) become one result whose counts are the sums, whose
// maxima and worst cases are the worst of either, whose coverage adds up,
// and whose findings and headline are rewritten in a single run's words
// from the merged figures (engine/findings.h).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "checks/bias.h"
#include "core/error.h"
#include "engine/findings.h"
#include "reports/json_number.h"
#include "reports/results_json.h"
#include "reports/merge.h"
#include "reports/merge_stats.h"

namespace kc::reports {

namespace {

using namespace merging;  // NOLINT: the merge helpers, reports/merge_stats.h
using nlohmann::json;

constexpr std::size_t kWorstKept = 5;     // as a run keeps (engine/tally.cpp)
constexpr std::size_t kProfileSlices = 256;

// Failures and worst cases of both runs, each once: an element by its check
// and input bits, any other failure by its check and message.
void append_unique(json& into, const json& from, std::size_t run_index) {
  std::set<std::pair<std::string, std::string>> seen;
  auto key = [](const json& e) {
    const std::string check = field(e, "check").is_string() ? field(e, "check").get<std::string>() : "";
    const json& hex = field(e, "input_hex");
    const json& id = hex.is_string() && !hex.get<std::string>().empty() ? hex : field(e, "message");
    return std::make_pair(check, id.is_string() ? id.get<std::string>() : id.dump());
  };
  for (const auto& e : into) seen.insert(key(e));
  for (auto e : from.is_array() ? from : json::array()) {
    if (!seen.insert(key(e)).second) continue;
    if (!e.contains("run_index")) e["run_index"] = run_index;
    into.push_back(std::move(e));
  }
}

double worst_key(const json& e) {
  const auto z = as_double(field(e, "normalized"));
  return z ? *z : num(field(e, "frac_ulp"));
}

// The error profile: both runs' slices in input order, regrouped into at
// most 256 slices of equal numbers of slices (maxima of maxima).
json merged_profile(const json& a, const json& b) {
  struct Slice {
    json x_lo, x_hi, frac, dist, norm;
    std::int64_t failed;
  };
  std::vector<Slice> all;
  for (const json* p : {&a, &b}) {
    const json& lo = field(*p, "x_lo");
    for (std::size_t i = 0; lo.is_array() && i < lo.size(); ++i) {
      auto at = [&](const char* k) { return field(*p, k).is_array() && i < field(*p, k).size() ? field(*p, k)[i] : json(); };
      const json f = at("failed");
      all.push_back({lo[i], at("x_hi"), at("max_frac_ulp"), at("max_distance"), at("max_normalized"),
                     integer_or(f, 0)});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Slice& x, const Slice& y) { return num(x.x_lo) < num(y.x_lo); });
  json out{{"x_lo", json::array()}, {"x_hi", json::array()}, {"max_frac_ulp", json::array()},
           {"max_distance", json::array()}, {"max_normalized", json::array()}, {"failed", json::array()}};
  const std::size_t n = all.size(), groups = std::min(kProfileSlices, n);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t lo = g * n / groups, hi = (g + 1) * n / groups;
    Slice s = all[lo];
    for (std::size_t i = lo + 1; i < hi; ++i) {
      if (num(all[i].x_hi) > num(s.x_hi)) s.x_hi = all[i].x_hi;
      s.frac = larger(s.frac, all[i].frac), s.dist = larger(s.dist, all[i].dist), s.norm = larger(s.norm, all[i].norm);
      s.failed = saturating_add(s.failed, all[i].failed);
    }
    out["x_lo"].push_back(s.x_lo), out["x_hi"].push_back(s.x_hi), out["max_frac_ulp"].push_back(s.frac);
    out["max_distance"].push_back(s.dist), out["max_normalized"].push_back(s.norm), out["failed"].push_back(s.failed);
  }
  return out;
}

// The findings of the merged result: the accuracy ones summed by the way
// elements failed, the others from the merged checks; then the headline.
void rewrite_findings(json& r, const json& a, const json& b, const json& model) {
  std::vector<std::pair<std::string, json>> acc;  // by failure, in the order a run lists them
  for (const json* side : {&a, &b})
    for (const auto& f : field(*side, "findings").is_array() ? field(*side, "findings") : json::array()) {
      const json& failure = field(f, "failure");
      if (!failure.is_string() || failure.get<std::string>().empty()) continue;
      const std::string id = failure.get<std::string>();
      auto it = std::find_if(acc.begin(), acc.end(), [&](const auto& p) { return p.first == id; });
      if (it == acc.end()) {
        acc.push_back({id, f});
        continue;
      }
      json& m = it->second;
      m["count"] = saturating_add(count(m, "count"), count(f, "count"));
      m["figure"] = field(m, "metric") == "elements" ? json(m["count"]) : larger(field(m, "figure"), field(f, "figure"));
    }
  std::stable_sort(acc.begin(), acc.end(), [](const auto& x, const auto& y) {
    return engine::accuracy_finding_rank(x.first) < engine::accuracy_finding_rank(y.first);
  });
  json findings = json::array();
  for (auto& [id, f] : acc) {
    const std::string bound_text = field(f, "bound_text").is_string() ? f["bound_text"].get<std::string>() : "";
    f["text"] = engine::accuracy_finding_text(id, count(f, "count"), num(field(f, "figure")), bound_text);
    findings.push_back(f);
  }
  for (const auto& c : r["checks"]) {
    const std::string kind = field(c, "kind").is_string() ? c["kind"].get<std::string>() : "";
    if (count(c, "failed") == 0 || kind == "accuracy" || kind == "special") continue;
    engine::CheckTally t{.name = field(c, "name").is_string() ? c["name"].get<std::string>() : "",
                         .kind = engine::kCheckKinds.find(kind).value_or(engine::CheckKind::run),
                         .passed = count(c, "passed"), .failed = count(c, "failed")};
    if (const json& fig = field(c, "figure"); fig.is_object()) {
      t.metric = field(fig, "metric").is_string() ? fig["metric"].get<std::string>() : "";
      t.figure = as_double(field(fig, "value"));
      t.bound = as_double(field(fig, "bound"));
    }
    const engine::Finding f = engine::check_finding(t);
    findings.push_back({{"check", f.check}, {"kind", kind}, {"metric", f.metric}, {"figure", number(f.figure)},
                        {"bound", number(f.bound)}, {"count", f.count}, {"text", f.text}, {"failure", ""},
                        {"bound_text", f.bound_text}});
  }
  r["findings"] = findings;
  if (!findings.empty()) {
    r["headline"] = findings[0]["text"];
    return;
  }
  const json& acc_j = r["accuracy"];
  engine::PassFigures p{.graded = count(acc_j, "graded"), .special = count(acc_j, "special"),
                        .max_frac_ulp = num(field(acc_j, "max_frac_ulp")),
                        .max_distance = integer_or(field(acc_j, "max_distance"), 0),
                        .max_normalized = as_double(field(acc_j, "max_normalized"))};
  if (model.is_object() && field(model, "kind").is_string()) {
    for (auto k : {contract::AccuracyKind::exact, contract::AccuracyKind::correctly_rounded,
                   contract::AccuracyKind::ulp_bound, contract::AccuracyKind::condition_aware})
      if (contract::accuracy_kind_name(k) == model["kind"].get<std::string>()) p.kind = k;
    p.frac_bound_text = model.contains("bound_depends_on") ? "its bound" : engine::figure_text(num(field(model, "max_frac_ulp")));
    p.distance_bound = integer_or(field(model, "max_distance"), -1);
  }
  r["headline"] = engine::pass_headline(p);
}

// The identity of the cases a run graded: its seed and its shard.
std::string cases_identity(const json& run) {
  return field(run, "seed").dump() + "/" + field(run, "shard").dump();
}

}  // namespace

json merge_results(const json& a, const json& b, const json& contract, const std::string& where) {
  json r = a;
  r["verdict"] = kVerdictOrder[std::max(verdict_rank(field(a, "verdict")), verdict_rank(field(b, "verdict")))];
  r["exhaustive"] = field(a, "exhaustive") == true || field(b, "exhaustive") == true;
  r["interrupted"] = field(a, "interrupted") == true || field(b, "interrupted") == true;
  for (const char* k : {"cases", "elements"}) r[k] = saturating_add(count(a, k), count(b, k));
  r["seconds"] = number(num(field(a, "seconds")) + num(field(b, "seconds")));
  r["accuracy"] = merged_accuracy(field(a, "accuracy"), field(b, "accuracy"), where);
  r["checks"] = merged_checks(field(a, "checks"), field(b, "checks"), r["accuracy"]);
  json runs = field(a, "run_indices").is_array() ? a["run_indices"] : json::array({field(a, "run_index")});
  for (const auto& i : field(b, "run_indices").is_array() ? b["run_indices"] : json::array({field(b, "run_index")}))
    runs.push_back(i);
  r["run_indices"] = runs;
  r.erase("run_index");
  r["failures"] = json::array();
  append_unique(r["failures"], field(a, "failures"), num(field(a, "run_index"), 1));
  append_unique(r["failures"], field(b, "failures"), num(field(b, "run_index"), 1));
  json worst = json::array();
  append_unique(worst, field(a, "worst"), num(field(a, "run_index"), 1));
  append_unique(worst, field(b, "worst"), num(field(b, "run_index"), 1));
  std::stable_sort(worst.begin(), worst.end(), [](const json& x, const json& y) { return worst_key(x) > worst_key(y); });
  if (worst.size() > kWorstKept) worst.erase(worst.begin() + kWorstKept, worst.end());
  r["worst"] = worst;
  json cov = field(a, "coverage").is_object() ? a["coverage"] : json::object();
  for (const char* k : {"value_classes", "shape_classes", "result_classes"}) {
    json m = field(cov, k);
    add_counts(m, field(field(b, "coverage"), k));
    cov[k] = m;
  }
  for (const char* k : {"outputs", "outputs_zero", "outputs_nan"}) cov[k] = saturating_add(count(cov, k), count(field(b, "coverage"), k));
  r["coverage"] = cov;
  r["error_profile"] = merged_profile(field(a, "error_profile"), field(b, "error_profile"));
  // A check that fails in no run, once merged (a pooled bias test), no
  // longer fails the result, nor lists the runs' failures of it.
  bool any_failed = false;
  for (const auto& c : r["checks"]) {
    any_failed = any_failed || count(c, "failed") > 0;
    if (field(c, "kind") == "bias" && count(c, "failed") == 0) {
      json kept = json::array();
      for (auto& f : r["failures"])
        if (field(f, "check") != field(c, "name")) kept.push_back(std::move(f));
      r["failures"] = kept;
    }
  }
  if (!any_failed && r["verdict"] == "fail" && r["failures"].empty()) r["verdict"] = r["interrupted"] == true ? "not_graded" : "pass";
  const json kernel{{"contract", contract}};
  rewrite_findings(r, a, b, contract_accuracy(kernel, field(a, "dtype").is_string() ? a["dtype"].get<std::string>() : ""));
  return r;
}

json merge_documents(const std::vector<json>& docs) {
  if (docs.empty()) throw UsageError("no results document given");
  if (docs.size() == 1) return docs[0];
  json out{{"schema", kSchema}, {"run", docs[0]["run"]}, {"runs", json::array()}, {"kernels", json::array()}};
  // Which runs each kernel x dtype came from, to refuse the same cases twice.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> seen;
  for (std::size_t i = 0; i < docs.size(); ++i) {
    out["runs"].push_back(docs[i]["run"]);
    const std::string identity = cases_identity(docs[i]["run"]);
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
        r["run_index"] = i + 1;
        json* same = nullptr;
        for (auto& e : (*entry)["results"])
          if (e["dtype"] == dt) same = &e;
        if (!same) {
          seen[{name, dt}].insert(identity);
          (*entry)["results"].push_back(std::move(r));
          continue;
        }
        const std::string where = fmt::format("kernel '{}' dtype {}", name, dt);
        if (!seen[{name, dt}].insert(identity).second)
          throw UsageError(fmt::format("{} appears twice from runs with seed {}: the same cases would count twice "
                                       "(merge runs of different seeds or shards)",
                                       where, docs[i]["run"].value("seed", json()).dump()));
        if (field(*entry, "contract") != field(k, "contract"))
          throw UsageError(fmt::format("{}: the documents grade it under different contracts (other kconform "
                                       "versions?); results are merged only under one contract", where));
        *same = merge_results(*same, r, field(*entry, "contract"), where);
      }
    }
  }
  std::int64_t pass = 0, fail = 0, not_graded = 0, elements = 0, n = 0;
  for (const auto& k : out["kernels"])
    for (const auto& r : k["results"]) {
      const std::string v = r["verdict"].get<std::string>();
      pass += v == "pass", fail += v == "fail", not_graded += v == "not_graded", ++n;
      elements = saturating_add(elements, count(r, "elements"));
    }
  out["totals"] = {{"kernel_dtypes", n}, {"pass", pass}, {"fail", fail}, {"not_graded", not_graded}, {"elements", elements}};
  return out;
}

}  // namespace kc::reports
