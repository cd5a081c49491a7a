// JSON -> engine::KernelDTypeResult (reports/results_reader.h), field by
// field as reports/results_json.cpp writes them.
#include "reports/results_reader.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "reports/json_number.h"

namespace kc::reports {

namespace {

using nlohmann::json;

// Reads the fields of one JSON object, each of its expected type, naming
// the object's place in the document when one is missing or wrong.
class Fields {
 public:
  Fields(const json& obj, std::string where) : obj_(obj), where_(std::move(where)) {
    if (!obj.is_object()) throw UsageError(fmt::format("{}: not a JSON object", where_));
  }
  const json& raw(const char* key) const { return field(obj_, key); }
  bool has(const char* key) const { return obj_.contains(key); }
  Fields sub(const char* key) const {
    if (!raw(key).is_object()) wrong(key, "an object");
    return Fields(raw(key), where_ + "." + key);
  }
  std::string where(const char* key) const { return where_ + "." + key; }

  std::string text(const char* key) const {
    const json& v = raw(key);
    if (!v.is_string()) wrong(key, "a string");
    return v.get<std::string>();
  }
  bool flag(const char* key) const {
    const json& v = raw(key);
    if (!v.is_boolean()) wrong(key, "true or false");
    return v.get<bool>();
  }
  std::int64_t count(const char* key) const {
    const auto v = integer(raw(key));
    if (!v) wrong(key, "an integer");
    return *v;
  }
  // A document number ("inf", "-inf" and "NaN" as strings).
  double real(const char* key) const {
    const auto v = as_double(raw(key));
    if (!v) wrong(key, "a number");
    return *v;
  }
  // null: nullopt.
  std::optional<double> optional_real(const char* key) const { return raw(key).is_null() ? std::nullopt : std::optional(real(key)); }
  // The seconds of a result, a plain JSON number.
  double plain_real(const char* key) const {
    const json& v = raw(key);
    if (!v.is_number()) wrong(key, "a number");
    return v.get<double>();
  }
  template <class E, class Table>
  E named(const char* key, const Table& table) const {
    const std::string name = text(key);
    if (const auto v = table.find(name)) return *v;
    throw UsageError(fmt::format("{}: field '{}' is '{}', not one of {}", where_, key, name, fmt::join(table.names, ", ")));
  }
  const json& array(const char* key) const {
    const json& v = raw(key);
    if (!v.is_array()) wrong(key, "an array");
    return v;
  }

