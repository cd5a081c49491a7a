// The conformance profile accepts what the operation defines, not only what
// the reference does (issue 37, docs/conformance-audit.md). matmul with a
// zero-sized batch dim: the reference rejects it (it would index out of
// bounds), a BLAS returns the empty product. A backend that returns it
// passes the conformance profile (the rejection a difference from the
// reference) and fails the reference profile; one that returns a result of
// another shape fails both.
#include <gtest/gtest.h>

#include "tests/test_support.h"

#include <algorithm>

#include "backends/reference/executor.h"
#include "checks/check.h"
#include "core/error.h"
#include "drivers/driver.h"
#include "engine/conformance.h"
#include "oracles/rounding.h"

namespace kc {
namespace {

enum class EmptyBatch { rejected, empty_product, wrong_shape };

// The reference, but for a call with a zero-sized batch dim, which it answers as `how` says.
class EmptyBatchBackend final : public testing_support::ReferenceBut {
 public:
  explicit EmptyBatchBackend(EmptyBatch how) : ReferenceBut("empty_batch_test"), how_(how) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    const bool empty_batch = in.size() == 2 && in[0].rank() == 3 && in[0].dims()[0] == 0 && in[1].rank() == 3 &&
                             in[1].dims()[0] == 0 && in[0].dims()[2] == in[1].dims()[1];
    if (!empty_batch || how_ == EmptyBatch::rejected) return reference(kernel, in, p);
    const Dims out{0, in[0].dims()[1], how_ == EmptyBatch::wrong_shape ? in[1].dims()[2] + 1 : in[1].dims()[2]};
    return {Tensor(in[0].dtype(), out)};
  }

 private:
  EmptyBatch how_;
};

engine::KernelDTypeResult run(EmptyBatch how, engine::Profile profile) {
  const EmptyBatchBackend backend(how);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 10;
  opts.seed = 5;
  opts.profile = profile;
  opts.backend = backend.name();
  return engine::run_kernel_dtype(*contract::find_kernel("matmul"), DType::f32, backend, opts);
}

const engine::CheckTally& tally(const engine::KernelDTypeResult& r, std::string_view name) {
  const auto it = std::find_if(r.checks.begin(), r.checks.end(), [&](const auto& c) { return c.name == name; });
  if (it == r.checks.end()) throw std::logic_error("no check " + std::string(name));
  return *it;
}

constexpr std::string_view kEmpty = "bad-input:batch.empty (a)";
constexpr std::string_view kRejected = "bad-input:batch.empty (a), rejected as the reference does";

TEST(ConformanceAudit, AnEmptyBatchProductIsAcceptedWhereTheReferenceRejects) {
  const auto conf = run(EmptyBatch::empty_product, engine::Profile::conformance);
  EXPECT_EQ(conf.verdict, engine::Verdict::pass) << conf.headline;
  EXPECT_EQ(tally(conf, kEmpty).failed, 0);
  EXPECT_GT(tally(conf, kEmpty).passed, 0);
  EXPECT_GT(tally(conf, kRejected).differs, 0) << "the reference's choice is a difference, not a failure";

  const auto ref = run(EmptyBatch::empty_product, engine::Profile::reference);
  EXPECT_EQ(ref.verdict, engine::Verdict::fail);
  EXPECT_GT(tally(ref, kRejected).failed, 0);
  EXPECT_EQ(tally(ref, kEmpty).failed, 0);
}

TEST(ConformanceAudit, TheRejectionPassesBothProfiles) {
  for (const auto profile : {engine::Profile::conformance, engine::Profile::reference}) {
    const auto r = run(EmptyBatch::rejected, profile);
    EXPECT_EQ(r.verdict, engine::Verdict::pass) << r.headline;
    EXPECT_EQ(tally(r, kRejected).differs + tally(r, kRejected).failed, 0);
  }
}

// The latitude is the defined result, not anything: another shape fails.
TEST(ConformanceAudit, AResultOfAnotherShapeStillFails) {
  const auto conf = run(EmptyBatch::wrong_shape, engine::Profile::conformance);
  EXPECT_EQ(conf.verdict, engine::Verdict::fail);
  EXPECT_GT(tally(conf, kEmpty).failed, 0);
  const bool named = std::any_of(conf.failures.begin(), conf.failures.end(), [](const engine::ElementReport& e) {
    return e.message.find("where the defined result is f32 [0, ") != std::string::npos;
  });
  EXPECT_TRUE(named) << "the failure names the defined result";
}

// Every rule marked as the reference's limit, each kernel that has one: a
// backend that answers the call with the defined (empty) result passes the
// conformance profile's check of the rule and fails the reference profile's
// "rejected as the reference does" (one test per changed rule:
// docs/conformance-audit.md).
class DefinedResult final : public testing_support::ReferenceBut {
 public:
  DefinedResult() : ReferenceBut("defined_result_test") {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    try {
      return reference(kernel, in, p);
    } catch (const KernelError& e) {
      const contract::KernelSpec& k = *contract::find_kernel(kernel);
      const bool limit = std::any_of(k.preconditions.begin(), k.preconditions.end(), [&](const contract::Precondition& r) {
        return r.reference_limit && r.rule == e.rule();
      });
      if (!limit) throw;
      for (const auto& r : k.preconditions)
        if (r.reference_limit && r.rule == e.rule() && r.defined_result) return r.defined_result(in, p);
      const gen::Case cs{{in.begin(), in.end()}, p};
      std::vector<Tensor> out;
      for (const auto& part : drivers::of(k).expected_output(k, cs).parts) out.emplace_back(part.dtype, part.dims);
      return out;
    }
  }

};

TEST(ConformanceAudit, EveryReferenceLimitAcceptsTheDefinedResult) {
  const DefinedResult backend;
  int rules = 0;
  for (const auto& k : contract::all_kernels())
    for (const auto& rule : k.preconditions) {
      if (!rule.reference_limit) continue;
      ++rules;
      const std::string name = fmt::format("bad-input:{} ({})", rule_name(rule.rule), rule.operand);
      for (const auto profile : {engine::Profile::conformance, engine::Profile::reference}) {
        engine::RunOptions opts{.checks = &checks::registry()};
        opts.cases = 3;
        opts.profile = profile;
        opts.backend = backend.name();
        const auto r = engine::run_kernel_dtype(k, k.dtypes().list().front(), backend, opts);
        if (profile == engine::Profile::conformance) {
          EXPECT_EQ(tally(r, name).failed, 0) << k.name << " " << name;
          EXPECT_GT(tally(r, name + ", rejected as the reference does").differs, 0) << k.name;
        } else {
          EXPECT_GT(tally(r, name + ", rejected as the reference does").failed, 0) << k.name;
        }
      }
    }
  EXPECT_GE(rules, 9) << "matmul, matmul_f32_bf16, fused_linear, transpose_last_two, triu, tril, layer_norm, rms_norm, "
                        "squeeze";
}

// silu, gelu, gelu_erf at -inf: the function's limit -0 (or +0) is as
// correct as the reference's -inf * 0 = NaN; a wrong value (+inf) is not.
class GatedAtMinusInf final : public testing_support::ReferenceBut {
 public:
  explicit GatedAtMinusInf(double answer) : ReferenceBut("gated_limit_test"), answer_(answer) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    for (std::int64_t i = 0; i < in[0].numel(); ++i)
      if (in[0].value_at(i) == -INFINITY) out[0].set_bits(i, double_to_bits(out[0].dtype(), answer_));
    return out;
  }

