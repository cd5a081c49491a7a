// Shared by the exact-sum tests (exact_sum_test.cpp,
// exact_sum_extraction_test.cpp): the plain MPFR path the exact sums are
// held against, and the comparison over every bulk path this CPU has.
#pragma once

#include <random>
#include <string>
#include <vector>

#include <mpfr.h>

#include "oracles/exact_sum.h"

namespace kc::exact_sum_testing {

using oracle::ExactSum;

struct Term {
  double a, b;
};

// The plain MPFR path: exact products, one correctly rounded sum.
int mpfr_dot(const std::vector<Term>& terms, mpfr_ptr out);

// The bulk calls' paths this CPU has: extraction 8 and 4 terms at a time,
// and the scalar paths; each one's name.
using Path = ExactSum::Path;
std::vector<Path> paths_here();
std::string name(Path p);

// The exact sums of `terms` (one term at a time and by the bulk calls)
// against the plain MPFR path at several precisions, on every path of the
// bulk calls: the same number, sign of zero and ternary value.
void expect_same(const std::vector<Term>& terms, const std::string& what);

// A finite value of every binade of the dtype (subnormals included), by
// random bit patterns with the non-finite ones redrawn.
double random_finite(std::mt19937_64& rng, bool f32);

}  // namespace kc::exact_sum_testing