 private:
  [[noreturn]] void wrong(const char* key, const char* what) const {
    throw UsageError(fmt::format("{}: field '{}' is {}, not {}", where_, key,
                                 obj_.contains(key) ? "of another type" : "missing", what));
  }
  const json& obj_;
  std::string where_;
};

// The objects of an array field, each read by `read`.
template <class T>
std::vector<T> objects(const Fields& f, const char* key, T (*read)(const Fields&)) {
  std::vector<T> out;
  const json& list = f.array(key);
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(read(Fields(list[i], fmt::format("{}[{}]", f.where(key), i))));
  return out;
}

engine::ElementReport element(const Fields& f) {
  engine::ElementReport e;
  e.check = f.text("check");
  e.case_index = f.count("case");
  e.element = f.count("element");
  e.dims = f.text("shape");
  e.params = f.text("params");
  e.input = f.real("input");
  e.input_hex = f.text("input_hex");
  e.result = f.real("result");
  e.result_hex = f.text("result_hex");
  e.exact = f.text("exact");
  e.correctly_rounded = f.real("correctly_rounded");
  e.correctly_rounded_hex = f.text("correctly_rounded_hex");
  e.frac_ulp = f.real("frac_ulp");
  e.distance = f.count("distance");
  e.normalized = f.optional_real("normalized");
  e.bound = f.real("bound");
  e.repro = f.text("repro");
  e.message = f.text("message");
  if (f.has("shrunk_elements")) e.shrunk_elements = f.count("shrunk_elements");
  if (f.has("run_index")) e.run_index = f.count("run_index");
  return e;
}

std::optional<engine::ElementReport> optional_element(const Fields& f, const char* key) {
  if (f.raw(key).is_null()) return std::nullopt;
  return element(f.sub(key));
}

template <class T>
std::vector<T> values(const Fields& f, const char* key, T (*read)(const json&, const std::string&)) {
  std::vector<T> out;
  const json& list = f.array(key);
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(read(list[i], fmt::format("{}[{}]", f.where(key), i)));
  return out;
}

double real_value(const json& v, const std::string& where) {
  const auto d = as_double(v);
  if (!d) throw UsageError(fmt::format("{}: not a number", where));
  return *d;
}
double real_or_nan(const json& v, const std::string& where) {  // (null: a slice with nothing of it)
  return v.is_null() ? std::numeric_limits<double>::quiet_NaN() : real_value(v, where);
}
std::int64_t count_value(const json& v, const std::string& where) {
  const auto n = integer(v);
  if (!n) throw UsageError(fmt::format("{}: not an integer", where));
  return *n;
}

std::string text_value(const json& v, const std::string& where) {
  if (!v.is_string()) throw UsageError(fmt::format("{}: not a string", where));
  return v.get<std::string>();
}

engine::Histogram histogram(const Fields& f) {
  return {.metric = f.text("metric"), .edges = values(f, "edges", real_value), .counts = values(f, "counts", count_value),
          .failing = values(f, "failing", count_value)};
}
std::optional<engine::Histogram> optional_histogram(const Fields& f, const char* key) {
  if (f.raw(key).is_null()) return std::nullopt;
  return histogram(f.sub(key));
}

engine::AccuracyStats accuracy(const Fields& f) {
  engine::AccuracyStats a;
  a.graded = f.count("graded");
  a.special = f.count("special");
  a.replayed = f.count("replayed");
  a.oracle_escalations = f.count("oracle_escalations");
  a.max_frac_ulp = f.real("max_frac_ulp");
  a.mean_frac_ulp = f.real("mean_frac_ulp");
  a.p99_frac_ulp = f.real("p99_frac_ulp");
  a.max_distance = f.count("max_distance");
  a.max_absolute = f.real("max_absolute");
  a.max_relative = f.real("max_relative");
  a.at_max_distance = optional_element(f, "at_max_distance");
  a.at_max_relative = optional_element(f, "at_max_relative");
  a.correctly_rounded_share = f.real("correctly_rounded_share");
  a.not_correctly_rounded = f.count("not_correctly_rounded");
  a.max_normalized = f.optional_real("max_normalized");
  a.mean_normalized = f.optional_real("mean_normalized");
  a.bias_mean = f.optional_real("bias_mean");
  a.bias_stderr = f.optional_real("bias_stderr");
  a.bias_samples = f.count("bias_samples");
  if (f.has("p99_is_upper_bound")) a.p99_is_upper_bound = f.flag("p99_is_upper_bound");
  a.histogram = histogram(f.sub("histogram"));
  a.distance_histogram = optional_histogram(f, "distance_histogram");
  a.normalized_histogram = optional_histogram(f, "normalized_histogram");
  return a;
}

engine::CheckTally check(const Fields& f) {
  engine::CheckTally t{.name = f.text("name"),
                       .kind = f.named<engine::CheckKind>("kind", engine::kCheckKinds),
                       .profile = f.named<engine::Profile>("profile", engine::kProfiles),
                       .passed = f.count("passed"),
                       .failed = f.count("failed"),
                       .differs = f.count("differs"),
                       .not_graded = f.count("not_graded"),
                       .detail = f.text("detail")};
  if (f.has("figure")) {
    const Fields fig = f.sub("figure");
    t.metric = fig.text("metric");
    t.figure = fig.real("value");
    t.bound = fig.optional_real("bound");
  }
  return t;
}

engine::Finding finding(const Fields& f) {
  return {.check = f.text("check"), .kind = f.named<engine::CheckKind>("kind", engine::kCheckKinds),
          .metric = f.text("metric"), .figure = f.real("figure"), .bound = f.real("bound"), .count = f.count("count"),
          .text = f.text("text"), .failure = f.text("failure"), .bound_text = f.text("bound_text")};
}

engine::DeclaredResult declared(const Fields& f) {
  engine::DeclaredResult d{.metric = f.text("claim_metric"), .contract_bound = f.optional_real("contract_bound"),
                           .verdict = f.named<engine::ClaimVerdict>("claim_verdict", engine::kClaimVerdicts),
                           .expected_failure = f.text("expected_failure"),
                           .expected_outcome = f.text("expected_outcome")};
  if (!d.metric.empty()) d.claimed = f.real("claimed"), d.measured = f.real("measured");  // (null when unclaimed)
  return d;
}

std::map<std::string, std::int64_t> counts(const Fields& f, const char* key) {
  const json& m = f.raw(key);
  if (!m.is_object()) throw UsageError(fmt::format("{}: not an object of counts", f.where(key)));
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, n] : m.items()) out[name] = count_value(n, f.where(key) + "." + name);
  return out;
}

engine::Coverage coverage(const Fields& f) {
  return {.value_classes = counts(f, "value_classes"), .result_classes = counts(f, "result_classes"),
          .shape_classes = counts(f, "shape_classes"), .outputs = f.count("outputs"),
          .outputs_zero = f.count("outputs_zero"), .outputs_nan = f.count("outputs_nan")};
}

