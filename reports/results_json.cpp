// RunResults -> the results document (docs/results-schema.md).
#include "reports/results_json.h"

#include <gmp.h>
#include <gnu/libc-version.h>
#include <mpfr.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "reports/build_info.h"

namespace kc::reports {

using nlohmann::json;

namespace {

json element_json(const engine::ElementReport& e) {
  json j{{"check", e.check},
         {"case", e.case_index},
         {"element", e.element},
         {"shape", e.dims},
         {"params", e.params},
         {"input", number(e.input)},
         {"input_hex", e.input_hex},
         {"result", number(e.result)},
         {"result_hex", e.result_hex},
         {"exact", e.exact},
         {"correctly_rounded", number(e.correctly_rounded)},
         {"correctly_rounded_hex", e.correctly_rounded_hex},
         {"frac_ulp", number(e.frac_ulp)},
         {"distance", e.distance},
         {"bound", number(e.bound)},
         {"repro", e.repro},
         {"message", e.message}};
  j["normalized"] = e.normalized ? number(*e.normalized) : json(nullptr);
  if (e.shrunk_elements >= 0) j["shrunk_elements"] = e.shrunk_elements;
  return j;
}

json histogram_json(const engine::Histogram& h) {
  json edges = json::array();
  for (double e : h.edges) edges.push_back(number(e));
  return {{"metric", h.metric}, {"edges", edges}, {"counts", h.counts}, {"failing", h.failing}};
}

json nan_as_null(double v) { return std::isnan(v) ? json(nullptr) : number(v); }

json opt(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }

// The accuracy summary of a result: its statistics, worst elements and histograms.
json accuracy_json(const engine::AccuracyStats& a) {
  json acc{{"graded", a.graded},
           {"special", a.special},
           {"replayed", a.replayed},
           {"oracle_escalations", a.oracle_escalations},
           {"max_frac_ulp", number(a.max_frac_ulp)},
           {"mean_frac_ulp", number(a.mean_frac_ulp)},
           {"p99_frac_ulp", number(a.p99_frac_ulp)},
           {"max_distance", a.max_distance},
           {"max_absolute", number(a.max_absolute)},
           {"max_relative", number(a.max_relative)},
           {"at_max_distance", a.at_max_distance ? element_json(*a.at_max_distance) : json(nullptr)},
           {"at_max_relative", a.at_max_relative ? element_json(*a.at_max_relative) : json(nullptr)},
           {"correctly_rounded_share", number(a.correctly_rounded_share)},
           {"not_correctly_rounded", a.not_correctly_rounded},
           {"max_normalized", opt(a.max_normalized)},
           {"mean_normalized", opt(a.mean_normalized)},
           {"bias_mean", opt(a.bias_mean)},
           {"bias_stderr", opt(a.bias_stderr)},
           {"bias_samples", a.bias_samples}};
  acc["histogram"] = histogram_json(a.histogram);
  acc["distance_histogram"] = a.distance_histogram ? histogram_json(*a.distance_histogram) : json(nullptr);
  acc["normalized_histogram"] = a.normalized_histogram ? histogram_json(*a.normalized_histogram) : json(nullptr);
  return acc;
}

// One entry per check of the result, with its figure against its bound where it has one.
json checks_json(const engine::KernelDTypeResult& r) {
  json checks = json::array();
  for (const auto& c : r.checks) {
    json cj{{"name", c.name},     {"kind", engine::kCheckKinds.name(c.kind)}, {"profile", engine::kProfiles.name(c.profile)},       {"passed", c.passed},
            {"failed", c.failed}, {"differs", c.differs}, {"not_graded", c.not_graded}, {"detail", c.detail}};
    if (c.figure) cj["figure"] = {{"metric", c.metric}, {"value", number(*c.figure)}, {"bound", opt(c.bound)}};
    checks.push_back(cj);
  }
  return checks;
}

// What decides a result: its findings, as the result orders them (a failure's leading one first).
json findings_json(const engine::KernelDTypeResult& r) {
  json findings = json::array();
  for (const auto& f : r.findings)
    findings.push_back({{"check", f.check}, {"kind", engine::kCheckKinds.name(f.kind)}, {"metric", f.metric}, {"figure", number(f.figure)},
                        {"bound", number(f.bound)}, {"count", f.count}, {"text", f.text},
                        {"failure", f.failure}, {"bound_text", f.bound_text}});
  return findings;
}

// The error profile as parallel arrays per slice (a slice that graded nothing: null).
json error_profile_json(const engine::ErrorProfile& p) {
  json prof{{"x_lo", json::array()}, {"x_hi", json::array()}, {"max_frac_ulp", json::array()},
            {"max_distance", json::array()}, {"max_normalized", json::array()}, {"failed", p.failed}};
  for (std::size_t i = 0; i < p.max_frac_ulp.size(); ++i) {
    prof["x_lo"].push_back(number(p.x_lo[i]));
    prof["x_hi"].push_back(number(p.x_hi[i]));
    prof["max_frac_ulp"].push_back(nan_as_null(p.max_frac_ulp[i]));
    prof["max_distance"].push_back(nan_as_null(p.max_distance[i]));
    prof["max_normalized"].push_back(nan_as_null(p.max_normalized[i]));
  }
  return prof;
}

}  // namespace

json result_json(const engine::KernelDTypeResult& r) {
  const json acc = accuracy_json(r.accuracy);
  const json checks = checks_json(r);
  const json findings = findings_json(r);
  json worst = json::array(), failures = json::array(), differences = json::array();
  for (const auto& w : r.worst) worst.push_back(element_json(w));
  for (const auto& f : r.failures) failures.push_back(element_json(f));
  for (const auto& d : r.differences) differences.push_back(element_json(d));
  const json prof = error_profile_json(r.profile);
  json out{{"dtype", dtype_name(r.dtype)},
          {"verdict", engine::verdict_name(r.verdict)},
          {"headline", r.headline},
          {"findings", findings},
          {"exhaustive", r.exhaustive},
          {"interrupted", r.interrupted},
          {"cases", r.cases},
          {"elements", r.elements},
          {"inputs_digest", fmt::format("{:016x}", r.inputs_digest)},
          {"accuracy", acc},
          {"worst", worst},
          {"checks", checks},
          {"failures", failures},
          {"differs_from_reference", r.differs},
          {"declared",
           {{"claim_metric", r.declared.metric},
            {"claimed", r.declared.metric.empty() ? json(nullptr) : number(r.declared.claimed)},
            {"contract_bound", opt(r.declared.contract_bound)},
            {"measured", r.declared.metric.empty() ? json(nullptr) : number(r.declared.measured)},
            {"claim_verdict", engine::claim_verdict_name(r.declared.verdict)},
            {"expected_failure", r.declared.expected_failure},
            {"expected_outcome", r.declared.expected_outcome}}},
          {"differences", differences},
          {"coverage",
           {{"value_classes", r.coverage.value_classes},
            {"shape_classes", r.coverage.shape_classes},
            {"result_classes", r.coverage.result_classes},
            {"outputs", r.coverage.outputs},
            {"outputs_zero", r.coverage.outputs_zero},
            {"outputs_nan", r.coverage.outputs_nan}}},
          {"error_profile", prof},
          {"seconds", r.seconds}};
  if (!r.printed.empty()) {  // (a plug-in's kernels only: the reference prints nothing)
    json printed = json::array();
    for (const auto& p : r.printed) printed.push_back({{"case", p.case_index}, {"bytes", p.bytes}, {"text", p.text}});
    out["printed"] = printed;
  }
  return out;
}

namespace {

std::string read_first_line(const char* path, const char* key) {
  FILE* f = std::fopen(path, "r");
  if (!f) return "";
  char buf[512];
  std::string out;
  while (std::fgets(buf, sizeof buf, f)) {
    std::string line(buf);
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      out = line.substr(colon + 1);
      while (!out.empty() && (out.front() == ' ' || out.front() == '\t')) out.erase(out.begin());
      while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
      break;
    }
  }
  std::fclose(f);
  return out;
}

}  // namespace

