// The conformance profile accepts what the operation defines, not only what
// the reference does (issue 37, docs/conformance-audit.md). matmul with a
// zero-sized batch dim: the reference rejects it (it would index out of
// bounds), a BLAS returns the empty product. A backend that returns it
// passes the conformance profile (the rejection a difference from the
// reference) and fails the reference profile; one that returns a result of
// another shape fails both.
#include <gtest/gtest.h>

#include <algorithm>

#include "backends/reference/executor.h"
#include "checks/check.h"
#include "core/error.h"
#include "engine/conformance.h"

namespace kc {
namespace {

enum class EmptyBatch { rejected, empty_product, wrong_shape };

// The reference, but for a call with a zero-sized batch dim, which it answers as `how` says.
class EmptyBatchBackend final : public Backend {
 public:
  explicit EmptyBatchBackend(EmptyBatch how) : ref_(make_backend("reference")), how_(how) {}
  std::string name() const override { return "empty_batch_test"; }
  std::optional<DTypeSet> supported(std::string_view kernel) const override { return ref_->supported(kernel); }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    const bool empty_batch = in.size() == 2 && in[0].rank() == 3 && in[0].dims()[0] == 0 && in[1].rank() == 3 &&
                             in[1].dims()[0] == 0 && in[0].dims()[2] == in[1].dims()[1];
    if (!empty_batch || how_ == EmptyBatch::rejected) return ref_->run(kernel, in, p);
    const Dims out{0, in[0].dims()[1], how_ == EmptyBatch::wrong_shape ? in[1].dims()[2] + 1 : in[1].dims()[2]};
    return {Tensor(in[0].dtype(), out)};
  }

 private:
  std::unique_ptr<Backend> ref_;
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

}  // namespace
}  // namespace kc
