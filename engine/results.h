// What a conformance run measured, per kernel and dtype. Plain data: the
// JSON writer (reports/results_json.cpp) and the HTML pages are rendered
// from it; docs/results-schema.md documents the JSON form field by field.
#pragma once

#include "core/vocabulary.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/dtype.h"

namespace kc::engine {

// One graded element, as a failure report or a worst case shows it.
struct ElementReport {
  std::string check;
  std::int64_t case_index = -1;  // -1: a single-element replay
  std::int64_t element = -1;
  std::string dims;              // shape of the case, "[4, 2]"
  std::string params;            // Params::to_string(), "" when none
  double input = 0;
  std::string input_hex;
  double result = 0;
  std::string result_hex;
  std::string exact;             // decimal, 25 significant digits ("NaN", "inf", ...)
  double correctly_rounded = 0;
  std::string correctly_rounded_hex;
  double frac_ulp = 0;           // inf for a special-value mismatch
  std::int64_t distance = -1;    // -1: not applicable
  std::optional<double> normalized;  // condition-aware models only
  double bound = 0;              // the fractional (or normalized) bound it was held to
  std::string repro;             // one command that replays it
  std::string message;           // the full self-explaining text
  std::int64_t shrunk_elements = -1;  // a shrunk case: how many input elements it has left
  std::vector<int> shrink_path;       // ... and the shrink steps from case `case_index` to it
  std::int64_t run_index = 0;         // in merged results: the run (1-based) it came from; 0: not merged
};

// The two profiles of every contract. conformance: what any correct
// implementation must do (shapes, dtypes, preconditions, accuracy, the
// special values IEEE or the definition fixes, properties). reference: that
// plus the reference's own choices and exact bits (the semantics replay,
// zero-copy broadcast_to, NaN and tie choices, constants rounded to T).
#define KC_PROFILES(X) X(conformance, "conformance") X(reference, "reference")
KC_VOCABULARY(Profile, std::uint8_t, kProfiles, KC_PROFILES);

// What a check tallies (results JSON "kind" of a check and of a finding):
// the accuracy grade, special-value rules, properties, invalid inputs, the
// output's shape and dtype, its layout, repeatability, the bias test, the
// run itself, the reference's replayed semantics, per-case statistics, the
// reference's tie and NaN choices, the isolation of calls, and a backend's
// own accuracy claim.
#define KC_CHECK_KINDS(X)                                                                                     \
  X(accuracy, "accuracy") X(special, "special") X(property, "property") X(bad_input, "bad-input")            \
  X(output, "output") X(layout, "layout") X(determinism, "determinism") X(bias, "bias") X(run, "run")        \
  X(semantics, "semantics") X(statistics, "statistics") X(reference_choice, "reference-choice")              \
  X(isolation, "isolation") X(claim, "claim")
KC_VOCABULARY(CheckKind, std::uint8_t, kCheckKinds, KC_CHECK_KINDS);

struct CheckTally {
  std::string name;   // "accuracy", "special:NaN->+0", "property:relu(x) >= 0", "bad-input:dtype.unsupported", ...
  CheckKind kind = CheckKind::run;
  // The profile the check belongs to: a reference-profile check that fails
  // in a conformance run counts in `differs`, not `failed`.
  Profile profile = Profile::conformance;
  std::int64_t passed = 0, failed = 0, differs = 0;
  // Reports of its failures (or differences) kept by the run (engine/
  // tally.cpp; capped per check, not written to the results).
  std::int64_t kept = 0;
  // Times the check could not judge (a statistic with too few samples): never a failure.
  std::int64_t not_graded = 0;
  std::string detail;  // e.g. the bias statistic, or why it was not graded
  // A check judged by a statistic: what it measures, its value, its limit.
  std::string metric;
  std::optional<double> figure, bound;
  // Whether figure f against bound b lies further over (or less far under)
  // its bound than the figure kept: a check keeps the case furthest over,
  // within a run (checks/case_statistics.cpp) and over combined runs.
  bool further_over(double f, std::optional<double> b) const {
    return !figure || f / b.value_or(1) > *figure / bound.value_or(1);
  }
};

// One way a result fails, with the figure that shows it: the failing
// result leads with its first finding, and that figure violates that bound
// ("integer distance 2 > 1 on 476 elements", "179 results overflow to inf
// where the correctly rounded result is finite", "|z| 11.1 > 6").
struct Finding {
  std::string check;   // the tally it belongs to ("accuracy", "special:NaN->+0", "bias: ...")
  CheckKind kind = CheckKind::run;
  std::string metric;  // "integer distance", "fractional ulp", "normalized error", "|z|", "elements", "cases", ...
  double figure = 0;   // the worst value seen; for a count, the count
  double bound = 0;    // what it must not exceed
  std::int64_t count = 0;  // elements or cases that fail this way
  std::string text;
  std::string failure;     // of the accuracy grading: the Failure's name ("spurious_inf"); else empty
  std::string bound_text;  // the bound as the text writes it ("2.5", "its bound")
};

struct Histogram {
  std::string metric;         // "fractional ulp", "integer distance", "normalized error"
  std::vector<double> edges;  // bin i holds values in [edges[i], edges[i+1]); last edge is +inf
  std::vector<std::int64_t> counts;
  std::vector<std::int64_t> failing;  // of counts, the elements that failed a check of their accuracy
};

// The error versus the input, for one-input elementwise kernels: up to 256
// slices holding equal numbers of graded inputs, in input order (for a
// 16-bit dtype graded exhaustively: its bit patterns, 256 to a slice), so
// that inputs crowded into a few binades still spread over the plot.
struct ErrorProfile {
  std::vector<double> x_lo, x_hi;    // the smallest and largest input of the slice
  std::vector<double> max_frac_ulp;  // NaN where nothing was graded in the slice
  std::vector<double> max_distance, max_normalized;  // NaN where not applicable
  std::vector<std::int64_t> failed;  // elements of the slice that failed their accuracy check
};

struct AccuracyStats {
  std::int64_t graded = 0;        // elements graded against the oracle (specials excluded)
  std::int64_t special = 0;       // elements decided by a special-value rule
  std::int64_t replayed = 0;      // powi: graded against the replayed reference loop
  std::int64_t oracle_escalations = 0;  // Ziv re-evaluations at higher precision
  double max_frac_ulp = 0, mean_frac_ulp = 0, p99_frac_ulp = 0;
  std::int64_t max_distance = 0;
  // |y - z| and |y - z| / |z| over the graded elements (inf where one has no
  // finite error): what an FKC precision block's max_absolute and
  // max_relative claim (fkc/audit.h).
  double max_absolute = 0, max_relative = 0;
  // The first element that reached the maximum distance and the maximum
  // relative error: the input an audit cites when it refutes a claim.
  std::optional<ElementReport> at_max_distance, at_max_relative;
  double correctly_rounded_share = 0;   // share of graded elements at distance 0
  std::int64_t not_correctly_rounded = 0;  // graded elements at distance >= 1 (the misses)
  std::optional<double> max_normalized, mean_normalized;  // condition-aware
  std::optional<double> bias_mean, bias_stderr;           // mean signed ulp error (bias samples) and its s.e.
  std::int64_t bias_samples = 0;
  // Merged results: the p99 is the largest of the runs' p99s, an upper
  // bound of the pooled one (engine/combine.cpp).
  bool p99_is_upper_bound = false;
  Histogram histogram;                       // fractional ulp
  std::optional<Histogram> distance_histogram;    // where integer distance applies
  std::optional<Histogram> normalized_histogram;  // condition-aware models
};

struct Coverage {
  std::map<std::string, std::int64_t> value_classes;  // zero, subnormal, normal, inf, nan, tie, integer, overflow
  // Of the correct results RN_T(z) (float outputs): contract::ResultClass names.
  std::map<std::string, std::int64_t> result_classes;
  std::map<std::string, std::int64_t> shape_classes;  // rank0..rank6, empty, size1_dim
  std::int64_t outputs = 0, outputs_zero = 0, outputs_nan = 0;
};

// A kernel x dtype's verdict: passed, failed (a loop that graded nothing
// fails), or not graded (a relation whose related kernel the backend lacks,
// a run stopped by a signal before any failure).
#define KC_VERDICTS(X) X(pass, "pass") X(fail, "fail") X(not_graded, "not_graded")
KC_VOCABULARY(Verdict, std::uint8_t, kVerdicts, KC_VERDICTS);
inline std::string_view verdict_name(Verdict v) { return kVerdicts.name(v); }  // results JSON "verdict"

// A backend's own accuracy claim, judged: within the measurement, beyond
// it, or no claim (or nothing graded to judge it by).
#define KC_CLAIM_VERDICTS(X) X(unclaimed, "unclaimed") X(confirmed, "confirmed") X(refuted, "refuted")
KC_VOCABULARY(ClaimVerdict, std::uint8_t, kClaimVerdicts, KC_CLAIM_VERDICTS);
inline std::string_view claim_verdict_name(ClaimVerdict v) { return kClaimVerdicts.name(v); }  // "claim_verdict"

// What the backend declared for a kernel x dtype, judged by the run: its
// own accuracy claim beside the contract's bound and the measurement, and
// an expected failure with what happened to it.
struct DeclaredResult {
  std::string metric;                   // frac_ulp | distance | relative | absolute; empty: unclaimed
  double claimed = 0;                   // the backend's bound
  std::optional<double> contract_bound;  // the contract's own bound in that metric, where it states one
  double measured = 0;                  // the largest error of the run in that metric
  ClaimVerdict verdict = ClaimVerdict::unclaimed;
  std::string expected_failure;         // the backend's reason; empty: none declared
  std::string expected_outcome;         // "failed as expected" | "passed unexpectedly"
};

// What a plug-in's kernel wrote to stdout or stderr during a case's calls
// (kept, never shown on kconform's own output).
struct PrintedOutput {
  std::int64_t case_index = -1;  // -1: the run's own checks (determinism, bad input, ...)
  std::int64_t bytes = 0;        // written in all
  std::string text;              // the first bytes
};

// The accuracy tier that graded a result (engine/accuracy_tier.h): its
// name, the bound the accuracy check used, and whether the tier covers the
// kernel x dtype (where it does not, the contract's bound graded it).
struct TierResult {
  std::string name = "reference";
  std::string bound;
  bool covered = true;
  // The graded bound's figures, which a pass's headline quotes (a merge
  // writes its headline from them, not from the contract's): its kind
  // ("": no bound graded), fractional ulp bound, distance bound (-1: none)
  // and the parameter the bound depends on ("": none).
  std::string kind;
  double max_frac_ulp = 0;
  std::int64_t max_distance = -1;
  std::string bound_param;
  bool operator==(const TierResult&) const = default;
};

// The shapes a result graded (generators/problems.h): its shape profile,
// its shaped cases, the largest case, the sampled outputs
// (engine/sample.h) and the problem lines whose case failed.
struct ShapeReport {
  std::string profile;  // tiny | tails | production | all | a problem file
  std::int64_t tail_cases = 0, problem_cases = 0;
  // The largest case graded (by its inputs' elements): every input's
  // shape ("[1, 4096] [4096, 11008]") and its memory (the inputs and the
  // outputs, bytes).
  std::string largest;
  std::int64_t largest_elements = 0, peak_bytes = 0;
  // Sampled outputs: how many, their elements, those graded exactly, by
  // stratum, and the fewest random draws of one (the guarantee's R).
  std::int64_t sampled_cases = 0, sampled_of = 0, sampled_graded = 0;
  std::int64_t sample_edges = 0, sample_boundaries = 0, sample_random = 0, sample_draws = 0;
  std::vector<std::string> failed_problems;  // Problem::where() of each failing problem line
  // Each problem line's case (not the tails': 38 a result), what it graded
  // and failed: the compare page sets backends side by side by line.
  struct Line {
    std::string origin;      // Problem::where()
    std::int64_t case_id = 0;
    std::int64_t graded = 0;  // output elements graded exactly (all, or the sample)
    std::int64_t failed = 0;  // failures its checks recorded
    double worst = 0;         // its largest accuracy failure's figure (0: none)
    bool worst_normalized = false;  // ... a normalized error (else fractional ulp)
  };
  std::vector<Line> lines;
  // Output elements of shaped cases held finite by the whole-output check
  // (checks/finite_outputs.cpp), sampled or not.
  std::int64_t finite_held = 0;
};

// (1 - f)^R: the probability that R uniform draws miss a defect touching
// a fraction f of an output's elements (a sample's guarantee, engine/sample.h);
// by squaring, IEEE products only (libm's pow differs in its last bits
// between CPUs, and the figure is written into results).
inline double miss_probability(std::int64_t draws, double f) {
  double r = 1, b = 1 - f;
  for (std::int64_t n = draws; n > 0; n >>= 1, b *= b)
    if (n & 1) r *= b;
  return r;
}

struct KernelDTypeResult {
  std::string kernel, family;
  DType dtype = DType::f32;
  Verdict verdict = Verdict::not_graded;
  // Why: on a failure its findings, the first leading; on a pass the
  // figure that decides it, against its bound.
  std::vector<Finding> findings;
  std::string headline;
  bool exhaustive = false;
  bool interrupted = false;  // stopped by a signal before its last case
  std::int64_t cases = 0, elements = 0;
  // FNV-1a over every case's inputs (dtype, dims, bits, parameters) in case
  // order: two results with equal digests graded the same inputs, so
  // `report --baseline` compares them like with like (any change counts).
  std::uint64_t inputs_digest = 0;
  AccuracyStats accuracy;
  std::vector<ElementReport> worst;     // top 5 by error
  std::vector<CheckTally> checks;
  std::vector<ElementReport> failures;  // capped per check; tallies hold the full counts
  // Conformance runs: where the kernel differs from the reference without
  // failing the portable contract (reference-profile checks), capped per check.
  std::vector<ElementReport> differences;
  std::int64_t differs = 0;
  DeclaredResult declared;
  TierResult tier;
  std::vector<PrintedOutput> printed;  // the first cases that printed
  Coverage coverage;
  ErrorProfile profile;
  ShapeReport shapes;
  double seconds = 0;
  // Merged documents (reports/merge.h): the run (1-based) a result came
  // from, or the runs a merged result combines; 0 and empty otherwise.
  std::int64_t run_index = 0;
  std::vector<std::int64_t> run_indices;
};

struct RunMetadata {
  std::uint64_t seed = 0;
  Profile profile = Profile::reference;  // the contract profile graded
  // A plug-in backend's own name, version, build flags and path (empty otherwise).
  std::optional<Backend::Library> plugin;
  // A run stopped by a signal: its name, and how many kernel x dtype
  // results were planned (the document holds those that started).
  std::string interrupted_by;
  std::int64_t planned = 0;
  std::string backend, command, started_at, machine, compiler, flags, commit, mpfr, gmp, glibc, boost, kconform;
  double duration_s = 0;
  std::int64_t cases_per_kernel = 0;
  // The accuracy tier of the run (--accuracy) and where its bounds come from.
  std::string accuracy_tier = "reference", accuracy_tier_source;
  // A plug-in's recorded environment (IsolationOptions::environment); written
  // for plug-in runs only (the reference depends on none).
  std::vector<std::pair<std::string, std::string>> environment;
};

struct RunResults {
  RunMetadata run;
  std::vector<KernelDTypeResult> results;
};

}  // namespace kc::engine
