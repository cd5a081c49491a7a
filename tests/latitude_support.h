// The audit's tests of a latitude (tests/conformance_latitude*_test.cpp):
// a double's verdicts in both profiles.
#pragma once

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace kc::testing_support {

// Both profiles' verdicts of one double.
inline void expect_correct_not_reference(const Backend& b, const char* kernel, DType t, int cases) {
  const auto conf = run_profile(b, kernel, t, engine::Profile::conformance, cases);
  EXPECT_EQ(conf.verdict, engine::Verdict::pass) << b.name() << " " << kernel << " " << dtype_name(t) << ": " << conf.headline
                                         << "\n" << (conf.failures.empty() ? "" : conf.failures.back().message);
  const auto ref = run_profile(b, kernel, t, engine::Profile::reference, cases);
  EXPECT_EQ(ref.verdict, engine::Verdict::fail) << b.name() << " " << kernel << ": not the reference's answer";
}
inline void expect_wrong(const Backend& b, const char* kernel, DType t, int cases) {
  for (const auto profile : {engine::Profile::conformance, engine::Profile::reference})
    EXPECT_EQ(run_profile(b, kernel, t, profile, cases).verdict, engine::Verdict::fail)
        << b.name() << " " << kernel << " in " << engine::profile_name(profile);
}

}  // namespace kc::testing_support
