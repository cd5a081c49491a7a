// An independent recomputation of a published figure: the maximum
// fractional ulp error of f32 exp over the run's graded inputs. It uses
// MPFR's C API directly (not the project's oracle, rounding or grading
// code) and the accuracy.md definition of ulp, on the (input, result) pairs
// the run dumped, and compares with the results JSON.
#include <mpfr.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " results.json elements.txt\n";
    return 2;
  }
  std::ifstream rf(argv[1]);
  const auto doc = nlohmann::json::parse(rf);
  double published = -1;
  std::int64_t published_n = -1;
  for (const auto& k : doc["kernels"])
    if (k["name"] == "exp")
      for (const auto& r : k["results"])
        if (r["dtype"] == "f32") {
          published = r["accuracy"]["max_frac_ulp"].get<double>();
          published_n = r["accuracy"]["graded"].get<std::int64_t>();
        }
  if (published < 0) {
    std::cerr << "no exp f32 result in " << argv[1] << "\n";
    return 1;
  }
  mpfr_t x, z, y, d;
  mpfr_inits2(200, x, z, y, d, static_cast<mpfr_ptr>(nullptr));
  std::ifstream ef(argv[2]);
  std::string line, kernel, dtype, xh, yh, how;
  long long case_id, elem;
  double max_err = 0;
  std::int64_t n = 0;
  while (std::getline(ef, line)) {
    std::istringstream is(line);
    is >> kernel >> dtype >> case_id >> elem >> xh >> yh >> how;
    // (Special values and replayed elements are dumped too; the published
    // maximum is over the elements whose ulp error it counts.)
    if (kernel != "exp" || dtype != "f32" || how != "accuracy") continue;
    const float xf = std::bit_cast<float>(static_cast<std::uint32_t>(std::stoul(xh, nullptr, 16)));
    const float yf = std::bit_cast<float>(static_cast<std::uint32_t>(std::stoul(yh, nullptr, 16)));
    mpfr_set_flt(x, xf, MPFR_RNDN);
    mpfr_exp(z, x, MPFR_RNDN);
    // ulp_f32(z) = 2^(max(e, -126) - 23) with 2^e <= |z| < 2^(e+1).
    long e = mpfr_zero_p(z) ? -126 : static_cast<long>(mpfr_get_exp(z)) - 1;
    if (e < -126) e = -126;
    mpfr_set_flt(y, yf, MPFR_RNDN);
    mpfr_sub(d, y, z, MPFR_RNDN);
    mpfr_abs(d, d, MPFR_RNDN);
    mpfr_mul_2si(d, d, -(e - 23), MPFR_RNDN);
    max_err = std::max(max_err, mpfr_get_d(d, MPFR_RNDN));
    ++n;
  }
  mpfr_clears(x, z, y, d, static_cast<mpfr_ptr>(nullptr));
  std::printf("exp f32: %lld elements, independent max %.12g ulp, published %.12g ulp (%lld graded)\n",
              static_cast<long long>(n), max_err, published, static_cast<long long>(published_n));
  const bool ok = n == published_n && n > 0 && std::fabs(max_err - published) <= 1e-9 * std::max(1.0, published);
  return ok ? 0 : 1;
}