engine::RunMetadata collect_metadata(std::uint64_t seed, const std::string& backend, const std::string& command) {
  engine::RunMetadata m;
  m.seed = seed;
  m.backend = backend;
  m.command = command;
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  m.started_at = buf;
  utsname u{};
  uname(&u);
  const std::string cpu = read_first_line("/proc/cpuinfo", "model name");
  m.machine = fmt::format("{} {} {}, {} cores{}", u.sysname, u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN),
                          cpu.empty() ? "" : ", " + cpu);
  m.compiler = build::kCompiler;
  m.flags = build::kFlags;
  m.commit = build::kCommit;
  m.kconform = build::kVersion;
  m.mpfr = mpfr_get_version();
  m.gmp = gmp_version;
  m.glibc = gnu_get_libc_version();
  m.boost = fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  return m;
}

json run_json(const engine::RunMetadata& m) {
  json run{{"seed", m.seed},         {"backend", m.backend}, {"profile", engine::kProfiles.name(m.profile)}, {"command", m.command},   {"started_at", m.started_at},
           {"duration_s", m.duration_s}, {"machine", m.machine}, {"compiler", m.compiler}, {"flags", m.flags},
           {"commit", m.commit},     {"kconform", m.kconform}, {"mpfr", m.mpfr},       {"gmp", m.gmp},
           {"glibc", m.glibc},       {"boost", m.boost},     {"cases_per_kernel", m.cases_per_kernel}};
  if (m.plugin) {
    run["plugin"] = {{"name", m.plugin->name}, {"version", m.plugin->version}, {"build_flags", m.plugin->build_flags},
                     {"path", m.plugin->path}};
    if (!m.plugin->notes.empty()) run["plugin"]["notes"] = m.plugin->notes;
  }
  if (!m.interrupted_by.empty()) {
    run["interrupted_by"] = m.interrupted_by;
    run["planned"] = m.planned;
  }
  return run;
}

json document_json(const engine::RunMetadata& m, const std::vector<ResultEntry>& results, const Backend* backend) {
  json kernels = json::array();
  std::int64_t pass = 0, fail = 0, not_graded = 0, elements = 0;
  for (const auto& res : results) {
    json* entry = nullptr;
    for (auto& k : kernels)
      if (k["name"] == res.kernel) entry = &k;
    if (!entry) {
      const contract::KernelSpec* spec = contract::find_kernel(res.kernel);
      kernels.push_back({{"name", res.kernel},
                         {"family", res.family},
                         {"contract", spec ? contract_json(*spec, backend) : json(nullptr)},
                         {"results", json::array()}});
      entry = &kernels.back();
    }
    (*entry)["results"].push_back(res.result);
    const std::string v = res.result.value("verdict", "");
    pass += v == "pass";
    fail += v == "fail";
    not_graded += v == "not_graded";
    elements += res.result.value("elements", std::int64_t{0});
  }
  return {{"schema", kSchema},
          {"run", run_json(m)},
          {"totals", {{"kernel_dtypes", results.size()}, {"pass", pass}, {"fail", fail}, {"not_graded", not_graded},
                      {"elements", elements}}},
          {"kernels", kernels}};
}

json results_json(const engine::RunResults& r, const Backend* backend) {
  std::vector<ResultEntry> entries;
  for (const auto& res : r.results) entries.push_back({res.kernel, res.family, result_json(res)});
  return document_json(r.run, entries, backend);
}

}  // namespace kc::reports
