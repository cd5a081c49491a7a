#include "fkc/audit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "fkc/measured.h"

namespace kc::fkc {

using nlohmann::json;

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::confirmed: return "confirmed";
    case Verdict::refuted: return "refuted";
    case Verdict::unclaimed: return "unclaimed";
    case Verdict::not_measured: return "not measured";
  }
  return "?";
}

namespace {

void cite(ClaimAudit& c, const json& element) {
  if (!element.is_object()) return;
  auto s = [&](const char* k) {
    const json& v = element.contains(k) ? element[k] : json();
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
  };
  c.input = s("input");
  c.input_hex = s("input_hex");
  c.repro = s("repro");
}

// A numeric claim held against one dtype's figure.
ClaimAudit numeric(const char* claim, const Measured& m, std::optional<double> claimed, std::optional<double> measured,
                   const json& at) {
  ClaimAudit c{claim, m.dtype, Verdict::not_measured, claimed ? figure(*claimed) : "~", measured ? figure(*measured) : "", "", "", ""};
  if (!claimed) {
    c.verdict = Verdict::unclaimed;
  } else if (measured) {
    // NaN (a document's "NaN") cannot meet a claim either.
    c.verdict = *measured <= *claimed ? Verdict::confirmed : Verdict::refuted;
  }
  if (c.verdict == Verdict::refuted || (c.verdict == Verdict::unclaimed && measured)) cite(c, at);
  return c;
}

}  // namespace

int Audit::count(Verdict v) const {
  int n = 0;
  for (const auto& k : kernels) n += static_cast<int>(std::count_if(k.claims.begin(), k.claims.end(), [&](const auto& c) { return c.verdict == v; }));
  return n;
}

std::vector<std::string> Audit::not_graded() const {
  std::vector<std::string> out;
  for (const auto& k : kernels)
    if (k.dtypes_graded.empty()) out.push_back(k.kernel);
  return out;
}

Audit audit(const std::vector<Document>& docs, const json& results) {
  Audit a{run_summary(results), {}};
  for (const auto& d : docs)
    for (const auto& b : d.blocks) {
      KernelAudit k{d.path, b.line, b.precision_line, b.kernel, {}, {}, {}};
      const auto measured = measured_of(results, b.kernel);
      const Precision& p = b.precision;
      for (const auto& dt : b.dtypes) {
        const auto m = std::find_if(measured.begin(), measured.end(), [&](const Measured& x) { return x.dtype == dt; });
        if (m == measured.end()) {
          k.dtypes_not_graded.push_back(dt);
          continue;
        }
        k.dtypes_graded.push_back(dt);
        k.claims.push_back(numeric("max_ulp", *m, p.max_ulp ? std::optional<double>(*p.max_ulp) : std::nullopt, m->distance, m->at_distance));
        k.claims.push_back(numeric("max_relative", *m, p.max_relative, m->relative, m->at_relative));
        k.claims.push_back(numeric("max_absolute", *m, p.max_absolute, m->absolute, m->at_relative));
        ClaimAudit s{"bit_stable_on_same_hardware", dt, Verdict::not_measured,
                     p.bit_stable_on_same_hardware ? (*p.bit_stable_on_same_hardware ? "true" : "false") : "~", "", "", "", ""};
        if (m->bit_stable) s.measured = fmt::format("{} ({})", *m->bit_stable ? "true" : "false", m->bit_stable_detail);
        // `false` promises nothing, so it is as good as unclaimed.
        if (!p.bit_stable_on_same_hardware || !*p.bit_stable_on_same_hardware) s.verdict = Verdict::unclaimed;
        else if (m->bit_stable) s.verdict = *m->bit_stable ? Verdict::confirmed : Verdict::refuted;
        k.claims.push_back(s);
      }
      a.kernels.push_back(std::move(k));
    }
  return a;
}

json audit_json(const Audit& a) {
  json kernels = json::array();
  for (const auto& k : a.kernels) {
    json claims = json::array();
    for (const auto& c : k.claims) {
      json j{{"claim", c.claim}, {"dtype", c.dtype}, {"verdict", verdict_name(c.verdict)}, {"claimed", c.claimed}, {"measured", c.measured}};
      if (!c.input_hex.empty()) j["at"] = {{"input", c.input}, {"input_hex", c.input_hex}, {"repro", c.repro}};
      claims.push_back(j);
    }
    kernels.push_back({{"file", k.file}, {"line", k.line}, {"precision_line", k.precision_line}, {"kernel", k.kernel}, {"dtypes_graded", k.dtypes_graded},
                       {"dtypes_not_graded", k.dtypes_not_graded}, {"claims", claims}});
  }
  return {{"schema", "kconform-fkc-audit/1"},
          {"run", a.run},
          {"totals",
           {{"confirmed", a.count(Verdict::confirmed)}, {"refuted", a.count(Verdict::refuted)},
            {"unclaimed", a.count(Verdict::unclaimed)}, {"not_measured", a.count(Verdict::not_measured)},
            {"kernels", a.kernels.size()}, {"kernels_not_graded", a.not_graded().size()}}},
          {"kernels", kernels}};
}

std::string audit_text(const Audit& a, bool verbose) {
  std::string s = fmt::format("FKC precision audit against {}\n", a.run);
  for (const auto& k : a.kernels)
    for (const auto& c : k.claims) {
      if (c.verdict != Verdict::refuted && !(verbose && c.verdict != Verdict::not_measured)) continue;
      s += fmt::format("{:<9} {}:{} {} {} {}: claimed {}, measured {}", c.verdict == Verdict::refuted ? "REFUTED" : verdict_name(c.verdict),
                       k.file, k.precision_line, k.kernel, c.dtype, c.claim, c.claimed, c.measured.empty() ? "nothing" : c.measured);
      if (!c.input_hex.empty()) s += fmt::format(" at x = {} ({}); replay: {}", c.input, c.input_hex, c.repro);
      s += "\n";
    }
  const auto ng = a.not_graded();
  s += fmt::format("{} claims confirmed, {} refuted, {} unclaimed, {} not measured, over {} kernels ({} not graded by this run{}{})\n",
                   a.count(Verdict::confirmed), a.count(Verdict::refuted), a.count(Verdict::unclaimed), a.count(Verdict::not_measured),
                   a.kernels.size(), ng.size(), ng.empty() ? "" : ": ", fmt::format("{}", fmt::join(ng, ", ")));
  return s;
}

}  // namespace kc::fkc
