// A digest of a results document: per kernel x dtype, every verdict and
// figure (timings aside), with the bulky blocks (histogram, tallies,
// coverage, error profile, worst cases) as hashes of their JSON. The
// conformance tests compare each run with the digest of the default run
// (seed 1) committed in tests/data/default-run-seed1.digest.json, so that a
// refactor cannot change a result unnoticed. An intended change regenerates
// it: `build/tests/kc_results_digest results/results.json >
// tests/data/default-run-seed1.digest.json`, and its diff shows what moved.
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace kc::testing_support {

using nlohmann::json;

// FNV-1a 64 of the JSON text (nlohmann writes numbers shortest-round-trip
// and objects in key order, so equal documents give equal text).
inline std::string hash_of(const json& j) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : j.dump()) h = (h ^ c) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

// A non-finite figure as the digests have always spelled it ("inf", "NaN"):
// the in-memory mark of reports/json_number.h without its prefix, so that
// a digest does not move with the way documents encode such figures.
inline json plain_nonfinite(json j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s.starts_with("\x01nonfinite:")) return s.substr(11);
  }
  if (j.is_structured())
    for (auto& v : j) v = plain_nonfinite(std::move(v));
  return j;
}

inline json digest_of_result(const json& contract, const json& given) {
  const json r = plain_nonfinite(given);
  json acc = r.at("accuracy");
  const json histogram = acc.at("histogram");
  acc.erase("histogram");
  for (const char* k : {"at_max_distance", "at_max_relative"})
    if (acc.contains(k) && acc[k].is_object()) acc[k].erase("message");
  json worst = json::array();
  for (const auto& w : r.at("worst")) {
    json x = w;
    x.erase("message");  // words may change; the figures, inputs and replay may not
    worst.push_back(x);
  }
  json failures = json::array();
  for (const auto& f : r.at("failures")) failures.push_back({f.at("check"), f.at("repro")});
  return {{"verdict", r.at("verdict")},
          {"exhaustive", r.at("exhaustive")},
          {"cases", r.at("cases")},
          {"elements", r.at("elements")},
          {"accuracy", acc},
          {"histogram", hash_of(histogram)},
          {"checks", hash_of(r.at("checks"))},
          {"coverage", hash_of(r.at("coverage"))},
          {"error_profile", hash_of(r.at("error_profile"))},
          {"worst", hash_of(worst)},
          {"failures", hash_of(failures)},
          {"contract_accuracy", hash_of(plain_nonfinite(contract.at("accuracy")))},
          {"contract_generator", hash_of(plain_nonfinite(contract.at("generator")))}};
}

// {"exp f32": {...}, ...} for every result of a results document.
inline json digest_of_document(const json& doc) {
  json out = json::object();
  for (const auto& k : doc.at("kernels"))
    for (const auto& r : k.at("results"))
      out[k.at("name").get<std::string>() + " " + r.at("dtype").get<std::string>()] =
          digest_of_result(k.at("contract"), r);
  return out;
}

}  // namespace kc::testing_support
