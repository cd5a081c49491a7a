// core/rust_libm.cpp against the Rust libm crate itself: erf and exp of
// 11 070 inputs (every interval edge and a few ulps either side, draws in
// every interval, f32 values), computed by the crate
// (scripts/rust_libm_vectors.sh), must agree bit for bit. glibc's erf and
// exp differ from them on about 5% of these inputs, so the test also shows
// it tells the two apart.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "core/rust_libm.h"

namespace kc {
namespace {

TEST(RustLibm, ErfAndExpMatchTheCrateBitForBit) {
  std::ifstream in(KC_SOURCE_DIR "/tests/data/rust-libm-erf-exp.vectors");
  ASSERT_TRUE(in) << "tests/data/rust-libm-erf-exp.vectors is missing";
  std::string line;
  int n = 0, wrong = 0, glibc_differs = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string fn;
    std::uint64_t x = 0, want = 0;
    s >> fn >> std::hex >> x >> want;
    ASSERT_TRUE(s && (fn == "erf" || fn == "exp")) << line;
    const double xd = std::bit_cast<double>(x);
    const double got = fn == "erf" ? rust_libm::erf(xd) : rust_libm::exp(xd);
    const double glibc = fn == "erf" ? std::erf(xd) : std::exp(xd);
    ++n;
    if (std::bit_cast<std::uint64_t>(got) != want && wrong++ < 10)
      ADD_FAILURE() << fn << "(" << std::hexfloat << xd << "): want 0x" << std::hex << want << ", got 0x"
                    << std::bit_cast<std::uint64_t>(got);
    glibc_differs += std::bit_cast<std::uint64_t>(glibc) != want && !std::isnan(glibc);
  }
  EXPECT_GT(n, 10000) << "graded too few vectors";
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(glibc_differs, 100) << "the vectors do not tell the crate's erf from glibc's";
}

}  // namespace
}  // namespace kc
