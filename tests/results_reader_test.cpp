// The typed reader of a results document's result (reports/results_reader.h):
// every optional part reads back as written, and a damaged result is a
// UsageError naming the field, never undefined behaviour.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/error.h"
#include "reports/results_json.h"
#include "reports/results_reader.h"
#include "tests/read_back.h"

namespace kc {
namespace {

engine::ElementReport shrunk_failure() {
  return {.check = "accuracy", .case_index = 7, .element = 3, .dims = "[4, 2]", .params = "n=3", .input = -0.0,
          .input_hex = "0x80000000", .result = std::numeric_limits<double>::infinity(), .result_hex = "0x7f800000",
          .exact = "1.5", .correctly_rounded = 1.5, .correctly_rounded_hex = "0x3fc00000",
          .frac_ulp = std::numeric_limits<double>::infinity(), .distance = -1, .normalized = 2.25, .bound = 1,
          .repro = "kconform run --kernel exp --dtype f32 --case 7", .message = "a < b & c", .shrunk_elements = 2, .run_index = 3};
}

// A result with every optional part present: a claim, a check's figure,
// the distance and normalized histograms, a slice that graded nothing,
// printed output, a shrunk failure and the runs of a merge.
engine::KernelDTypeResult full_result() {
  engine::KernelDTypeResult r;
  r.kernel = "exp";
  r.family = "unary";
  r.dtype = DType::bf16;
  r.verdict = engine::Verdict::fail;
  r.headline = "integer distance 2 > 1 on 3 elements";
  r.findings.push_back({.check = "accuracy", .kind = engine::CheckKind::accuracy, .metric = "integer distance",
                        .figure = 2, .bound = 1, .count = 3, .text = r.headline, .failure = "too_far", .bound_text = "1"});
  r.exhaustive = true;
  r.cases = 12;
  r.elements = 65536;
  r.inputs_digest = 0x0123456789abcdefULL;
  r.accuracy.graded = 65000;
  r.accuracy.max_frac_ulp = std::numeric_limits<double>::infinity();
  r.accuracy.max_normalized = 0.5;
  r.accuracy.bias_mean = -1e-3;
  r.accuracy.at_max_distance = shrunk_failure();
  r.accuracy.histogram = {.metric = "fractional ulp", .edges = {0, 0.5, std::numeric_limits<double>::infinity()},
                          .counts = {3, 4}, .failing = {0, 1}};
  r.accuracy.distance_histogram = r.accuracy.histogram;
  r.accuracy.normalized_histogram = r.accuracy.histogram;
  r.worst = {shrunk_failure()};
  r.failures = {shrunk_failure()};
  r.differences = {shrunk_failure()};
  r.checks.push_back({.name = "bias", .kind = engine::CheckKind::bias, .profile = engine::Profile::reference,
                      .passed = 1, .failed = 2, .differs = 3, .not_graded = 4, .detail = "z = 11", .metric = "|z|",
                      .figure = 11.1, .bound = 6});
  r.checks.push_back({.name = "accuracy", .kind = engine::CheckKind::accuracy, .metric = "x", .figure = 1.0});
  r.differs = 5;
  r.declared = {.metric = "frac_ulp", .claimed = 4, .contract_bound = 1, .measured = 2.5,
                .verdict = engine::ClaimVerdict::confirmed, .expected_failure = "known", .expected_outcome = "failed as expected"};
  r.printed.push_back({.case_index = -1, .bytes = 12, .text = "hello\n"});
  r.coverage.value_classes = {{"zero", 3}, {"nan", 1}};
  r.coverage.outputs = 9;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  r.profile = {.x_lo = {-1, 0}, .x_hi = {0, 1}, .max_frac_ulp = {0.25, nan}, .max_distance = {1, nan},
               .max_normalized = {nan, nan}, .failed = {1, 0}};
  r.seconds = 0.125;
  // (What a merge of runs adds.)
  r.accuracy.p99_is_upper_bound = true;
  r.run_indices = {1, 2, 3};
  return r;
}

TEST(ResultsReader, EveryOptionalPartReadsBack) {
  testing_support::expect_reads_back(full_result(), "full result");
  testing_support::expect_reads_back(engine::KernelDTypeResult{.kernel = "k", .family = "f"}, "empty result");
  testing_support::expect_reads_back(engine::KernelDTypeResult{.kernel = "k", .family = "f", .run_index = 2}, "one run's result");
}

// The message of the UsageError that reading `j` raises ("" if none).
std::string error_of(const nlohmann::json& j) {
  try {
    (void)reports::read_result(j, "exp", "unary", "kernel 'exp' dtype bf16");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultsReader, DamagedResultsAreUsageErrorsNamingTheField) {
  const nlohmann::json good = reports::result_json(full_result());
  ASSERT_EQ(error_of(good), "");
  struct Damage {
    const char* what;
    void (*apply)(nlohmann::json&);
    const char* message;
  };
  const Damage damages[] = {
      {"verdict missing", [](nlohmann::json& j) { j.erase("verdict"); }, "field 'verdict' is missing"},
      {"unknown verdict", [](nlohmann::json& j) { j["verdict"] = "maybe"; }, "field 'verdict' is 'maybe', not one of pass, fail, not_graded"},
      {"count as text", [](nlohmann::json& j) { j["cases"] = "12"; }, "field 'cases' is of another type, not an integer"},
      {"count as float", [](nlohmann::json& j) { j["elements"] = 1e300; }, "field 'elements'"},
      {"digest not hex", [](nlohmann::json& j) { j["inputs_digest"] = "xyz"; }, "inputs_digest: 'xyz' is not 16 hex digits"},
      {"unknown dtype", [](nlohmann::json& j) { j["dtype"] = "f8"; }, "'f8' is not a dtype"},
      {"check kind", [](nlohmann::json& j) { j["checks"][0]["kind"] = 3; }, ".checks[0]: field 'kind'"},
      {"failure not an object", [](nlohmann::json& j) { j["failures"][0] = 1; }, ".failures[0]: not a JSON object"},
      {"histogram count", [](nlohmann::json& j) { j["accuracy"]["histogram"]["counts"][1] = "x"; },
       ".accuracy.histogram.counts[1]: not an integer"},
      {"profile lengths", [](nlohmann::json& j) { j["error_profile"]["failed"].push_back(1); },
       "its arrays are not all of one length"},
      {"coverage count", [](nlohmann::json& j) { j["coverage"]["value_classes"]["zero"] = -0.5; },
       ".coverage.value_classes.zero: not an integer"},
      {"object missing", [](nlohmann::json& j) { j.erase("declared"); }, "field 'declared' is missing, not an object"},
      {"object of another type", [](nlohmann::json& j) { j["coverage"] = 3; }, "field 'coverage' is of another type, not an object"},
      {"not an object", [](nlohmann::json& j) { j = nlohmann::json::array(); }, "kernel 'exp' dtype bf16: not a JSON object"},
  };
  for (const auto& d : damages) {
    nlohmann::json j = good;
    d.apply(j);
    const std::string message = error_of(j);
    EXPECT_NE(message.find(d.message), std::string::npos) << d.what << ": " << message;
    EXPECT_NE(message.find("kernel 'exp' dtype bf16"), std::string::npos) << d.what << ": " << message;
  }
}

}  // namespace
}  // namespace kc
