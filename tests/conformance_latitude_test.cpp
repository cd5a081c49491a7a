// The audit's second round (issue 37, docs/conformance-audit.md, "Rules
// changed"): answers the operation's definition allows that the reference
// does not give. Each double is the reference with one such answer: it
// passes the conformance profile and fails the reference profile; a planted
// wrong answer beside it fails both.
#include <gtest/gtest.h>

#include "tests/latitude_support.h"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "contracts/contract.h"
#include "core/error.h"
#include "oracles/exact.h"
#include "oracles/rounding.h"
#include "engine/conformance.h"

namespace kc {
namespace {

using engine::Profile;
using engine::Verdict;
using testing_support::expect_correct_not_reference;
using testing_support::expect_wrong;
using testing_support::run_profile;

// cast to u32 where trunc(x) is outside [0, 2^32): x86's cvttss2si answer
// (2^31) instead of Rust's saturation; the planted defect rounds valid
// inputs to nearest instead of truncating (3.75 -> 4).
class CastU32 final : public testing_support::ReferenceBut {
 public:
  explicit CastU32(bool wrong) : ReferenceBut(wrong ? "cast_rounds_test" : "cast_cvtt_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    for (std::int64_t i = 0; i < in[0].numel(); ++i) {
      const double x = in[0].value_at(i), t = std::trunc(x);
      if (std::isnan(x) || t < 0 || t >= 0x1p32) out[0].set_bits(i, 0x80000000u);
      else if (wrong_ && x != t && x > 0 && x < 0x1p31) out[0].set_bits(i, static_cast<std::uint32_t>(std::nearbyint(x)));
    }
    return out;
  }

 private:
  bool wrong_;
};

TEST(ConformanceLatitude, ACastToU32OutsideItsRangeMayGiveAnyValue) {
  for (const char* kernel : {"cast_f32_to_u32", "cast_f64_to_u32"}) {
    const DType t = contract::find_kernel(kernel)->dtypes().list().front();
    expect_correct_not_reference(CastU32(false), kernel, t, 30);
    expect_wrong(CastU32(true), kernel, t, 30);
  }
}

// reduce_max_to_backward as a select: where(x == cell max, s, +0), where
// the reference's s * 0 gives -0 (s < 0) or NaN (s not finite) off the
// maxima; the planted defect routes 1 to every position off the maxima.
class SelectMaxBackward final : public testing_support::ReferenceBut {
 public:
  explicit SelectMaxBackward(bool wrong) : ReferenceBut(wrong ? "max_backward_leaks_test" : "max_backward_select_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    const Tensor &x = in[0], &up = in[1];
    std::vector<double> cell_max(static_cast<std::size_t>(up.numel()), -INFINITY);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      if (std::isnan(x.value_at(i))) return out;  // (a NaN's cell: the reference's answer)
      double& m = cell_max[static_cast<std::size_t>(cell_of(x.dims(), up.dims(), i))];
      m = std::max(m, x.value_at(i));
    }
    for (std::int64_t i = 0; i < x.numel(); ++i)
      if (x.value_at(i) != cell_max[static_cast<std::size_t>(cell_of(x.dims(), up.dims(), i))])
        out[0].set_bits(i, double_to_bits(x.dtype(), wrong_ ? 1.0 : 0.0));
    return out;
  }

 private:
  // The element of up (the target, right-aligned; a dim of 1 is reduced) that x's element i reduces into.
  static std::int64_t cell_of(const Dims& xd, const Dims& ud, std::int64_t i) {
    std::int64_t cell = 0, stride = 1;
    for (std::ptrdiff_t a = std::ssize(xd) - 1, b = std::ssize(ud) - 1; a >= 0; --a, --b) {
      const std::int64_t coord = i % xd[static_cast<std::size_t>(a)];
      i /= xd[static_cast<std::size_t>(a)];
      if (b < 0) continue;
      const std::int64_t n = ud[static_cast<std::size_t>(b)];
      if (n != 1) cell += coord * stride;
      stride *= n;
    }
    return cell;
  }
  bool wrong_;
};

TEST(ConformanceLatitude, AMaxBackwardMayGiveAPlusZeroOffTheMaxima) {
  for (const DType t : {DType::f32, DType::bf16}) {
    expect_correct_not_reference(SelectMaxBackward(false), "reduce_max_to_backward", t, 30);
    expect_wrong(SelectMaxBackward(true), "reduce_max_to_backward", t, 30);
  }
}

