// Helpers shared by the report tests (report_site_test.cpp,
// report_merge_test.cpp): a small run's document, files, a temporary folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "reports/results_json.h"
#include "tests/test_support.h"

namespace kc::report_testing {

namespace fs = std::filesystem;
using nlohmann::json;

// One condition-aware kernel among them, so the normalized column is exercised.
inline const json& small_doc() {
  static const json doc = [] {
    return reports::results_json(testing_support::small_run({"exp", "relu", "gelu_erf"}, {DType::f32, DType::f64}));
  }();
  return doc;
}

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / fmt::format("kc_site_{}_{}", name, ::getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

inline void write_json(const fs::path& p, const json& j) { std::ofstream(p) << j.dump(); }

}  // namespace kc::report_testing
