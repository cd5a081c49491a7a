// Merging results documents (reports/merge.h): the results of one kernel x
// dtype from several runs (other seeds, other shards) are read back typed
// (reports/results_reader.h), combined (engine/combine.h) and written as
// a run writes a result.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "checks/bias.h"
#include "engine/combine.h"
#include "engine/findings.h"
#include "reports/json_number.h"
#include "reports/merge.h"
#include "reports/results_json.h"
#include "reports/results_reader.h"

namespace kc::reports {

namespace {

using nlohmann::json;

// The contract's figures a passing result's headline shows, from the
// accuracy entry of a document's contract.
engine::ModelFigures model_figures(const json& model) {
  engine::ModelFigures m;
  if (!model.is_object() || !field(model, "kind").is_string()) return m;
  for (auto k : {contract::AccuracyKind::exact, contract::AccuracyKind::correctly_rounded,
                 contract::AccuracyKind::ulp_bound, contract::AccuracyKind::condition_aware})
    if (contract::accuracy_kind_name(k) == model["kind"].get<std::string>()) m.kind = k;
  m.frac_bound_text = model.contains("bound_depends_on") ? "its bound"
                                                         : engine::figure_text(as_double(field(model, "max_frac_ulp")).value_or(0));
  m.distance_bound = integer_or(field(model, "max_distance"), -1);
  return m;
}

// The identity of the cases a run graded: its seed and its shard.
std::string cases_identity(const json& run) {
  return field(run, "seed").dump() + "/" + field(run, "shard").dump();
}

// One kernel x dtype from two runs of `profile`, combined typed.
json merge_results(const json& a, const json& b, const json& contract, engine::Profile profile, const std::string& where) {
  const json kernel{{"contract", contract}};
  const std::string dtype = field(a, "dtype").is_string() ? a["dtype"].get<std::string>() : "";
  // (The kernel's name and family are the document entry's, not the result's.)
  // (Errors name the run a result came from: a document's results carry their run_index here.)
  auto of_run = [&](const json& result) {
    const auto run = integer(field(result, "run_index"));
    return run ? fmt::format("{} of run {}", where, *run) : where + " of the runs merged before";
  };
  engine::KernelDTypeResult r = read_result(a, "", "", of_run(a));
  const engine::KernelDTypeResult from = read_result(b, "", "", of_run(b));
  if (r.tier.name != from.tier.name)
    throw UsageError(fmt::format("{}: graded under accuracy tier '{}' in one document and '{}' in another; results "
                                 "are merged only under one tier",
                                 where, r.tier.name, from.tier.name));
  // (The pass headline quotes the bound graded: the tier's, recorded in the
  // result; a document before tiers recorded it was graded by the contract's.)
  const json& tier = field(a, "accuracy_tier");
  const json& graded = field(tier, "kind").is_string() ? tier : contract_accuracy(kernel, dtype);
  engine::combine(r, from, {.model = model_figures(graded), .profile = profile, .where = where, .pool = checks::pool_bias});
  return result_json(r);
}

// The profile the documents' runs graded (all the same one).
engine::Profile runs_profile(const std::vector<json>& docs) {
  const json& first = field(field(docs[0], "run"), "profile");
  for (const json& d : docs)
    if (field(field(d, "run"), "profile") != first)
      throw UsageError(fmt::format("the documents grade other profiles ({} and {}): results are merged only within one",
                                   first.dump(), field(field(d, "run"), "profile").dump()));
  // (A document before profiles were written: the reference profile, as the run then graded.)
  return first.is_string() ? engine::kProfiles.find(first.get<std::string>()).value_or(engine::Profile::reference)
                           : engine::Profile::reference;
}

// The documents' runs graded under one accuracy tier (by name and source:
// two tier files may share a name).
void same_tier(const std::vector<json>& docs) {
  auto tier_of = [](const json& d) {
    const json& run = field(d, "run");
    return std::pair{field(run, "accuracy_tier"), field(run, "accuracy_tier_source")};
  };
  const auto first = tier_of(docs[0]);
  for (const json& d : docs)
    if (tier_of(d) != first)
      throw UsageError(fmt::format("the documents grade under other accuracy tiers ({} and {}): results are merged "
                                   "only under one tier",
                                   first.first.dump(), tier_of(d).first.dump()));
}

}  // namespace

json merge_documents(const std::vector<json>& docs) {
  if (docs.empty()) throw UsageError("no results document given");
  if (docs.size() == 1) return docs[0];
  const engine::Profile profile = runs_profile(docs);
  same_tier(docs);
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
        *same = merge_results(*same, r, field(*entry, "contract"), profile, where);
      }
    }
  }
  std::int64_t pass = 0, fail = 0, not_graded = 0, elements = 0, n = 0;
  for (const auto& k : out["kernels"])
    for (const auto& r : k["results"]) {
      const std::string v = r["verdict"].get<std::string>();
      pass += v == "pass", fail += v == "fail", not_graded += v == "not_graded", ++n;
      elements = saturating_add(elements, integer_or(field(r, "elements"), 0));
    }
  out["totals"] = {{"kernel_dtypes", n}, {"pass", pass}, {"fail", fail}, {"not_graded", not_graded}, {"elements", elements}};
  return out;
}

}  // namespace kc::reports