// A maximum's share with the count exact: bf16 counts 300 ties as 256 one
// increment at a time; 1/300 (PyTorch's integer count) is correct too, and
// another count's share is not.
TEST(ConformanceLatitude, AMaxBackwardMayCountTiesExactly) {
  using oracle::Mp;
  oracle::CellElement e{.ctx = {.dtype = DType::bf16, .out_dtype = DType::bf16}, .x = 2, .up = 1, .cell_max = 2, .ties = 300};
  oracle::PrecisionScope scope(oracle::working_bits(DType::bf16));
  oracle::Exact ex;
  ex.reset();
  contract::find_kernel("reduce_max_to_backward")->math.exact(oracle::Input(e), ex);
  EXPECT_EQ(oracle::round_to(DType::bf16, ex.value), oracle::round_to(DType::bf16, Mp(1.0 / 256)));
  const auto allowed = [&](double v) {
    return std::any_of(ex.alternatives.begin(), ex.alternatives.end(),
                       [&](const Mp& a) { return oracle::round_to(DType::bf16, a) == oracle::round_to(DType::bf16, Mp(v)); });
  };
  EXPECT_TRUE(allowed(1.0 / 300));
  EXPECT_FALSE(allowed(1.0 / 128));
}

// squeeze of an axis of size > 1: x unchanged (PyTorch's no-op) is the
// defined result; the planted defect returns x with its first element
// negated.
class SqueezeNoOp final : public testing_support::ReferenceBut {
 public:
  explicit SqueezeNoOp(bool wrong) : ReferenceBut(wrong ? "squeeze_changes_test" : "squeeze_noop_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    try {
      return reference(kernel, in, p);
    } catch (const KernelError& e) {
      if (e.rule() != Rule::dim_not_one) throw;
    }
    Tensor x(in[0].dtype(), in[0].dims());
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set_bits(i, in[0].bits_at(i));
    if (wrong_ && x.numel() > 0) x.set_bits(0, double_to_bits(x.dtype(), -1 - in[0].value_at(0)));
    return {x};
  }

 private:
  bool wrong_;
};

TEST(ConformanceLatitude, SqueezingAnAxisLongerThanOneMayBeANoOp) {
  for (const DType t : {DType::f32, DType::u32}) {
    const auto conf = run_profile(SqueezeNoOp(false), "squeeze", t, Profile::conformance, 5);
    EXPECT_EQ(conf.verdict, Verdict::pass) << conf.headline;
    EXPECT_EQ(run_profile(SqueezeNoOp(false), "squeeze", t, Profile::reference, 5).verdict, Verdict::fail);
    expect_wrong(SqueezeNoOp(true), "squeeze", t, 5);
  }
}

// The count and eps of a mean or a norm, read as given (n exact, PyTorch)
// besides the reference's T(n), T(eps): a bf16 row of 257 counts 256 one
// way and 257 the other. The other reading is offered exactly where it
// differs, and is the mean, or the normalized value, with the exact count.
TEST(ConformanceLatitude, MeansAndNormsMayCountExactly) {
  using oracle::Mp;
  Params eps;
  eps.set("eps", 0x1p-10);
  const auto exact_of = [&](const char* kernel, const oracle::Input& in) {
    oracle::Exact ex;
    ex.reset();
    contract::find_kernel(kernel)->math.exact(in, ex);
    return ex;
  };
  oracle::PrecisionScope scope(200);
  for (const std::size_t n : {257u, 200u}) {
    std::vector<double> x(n);
    long double sum = 0, sq = 0;
    for (std::size_t j = 0; j < n; ++j) sum += x[j] = static_cast<double>((j * 37) % 11) - 5;
    const long double mu = sum / n;
    for (double v : x) sq += (v - mu) * (v - mu);
    const oracle::Context ctx{.dtype = DType::bf16, .out_dtype = DType::bf16, .params = &eps};
    // (The inputs outlive the evaluations: the other reading refers to them.)
    const oracle::Input terms = oracle::Terms{ctx, x}, row = oracle::Row{ctx, x, {}, 7};
    const oracle::Exact mean = exact_of("mean_all", terms);
    const oracle::Exact norm = exact_of("layer_norm_last_dim", row);
    if (n == 200) {  // (200 and 2^-10 are bf16 values: one reading)
      EXPECT_FALSE(mean.other_reading || norm.other_reading);
      continue;
    }
    ASSERT_TRUE(mean.other_reading && norm.other_reading);
    EXPECT_NEAR(mean.other_reading()->convert_to<double>(), static_cast<double>(mu), 1e-15);
    EXPECT_NE(mean.value, *mean.other_reading());
    const long double want = (x[7] - mu) / std::sqrt(sq / n + 0x1p-10L);
    EXPECT_NEAR(norm.other_reading()->convert_to<double>(), static_cast<double>(want), 1e-12);
    EXPECT_GT(std::fabs(norm.value.convert_to<double>() - static_cast<double>(want)), 1e-6) << "the reference counts 256";
  }
}

