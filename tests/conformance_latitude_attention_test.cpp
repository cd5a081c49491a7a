// The audit's attention latitudes (issue 37, docs/conformance-audit.md):
// the scale and softcap read as given, and a query row with no admissible
// key answered as PyTorch answers it. Each double passes the conformance
// profile and fails the reference profile; a planted defect beside it fails.
#include <gtest/gtest.h>

#include "tests/latitude_support.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>

#include <fmt/format.h>

#include "contracts/contract.h"
#include "drivers/driver.h"
#include "engine/conformance.h"
#include "oracles/exact.h"
#include "oracles/rounding.h"

namespace kc {
namespace {

using engine::Profile;
using engine::Verdict;
using testing_support::expect_correct_not_reference;
using testing_support::expect_wrong;
using testing_support::run_profile;

// Whether key kj is admissible for query row qi (the contract's mask:
// top-left causal, windows).
bool admissible(const Params& p, std::int64_t qi, std::int64_t kj) {
  const std::int64_t left = p.integer("window_left"), right = p.integer("window_right");
  return !(p.integer("causal") != 0 && kj > qi) && !(left >= 0 && kj + left < qi) && !(right >= 0 && kj > qi + right);
}

// attention_naive in f64 with the scale and softcap as the call gives them
// (the reference narrows both to f32 first, ~2^-25 away), and NaN for a
// query row with no admissible key (PyTorch's softmax of an all -inf row;
// the reference gives +0). The planted defect scales by 1 + 2^-20 more.
// Rows with ALiBi slopes are left to the reference.
class AttentionAsGiven final : public testing_support::ReferenceBut {
 public:
  explicit AttentionAsGiven(bool wrong) : ReferenceBut(wrong ? "attention_scale_off_test" : "attention_as_given_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    if (in.size() != 3 || in[0].dtype() != DType::f64) return out;
    const Dims &qd = in[0].dims(), &kd = in[1].dims();
    const std::int64_t hq = qd[1], sq = qd[2], d = qd[3], hk = kd[1], sk = kd[2];
    const double scale = p.real("softmax_scale") * (wrong_ ? 1 + 0x1p-20 : 1), cap = p.real("softcap");
    std::vector<double> w(static_cast<std::size_t>(sk));
    for (std::int64_t row = 0; row < qd[0] * hq * sq; ++row) {
      const std::int64_t b = row / (hq * sq), h = row / sq % hq, qi = row % sq, kv = (b * hk + h / (hq / hk)) * sk;
      double m = -INFINITY, sum = 0;
      for (std::int64_t j = 0; j < sk; ++j) {
        double z = -INFINITY;
        if (admissible(p, qi, j)) {
          z = 0;
          for (std::int64_t x = 0; x < d; ++x) z += in[0].value_at(row * d + x) * in[1].value_at((kv + j) * d + x);
          z *= scale;
          if (cap != 0) z = std::tanh(z / cap) * cap;
        }
        m = std::max(m, w[static_cast<std::size_t>(j)] = z);
      }
      for (double& z : w) sum += z = std::isinf(z) ? 0 : std::exp(z - m);
      for (std::int64_t x = 0; x < d; ++x) {
        double o = 0;
        for (std::int64_t j = 0; j < sk; ++j) o += w[static_cast<std::size_t>(j)] * in[2].value_at((kv + j) * d + x);
        out[0].set_bits(row * d + x, std::bit_cast<std::uint64_t>(std::isinf(m) ? NAN : o / sum));
      }
    }
    return out;
  }

