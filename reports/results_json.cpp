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
           {"glibc", m.glibc},       {"boost", m.boost},     {"cases_per_kernel", m.cases_per_kernel},
           {"accuracy_tier", m.accuracy_tier}, {"accuracy_tier_source", m.accuracy_tier_source}};
  if (m.plugin) {
    run["plugin"] = {{"name", m.plugin->name}, {"version", m.plugin->version}, {"build_flags", m.plugin->build_flags},
                     {"path", m.plugin->path}};
    if (!m.plugin->notes.empty()) run["plugin"]["notes"] = m.plugin->notes;
    run["environment"] = json::object();  // (what a replay sets: the failure may depend on it)
    for (const auto& [name, value] : m.environment) run["environment"][name] = value;
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