 private:
  double answer_;
};

TEST(ConformanceAudit, GatedActivationsAtMinusInfinityMayReturnTheLimit) {
  for (const char* kernel : {"silu", "gelu", "gelu_erf"})
    for (const double answer : {-0.0, 0.0, static_cast<double>(INFINITY)}) {
      const GatedAtMinusInf backend(answer);
      for (const auto profile : {engine::Profile::conformance, engine::Profile::reference}) {
        engine::RunOptions opts{.checks = &checks::registry()};
        opts.cases = 20;
        opts.profile = profile;
        opts.backend = backend.name();
        const auto r = engine::run_kernel_dtype(*contract::find_kernel(kernel), DType::f32, backend, opts);
        const bool correct = answer == 0 && profile == engine::Profile::conformance;
        EXPECT_EQ(r.verdict, correct ? engine::Verdict::pass : engine::Verdict::fail)
            << kernel << " -> " << answer << " in " << engine::profile_name(profile) << ": " << r.headline;
      }
    }
}

// A check's failures and differences (0 where the run has no such check).
std::int64_t outcomes(const engine::KernelDTypeResult& r, std::string_view name) {
  for (const auto& c : r.checks)
    if (c.name == name) return c.failed + c.differs;
  return 0;
}

// Valid calls the reference answers and a correct implementation may
// reject (contracts' allowed_rejections: an empty max, conv_transpose2d's
// stride 0, ...): a backend that rejects exactly those, with the rule,
// passes the conformance profile and fails the reference profile's
// "accepts valid input, as the reference does"; one that names another
// rule fails both.
class RejectsAllowed final : public testing_support::ReferenceBut {
 public:
  explicit RejectsAllowed(bool right_rule) : ReferenceBut("rejects_allowed_test"), right_rule_(right_rule) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);  // (bad input: the reference's errors)
    for (const auto& a : contract::find_kernel(kernel)->allowed_rejections)
      if (a.applies(in, p))
        throw KernelError(std::string(kernel), std::string(a.operand), right_rule_ ? a.rule : Rule::shape_mismatch, "test");
    return out;
  }

 private:
  bool right_rule_;
};