// conv2d in bf16 and f16 too (widened to f32, the reference's f32 conv,
// rounded back): a library whose dtype table is wider than the
// reference's. Declaring the halves, it may answer them (not graded: the
// reference profile's rejection check fails, with "not graded" in its
// text); the planted defect computes them without declaring them, and its
// bad-input:dtype.unsupported still fails.
class ConvInHalves final : public testing_support::ReferenceBut {
 public:
  explicit ConvInHalves(bool declares) : ReferenceBut(declares ? "conv_halves_test" : "conv_halves_undeclared_test"), declares_(declares) {}
  std::optional<DTypeSet> supported(std::string_view kernel) const override {
    auto s = ReferenceBut::supported(kernel);
    if (s && declares_ && kernel == "conv2d") s->insert(DType::bf16), s->insert(DType::f16);
    return s;
  }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    if (in.empty() || (in[0].dtype() != DType::bf16 && in[0].dtype() != DType::f16)) return reference(kernel, in, p);
    const DType t = in[0].dtype();
    std::vector<Tensor> wide;
    for (const Tensor& x : in) wide.push_back(converted(x, x.dtype() == t ? DType::f32 : x.dtype()));
    std::vector<Tensor> out = reference(kernel, wide, p);
    for (Tensor& y : out) y = converted(y, t);
    return out;
  }

 private:
  static Tensor converted(const Tensor& x, DType t) {
    Tensor y(t, x.dims());
    for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, double_to_bits(t, round_to_format(x.value_at(i), t)));
    return y;
  }
  bool declares_;
};

TEST(ConformanceLatitude, ADtypeTheBackendDeclaresIsNoBadInput) {
  for (const DType t : {DType::f32, DType::f64}) {
    const auto conf = run_profile(ConvInHalves(true), "conv2d", t, Profile::conformance, 5);
    EXPECT_EQ(conf.verdict, Verdict::pass) << conf.headline << (conf.failures.empty() ? "" : conf.failures.back().message);
    const auto ref = run_profile(ConvInHalves(true), "conv2d", t, Profile::reference, 5);
    EXPECT_TRUE(std::any_of(ref.failures.begin(), ref.failures.end(), [](const engine::ElementReport& f) {
      return f.check == "bad-input:dtype.unsupported (x), rejected as the reference does" &&
             f.message.find("not graded") != std::string::npos;
    })) << ref.headline;
    const auto wrong = run_profile(ConvInHalves(false), "conv2d", t, Profile::conformance, 5);
    EXPECT_EQ(wrong.verdict, Verdict::fail) << "a bf16 call it does not declare is still a bad input";
    EXPECT_NE(wrong.headline.find("dtype.unsupported"), std::string::npos) << wrong.headline;
  }
}

// Calls the operation defines and kconform has no oracle for (attention
// with Dv != Dq, a batched qmatmul): answered, they pass the conformance
// profile as not graded and fail the reference profile's "rejected as the
// reference does"; a rejection naming another rule still fails.
class AnswersUngraded final : public testing_support::ReferenceBut {
 public:
  explicit AnswersUngraded(bool wrong_rule) : ReferenceBut(wrong_rule ? "ungraded_wrong_rule_test" : "ungraded_answers_test"), wrong_rule_(wrong_rule) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    try {
      return reference(kernel, in, p);
    } catch (const KernelError& e) {
      const contract::KernelSpec& k = *contract::find_kernel(kernel);
      for (const auto& r : k.preconditions)
        if (r.ungraded_result && r.rule == e.rule() && r.operand == e.operand()) {
          if (wrong_rule_) throw KernelError(std::string(kernel), std::string(r.operand), Rule::shape_mismatch, "test");
          return {Tensor(in[0].dtype(), in[0].dims())};
        }
      throw;
    }
  }

 private:
  bool wrong_rule_;
};

TEST(ConformanceLatitude, ACallTheOperationDefinesMayBeAnsweredUngraded) {
  int rules = 0;
  for (const auto& k : contract::all_kernels())
    for (const auto& rule : k.preconditions) {
      if (!rule.ungraded_result) continue;
      ++rules;
      const std::string name = fmt::format("bad-input:{} ({})", rule_name(rule.rule), rule.operand);
      const DType t = k.dtypes().list().front();
      const auto conf = run_profile(AnswersUngraded(false), k.name, t, Profile::conformance, 3);
      EXPECT_EQ(conf.verdict, Verdict::pass) << k.name << ": " << conf.headline;
      const auto ref = run_profile(AnswersUngraded(false), k.name, t, Profile::reference, 3);
      const auto it = std::find_if(ref.failures.begin(), ref.failures.end(), [&](const engine::ElementReport& f) {
        return f.check == name + ", rejected as the reference does";
      });
      ASSERT_NE(it, ref.failures.end()) << k.name << " " << name;
      EXPECT_NE(it->message.find("not graded"), std::string::npos) << it->message;
      EXPECT_EQ(run_profile(AnswersUngraded(true), k.name, t, Profile::conformance, 3).verdict, Verdict::fail) << k.name;
    }
  EXPECT_EQ(rules, 5) << "attention_naive, attention_flash, attention_flash_backward (v), attention_paged_naive (v_cache), "
                         "qmatmul (a)";
}

}  // namespace
}  // namespace kc
