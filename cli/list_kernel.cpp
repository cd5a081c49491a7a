// `kconform list KERNEL`: one contract in full, as a plug-in author needs
// it to write the kernel: its operands, dtypes, parameters with their
// domains, outputs, every precondition rule with what the plug-in ABI
// returns for it, the special-value rules, the properties, and the
// accuracy bound per tier (the contract's and each built-in tier's).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/plugin/plugin_backend.h"
#include "cli/commands.h"
#include "core/backend.h"
#include "core/error.h"
#include "engine/accuracy_tier.h"
#include "reports/results_json.h"

namespace kc::cli {

namespace {

void print_operands(const contract::KernelSpec& k) {
  fmt::print("inputs (in call order):\n");
  for (const auto& in : k.inputs)
    fmt::print("  {:<12} {:<22} rank {}..{}{}\n", in.name, in.dtypes.to_string(), in.min_rank, in.max_rank,
               in.optional ? " (optional: calls are made with and without it)" : "");
  fmt::print("parameters (kc_param, by name):\n");
  if (k.params.empty()) fmt::print("  (none)\n");
  for (const auto& p : k.params)
    fmt::print("  {:<12} {:<8} {}\n", p.name, contract::param_kind_name(p.kind), p.domain);
  fmt::print("outputs:\n");
  for (std::size_t i = 0; i < k.outputs.size(); ++i)
    fmt::print("  {:<12} {}\n", k.outputs[i].name.empty() ? "(the output)" : k.outputs[i].name,
               k.outputs[i].dtype ? dtype_name(*k.outputs[i].dtype) : "the input's dtype");
}

void print_preconditions(const contract::KernelSpec& k) {
  fmt::print("preconditions (a call that breaks one must be rejected, naming the rule and the operand):\n");
  fmt::print("  {:<24} {:<10} {:<36} {}\n", "rule", "operand", "plug-in returns", "rule text");
  for (const auto& p : k.preconditions) {
    const auto status = plugin::status_for_rule(p.rule);
    const std::string how = status ? std::string(*status) : fmt::format("kc_error.rule = \"{}\"", rule_name(p.rule));
    fmt::print("  {:<24} {:<10} {:<36} {}{}\n", rule_name(p.rule), p.operand, how, p.text,
               !p.reference_limit ? ""
               : p.ungraded_result ? " [the reference's limit: the conformance profile also accepts a result, not graded]"
               : p.defined_result  ? " [the reference's limit: the conformance profile also accepts the defined result]"
                                  : " [the reference's limit: the conformance profile also accepts the empty result]");
  }
}

void print_allowed_rejections(const contract::KernelSpec& k) {
  if (k.allowed_rejections.empty()) return;
  fmt::print("valid calls the reference answers that a correct implementation may also reject (this rule, this operand):\n");
  for (const auto& a : k.allowed_rejections) {
    const auto status = plugin::status_for_rule(a.rule);
    fmt::print("  {:<24} {:<10} {:<36} {}\n", rule_name(a.rule), a.operand,
               status ? std::string(*status) : fmt::format("kc_error.rule = \"{}\"", rule_name(a.rule)), a.why);
  }
}

void print_specials_and_properties(const contract::KernelSpec& k) {
  if (!k.specials.empty()) {
    fmt::print("special values (input -> output; 'also': another answer the conformance profile accepts):\n");
    for (const auto& s : k.specials) {
      std::vector<std::string_view> also;
      for (auto o : s.also) also.push_back(contract::outcome_name(o));
      fmt::print("  {} -> {}{}\n", contract::value_class_name(s.input), contract::outcome_name(s.output),
                 also.empty() ? "" : fmt::format(" (also {})", fmt::join(also, ", ")));
    }
  }
  if (!k.properties.empty()) {
    fmt::print("properties:\n");
    for (const auto& p : k.properties)
      fmt::print("  {} (check {}{})\n", p.name, p.check, p.dtypes.empty() ? "" : "; " + p.dtypes.to_string());
  }
}

void print_accuracy(const contract::KernelSpec& k) {
  const auto ref = make_backend("reference");
  std::vector<engine::AccuracyTier> tiers;
  for (const auto& name : engine::builtin_tier_names()) tiers.push_back(*engine::load_tier(name, *ref, {}));
  fmt::print("accuracy bound per dtype and tier (--accuracy; 'claimed' is the plug-in's own claim):\n");
  for (const auto& a : k.accuracy) {
    fmt::print("  {:<5} reference: {}\n", dtype_name(a.dtype), contract::bound_summary(a.accuracy));
    for (const auto& t : tiers)
      if (const contract::Accuracy* b = t.find(k.name, a.dtype))
        fmt::print("        {}: {}\n", t.name, contract::bound_summary(*b));
  }
}

}  // namespace

int list_backend(const std::string& spec, bool json) {
  const auto b = make_backend(spec);
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : contract::all_kernels()) {
    const auto dtypes = b->supported(k.name);
    if (!dtypes) continue;
    nlohmann::json e{{"kernel", k.name}, {"dtypes", nlohmann::json::array()}, {"claims", nlohmann::json::array()},
                     {"not_graded", nlohmann::json::array()}};
    for (DType t : dtypes->list()) {
      if (!k.accuracy_for(t)) {  // (a dtype the contract does not list is never graded: said so)
        if (!k.operand_dtypes().contains(t)) e["not_graded"].push_back(dtype_name(t));  // (not an index's u32)
        continue;
      }
      e["dtypes"].push_back(dtype_name(t));
      const Backend::Declared d = b->declared(k.name, t);
      if (!d.claim_metric.empty())
        e["claims"].push_back({{"dtype", dtype_name(t)}, {"metric", d.claim_metric}, {"bound", d.claim_bound}});
    }
    if (!e["dtypes"].empty() || !e["not_graded"].empty()) kernels.push_back(e);
  }
  const auto lib = b->library();
  const nlohmann::json doc{{"backend", spec},
                           {"library", lib ? nlohmann::json{{"name", lib->name}, {"version", lib->version},
                                                            {"build_flags", lib->build_flags}}
                                           : nlohmann::json(nullptr)},
                           {"kernels", kernels}};
  if (json) {
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  if (lib) fmt::print("{} {} (built with {})\n", lib->name, lib->version, lib->build_flags);
  for (const auto& e : kernels) {
    std::string claims;
    for (const auto& c : e["claims"])
      claims += fmt::format("{}{} {} <= {}", claims.empty() ? "; claims " : ", ", c["dtype"].get<std::string>(),
                            c["metric"].get<std::string>(), c["bound"].get<double>());
    const auto ungraded = e["not_graded"].get<std::vector<std::string>>();
    fmt::print("  {:<24} {}{}{}\n", e["kernel"].get<std::string>(), fmt::join(e["dtypes"].get<std::vector<std::string>>(), " "),
               claims,
               ungraded.empty() ? ""
                                : fmt::format("; declared, not graded (the contract has no model): {}", fmt::join(ungraded, " ")));
  }
  return 0;
}

int list_kernel(const std::string& name, bool json) {
  const contract::KernelSpec* k = contract::find_kernel(name);
  if (!k) throw UsageError(fmt::format("unknown kernel '{}' (kconform list shows them all)", name));
  if (json) {
    const auto ref = make_backend("reference");
    fmt::print("{}\n", reports::contract_json(*k, ref.get()).dump(2));
    return 0;
  }
  fmt::print("{} ({}): {}\n", k->name, k->family, k->summary);
  print_operands(*k);
  print_preconditions(*k);
  print_allowed_rejections(*k);
  print_specials_and_properties(*k);
  print_accuracy(*k);
  if (!k->notes.empty()) fmt::print("notes: {}\n", k->notes);
  return 0;
}

}  // namespace kc::cli