TEST(ConformanceAudit, EveryAllowedRejectionIsAcceptedWithItsRule) {
  int kernels = 0;
  for (const auto& k : contract::all_kernels()) {
    if (k.allowed_rejections.empty()) continue;
    ++kernels;
    for (const bool right : {true, false})
      for (const auto profile : {engine::Profile::conformance, engine::Profile::reference}) {
        const RejectsAllowed backend(right);
        engine::RunOptions opts{.checks = &checks::registry()};
        opts.cases = 60;
        opts.profile = profile;
        opts.backend = backend.name();
        const auto r = engine::run_kernel_dtype(k, k.dtypes().list().front(), backend, opts);
        EXPECT_GT(outcomes(r, "accepts valid input, as the reference does") + outcomes(r, "accepts valid input"), 0)
            << k.name << ": no call was rejected: the run drew none the rule allows";
        const bool correct = right && profile == engine::Profile::conformance;
        EXPECT_EQ(r.verdict, correct ? engine::Verdict::pass : engine::Verdict::fail)
            << k.name << (right ? " with its rule" : " with another rule") << " in " << engine::profile_name(profile)
            << ": " << r.headline;
      }
  }
  EXPECT_EQ(kernels, 6) << "max_all, min_all, max_dim, min_dim, conv_transpose2d, conv2d_simple";
}

// PyTorch's answers where the reference's is one valid choice: the scalar
// of add_scalar/mul_scalar kept in f32 (opmath: x and c in f32, then T),
// and clamp's max everywhere when min > max, with -0 ordered below +0.
// Correct in the conformance profile, not the reference's bits; a wrong
// answer (the scalar truncated to bf16) still fails.
enum class Torchlike { opmath, truncated_scalar, clamp };
class TorchScalars final : public testing_support::ReferenceBut {
 public:
  explicit TorchScalars(Torchlike how) : ReferenceBut("torch_scalars_test"), how_(how) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);  // (bad input: the reference's errors)
    const DType t = in[0].dtype();
    for (std::int64_t i = 0; i < in[0].numel(); ++i) {
      const float x = static_cast<float>(in[0].value_at(i));
      float y = 0;
      if (how_ == Torchlike::clamp) {
        const auto lo = static_cast<float>(oracle::num_cast(t, p.real("min"))), hi = static_cast<float>(oracle::num_cast(t, p.real("max")));
        const auto below = [](float a, float b) { return a < b || (a == 0 && b == 0 && std::signbit(a) && !std::signbit(b)); };
        y = std::isnan(x) ? x : lo > hi ? hi : below(x, lo) ? lo : below(hi, x) ? hi : x;
      } else {
        const double c = p.real("c");
        const float cf = how_ == Torchlike::opmath ? static_cast<float>(c) : static_cast<float>(std::trunc(c) + 0.25);
        y = kernel == "add_scalar" ? x + cf : x * cf;
      }
      out[0].set_bits(i, double_to_bits(t, round_to_format(y, t)));  // (then to T, to nearest)
    }
    return out;
  }

 private:
  Torchlike how_;
};

TEST(ConformanceAudit, PyTorchsScalarAndClampChoicesAreCorrect) {
  const auto verdict = [](Torchlike how, const char* kernel, DType t, engine::Profile profile) {
    const TorchScalars backend(how);
    engine::RunOptions opts{.checks = &checks::registry()};
    opts.cases = 40;
    opts.profile = profile;
    opts.backend = backend.name();
    opts.exhaustive_halves = false;
    return engine::run_kernel_dtype(*contract::find_kernel(kernel), t, backend, opts);
  };
  for (const char* kernel : {"add_scalar", "mul_scalar"})
    for (const DType t : {DType::bf16, DType::f16}) {
      const auto conf = verdict(Torchlike::opmath, kernel, t, engine::Profile::conformance);
      EXPECT_EQ(conf.verdict, engine::Verdict::pass) << kernel << " " << dtype_name(t) << ": " << conf.headline << "\n" << (conf.failures.empty() ? "" : conf.failures[0].message);
      EXPECT_EQ(verdict(Torchlike::opmath, kernel, t, engine::Profile::reference).verdict, engine::Verdict::fail)
          << kernel << " " << dtype_name(t) << ": the reference rounds c to T first";
    }
  EXPECT_EQ(verdict(Torchlike::truncated_scalar, "mul_scalar", DType::bf16, engine::Profile::conformance).verdict,
            engine::Verdict::fail);
  for (const DType t : {DType::f32, DType::bf16}) {
    const auto conf = verdict(Torchlike::clamp, "clamp", t, engine::Profile::conformance);
    EXPECT_EQ(conf.verdict, engine::Verdict::pass) << dtype_name(t) << ": " << conf.headline;
    EXPECT_EQ(verdict(Torchlike::clamp, "clamp", t, engine::Profile::reference).verdict, engine::Verdict::fail)
        << dtype_name(t) << ": min > max gives max everywhere, not the reference's min below it";
  }
}

}  // namespace
}  // namespace kc
