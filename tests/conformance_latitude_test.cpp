// The audit's second round (issue 37, docs/conformance-audit.md, "Rules
// changed"): answers the operation's definition allows that the reference
// does not give. Each double is the reference with one such answer: it
// passes the conformance profile and fails the reference profile; a planted
// wrong answer beside it fails both.
#include <gtest/gtest.h>

#include "tests/test_support.h"

#include <cmath>
#include <cstdint>

#include "contracts/contract.h"
#include "engine/conformance.h"

namespace kc {
namespace {

using engine::Profile;
using engine::Verdict;
using testing_support::run_profile;

// Both profiles' verdicts of one double.
void expect_correct_not_reference(const Backend& b, const char* kernel, DType t, int cases) {
  const auto conf = run_profile(b, kernel, t, Profile::conformance, cases);
  EXPECT_EQ(conf.verdict, Verdict::pass) << b.name() << " " << kernel << " " << dtype_name(t) << ": " << conf.headline
                                         << "\n" << (conf.failures.empty() ? "" : conf.failures[0].message);
  const auto ref = run_profile(b, kernel, t, Profile::reference, cases);
  EXPECT_EQ(ref.verdict, Verdict::fail) << b.name() << " " << kernel << ": not the reference's answer";
}
void expect_wrong(const Backend& b, const char* kernel, DType t, int cases) {
  for (const auto profile : {Profile::conformance, Profile::reference})
    EXPECT_EQ(run_profile(b, kernel, t, profile, cases).verdict, Verdict::fail)
        << b.name() << " " << kernel << " in " << engine::profile_name(profile);
}

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

}  // namespace
}  // namespace kc
