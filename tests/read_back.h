// A result written and read back (reports/results_reader.h): the typed
// result the merges combine must be the one the run wrote, byte for byte.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "reports/results_json.h"
#include "reports/results_reader.h"

namespace kc::testing_support {

inline void expect_reads_back(const engine::KernelDTypeResult& r, const std::string& what) {
  const nlohmann::json written = reports::result_json(r);
  const engine::KernelDTypeResult read = reports::read_result(written, r.kernel, r.family, what);
  EXPECT_EQ(reports::result_json(read).dump(), written.dump()) << what << ": the result does not read back as written";
  EXPECT_EQ(read.kernel, r.kernel);
  EXPECT_EQ(read.family, r.family);
}

}  // namespace kc::testing_support