 private:
  bool wrong_;
};

TEST(ConformanceLatitude, AttentionMayUseItsParametersAsGivenAndNaNForAnEmptyRow) {
  expect_correct_not_reference(AttentionAsGiven(false), "attention_naive", DType::f64, 40);
  expect_wrong(AttentionAsGiven(true), "attention_naive", DType::f64, 40);
}

// Every output of the kernel the definition's value with the parameters as
// given (the oracle's other reading, else its value), rounded to T: a
// correct f64 kernel that reads the scale and softcap as f64. The planted
// defect moves each result 2^-20 of itself away.
class OracleAsGiven final : public testing_support::ReferenceBut {
 public:
  explicit OracleAsGiven(bool wrong) : ReferenceBut(wrong ? "oracle_off_test" : "oracle_as_given_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    // (The run calls a case again for its checks, and both profiles grade
    // the same cases: each call's answer is kept, by its bits.)
    static std::map<std::string, std::vector<Tensor>> seen;
    std::string key = std::string(kernel) + (wrong_ ? "!" : "") + p.to_string();
    for (const Tensor& x : in)
      for (std::int64_t i = 0; i < x.numel(); ++i) key += fmt::format(",{:x}", x.bits_at(i));
    if (const auto it = seen.find(key); it != seen.end()) return it->second;
    const contract::KernelSpec& k = *contract::find_kernel(kernel);
    const gen::Case cs{{in.begin(), in.end()}, p};
    const drivers::Expectation want = drivers::of(k).expected_output(k, cs);
    oracle::PrecisionScope scope(oracle::working_bits(in[0].dtype()));
    oracle::Exact ex;
    drivers::of(k).for_each_element(k, cs, [&](const drivers::Element& e) {
      ex.reset();
      k.math.exact(e.in, ex);
      const std::optional<oracle::Mp> given = ex.other_reading ? ex.other_reading() : std::nullopt;
      const double v = oracle::round_to(DType::f64, given.value_or(ex.value));
      const auto [part, at] = want.locate(e.out);
      out[part].set_bits(at, std::bit_cast<std::uint64_t>(wrong_ ? v * (1 + 0x1p-20) : v));
    });
    return seen[key] = out;
  }

 private:
  bool wrong_;
};

// (attention_naive and attention_flash share the oracle AttentionAsGiven
// checks; every element of this double is an MPFR evaluation, every call
// of the run one more pass: few cases, and the defect's reference-profile
// failure, its bits, is not run.)
TEST(ConformanceLatitude, TheBackwardAndPagedAttentionMayReadTheirParametersAsGiven) {
  for (const char* kernel : {"attention_flash_backward", "attention_paged_naive"}) {
    expect_correct_not_reference(OracleAsGiven(false), kernel, DType::f64, 2);
    EXPECT_EQ(run_profile(OracleAsGiven(true), kernel, DType::f64, Profile::conformance, 2).verdict, Verdict::fail) << kernel;
  }
}

// attention_flash_backward as PyTorch's math backend answers a query row
// with no admissible key: NaN in that row's dQ and in every dK and dV
// (the mask is the same for every head). The planted defect puts NaN in
// every dQ row once one row is masked.
class BackwardMaskedNaN final : public testing_support::ReferenceBut {
 public:
  explicit BackwardMaskedNaN(bool wrong) : ReferenceBut(wrong ? "backward_nan_everywhere_test" : "backward_masked_nan_test"), wrong_(wrong) {}
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    std::vector<Tensor> out = reference(kernel, in, p);
    const std::int64_t sq = in[0].dims()[2], d = in[0].dims()[3], sk = in[1].dims()[2];
    std::vector<bool> masked(static_cast<std::size_t>(sq));
    for (std::int64_t qi = 0; qi < sq; ++qi) {
      bool any = false;
      for (std::int64_t j = 0; j < sk; ++j) any |= admissible(p, qi, j);
      masked[static_cast<std::size_t>(qi)] = !any;
    }
    if (std::none_of(masked.begin(), masked.end(), [](bool m) { return m; })) return out;
    const std::uint64_t nan = double_to_bits(in[0].dtype(), NAN);
    for (std::int64_t i = 0; i < out[0].numel(); ++i)
      if (wrong_ || masked[static_cast<std::size_t>(i / d % sq)]) out[0].set_bits(i, nan);
    for (std::size_t part : {1u, 2u})
      for (std::int64_t i = 0; i < out[part].numel(); ++i) out[part].set_bits(i, nan);
    return out;
  }

 private:
  bool wrong_;
};

TEST(ConformanceLatitude, AttentionBackwardMayCarryAMaskedRowsNaN) {
  expect_correct_not_reference(BackwardMaskedNaN(false), "attention_flash_backward", DType::f32, 40);
  EXPECT_EQ(run_profile(BackwardMaskedNaN(true), "attention_flash_backward", DType::f32, Profile::conformance, 40).verdict,
            Verdict::fail);
}

}  // namespace
}  // namespace kc