// (The sample's figures are read back for merges: the guarantee is
// computed from them again.)
engine::ShapeReport shapes(const Fields& f) {
  engine::ShapeReport s{.profile = f.text("profile"), .tail_cases = f.count("tail_cases"),
                        .problem_cases = f.count("problem_cases"), .largest = f.text("largest"),
                        .largest_elements = f.count("largest_elements"), .peak_bytes = f.count("peak_bytes"),
                        .sampled_cases = f.count("sampled_cases")};
  s.failed_problems = values(f, "failed_problems", text_value);
  if (f.has("held_finite")) s.finite_held = f.count("held_finite");
  if (f.has("problem_lines"))
    s.lines = objects(f, "problem_lines", +[](const Fields& l) {
      engine::ShapeReport::Line line{l.text("line"), l.count("case"), l.count("graded_exactly"), l.count("failed")};
      line.worst = l.raw("worst_accuracy_failure").is_null() ? 0 : l.real("worst_accuracy_failure");
      line.worst_normalized = l.text("worst_metric") == "normalized error";
      return line;
    });
  if (f.has("sample")) {
    const Fields m = f.sub("sample");
    s.sampled_of = m.count("elements_of_sampled_outputs");
    s.sampled_graded = m.count("graded_exactly");
    s.sample_edges = m.count("edges");
    s.sample_boundaries = m.count("boundaries");
    s.sample_random = m.count("random");
    s.sample_draws = m.count("random_draws_per_output");
  }
  return s;
}

engine::ErrorProfile profile(const Fields& f) {
  engine::ErrorProfile p{.x_lo = values(f, "x_lo", real_value), .x_hi = values(f, "x_hi", real_value),
                         .max_frac_ulp = values(f, "max_frac_ulp", real_or_nan),
                         .max_distance = values(f, "max_distance", real_or_nan),
                         .max_normalized = values(f, "max_normalized", real_or_nan),
                         .failed = values(f, "failed", count_value)};
  const std::size_t n = p.max_frac_ulp.size();
  if (p.x_lo.size() != n || p.x_hi.size() != n || p.max_distance.size() != n || p.max_normalized.size() != n ||
      p.failed.size() != n)
    throw UsageError(fmt::format("{}: its arrays are not all of one length", f.where("")));
  return p;
}

engine::PrintedOutput printed(const Fields& f) {
  return {.case_index = f.count("case"), .bytes = f.count("bytes"), .text = f.text("text")};
}

std::uint64_t digest(const Fields& f) {
  const std::string hex = f.text("inputs_digest");
  std::uint64_t v = 0;
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw UsageError(fmt::format("{}: '{}' is not 16 hex digits", f.where("inputs_digest"), hex));
  for (char c : hex) v = v * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  return v;
}

}  // namespace

engine::KernelDTypeResult read_result(const json& result, const std::string& kernel, const std::string& family,
                                      const std::string& where) {
  const Fields f(result, where);
  engine::KernelDTypeResult r;
  r.kernel = kernel;
  r.family = family;
  const auto t = parse_dtype(f.text("dtype"));
  if (!t) throw UsageError(fmt::format("{}: '{}' is not a dtype", f.where("dtype"), f.text("dtype")));
  r.dtype = *t;
  r.verdict = f.named<engine::Verdict>("verdict", engine::kVerdicts);
  r.headline = f.text("headline");
  r.findings = objects(f, "findings", finding);
  r.exhaustive = f.flag("exhaustive");
  r.interrupted = f.flag("interrupted");
  r.cases = f.count("cases");
  r.elements = f.count("elements");
  r.inputs_digest = digest(f);
  r.accuracy = accuracy(f.sub("accuracy"));
  r.worst = objects(f, "worst", element);
  r.checks = objects(f, "checks", check);
  r.failures = objects(f, "failures", element);
  r.differs = f.count("differs_from_reference");
  r.declared = declared(f.sub("declared"));
  const Fields tier = f.sub("accuracy_tier");
  r.tier = {.name = tier.text("name"), .bound = tier.text("bound"), .covered = tier.flag("covered")};
  if (tier.has("kind")) {  // (a document before tiers recorded the graded bound's figures has none)
    r.tier.kind = tier.text("kind");
    r.tier.max_frac_ulp = tier.real("max_frac_ulp");
    r.tier.max_distance = tier.raw("max_distance").is_null() ? -1 : tier.count("max_distance");
    if (tier.has("bound_depends_on")) r.tier.bound_param = tier.text("bound_depends_on");
  }
  r.differences = objects(f, "differences", element);
  r.coverage = coverage(f.sub("coverage"));
  r.profile = profile(f.sub("error_profile"));
  if (f.has("shapes")) r.shapes = shapes(f.sub("shapes"));  // (documents before shape profiles have none)
  r.seconds = f.plain_real("seconds");
  if (f.has("printed")) r.printed = objects(f, "printed", printed);
  if (f.has("run_index")) r.run_index = f.count("run_index");
  if (f.has("run_indices")) r.run_indices = values(f, "run_indices", count_value);
  return r;
}

}  // namespace kc::reports
