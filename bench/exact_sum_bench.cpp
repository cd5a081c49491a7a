// Cost per term of the exact-accumulation oracle (oracles/exact_sum.h)
// against the plain MPFR path it replaces (each product exact in MPFR,
// then mpfr_sum), both rounding each dot product once to f32's working
// precision; and a 64x64x64 f32 matmul graded by it against a stand-in
// for the kernel, which is not ported yet: the reference's fold (k
// ascending, an f32 accumulator) as a plain loop here. Run both in one
// process and compare ratios: the machine is shared.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include <mpfr.h>

#include "oracles/exact_sum.h"

namespace {

constexpr mpfr_prec_t kWorkingBits = 157;  // f32's working precision as Boost gives it (oracles/mp.h)
constexpr std::size_t kTerms = 256;

// Terms of a dot product: mixed signs over a wide range of exponents
// (2^-30 .. 2^30, as accumulation tests draw them), in f32 or f64.
std::vector<double> values(bool f32, std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::vector<double> v(n);
  for (auto& x : v) {
    x = std::ldexp(mant(rng), static_cast<int>(rng() % 61) - 30) * (rng() & 1 ? -1 : 1);
    if (f32) x = static_cast<float>(x);
  }
  return v;
}

void BM_dot_exact_sum(benchmark::State& state, bool f32) {
  const auto a = values(f32, kTerms, 1), b = values(f32, kTerms, 2);
  kc::oracle::ExactSum acc;
  mpfr_t out;
  mpfr_init2(out, kWorkingBits);
  for (auto _ : state) {
    acc.clear();
    // f32 products are exact in double: one double term each.
    if (f32)
      for (std::size_t i = 0; i < kTerms; ++i) acc.add(a[i] * b[i]);
    else
      for (std::size_t i = 0; i < kTerms; ++i) acc.add_product(a[i], b[i]);
    benchmark::DoNotOptimize(acc.round_into(out, MPFR_RNDN));
  }
  mpfr_clear(out);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kTerms));
}

void BM_dot_mpfr(benchmark::State& state, bool f32) {
  const auto a = values(f32, kTerms, 1), b = values(f32, kTerms, 2);
  std::vector<mpfr_t> products(kTerms);
  std::vector<mpfr_ptr> ptrs;
  for (auto& p : products) mpfr_init2(p, 106), ptrs.push_back(p);
  mpfr_t x, out;
  mpfr_init2(x, 53);
  mpfr_init2(out, kWorkingBits);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kTerms; ++i) {
      mpfr_set_d(products[i], a[i], MPFR_RNDN);
      mpfr_set_d(x, b[i], MPFR_RNDN);
      mpfr_mul(products[i], products[i], x, MPFR_RNDN);  // exact: 106 bits
    }
    benchmark::DoNotOptimize(mpfr_sum(out, ptrs.data(), kTerms, MPFR_RNDN));
  }
  for (auto& p : products) mpfr_clear(p);
  mpfr_clear(x);
  mpfr_clear(out);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kTerms));
}

constexpr int kN = 64;

void BM_matmul64_f32_kernel(benchmark::State& state) {
  const auto a = values(true, kN * kN, 3), b = values(true, kN * kN, 4);
  std::vector<float> fa(a.begin(), a.end()), fb(b.begin(), b.end()), c(kN * kN);
  for (auto _ : state) {
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) {
        float s = 0;
        for (int k = 0; k < kN; ++k) s += fa[i * kN + k] * fb[k * kN + j];
        c[i * kN + j] = s;
      }
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
}

// The oracle of every output: the exact sum and the exact sum of |products|
// (the condition-aware bound's S), each rounded to the working precision.
void BM_matmul64_f32_exact_oracle(benchmark::State& state) {
  const auto a = values(true, kN * kN, 3), b = values(true, kN * kN, 4);
  kc::oracle::ExactSum sum, abs_sum;
  mpfr_t z, s;
  mpfr_init2(z, kWorkingBits);
  mpfr_init2(s, kWorkingBits);
  for (auto _ : state) {
    for (int i = 0; i < kN; ++i)
      for (int j = 0; j < kN; ++j) {
        sum.clear();
        abs_sum.clear();
        for (int k = 0; k < kN; ++k) {
          const double p = a[i * kN + k] * b[k * kN + j];  // exact
          sum.add(p);
          abs_sum.add(std::fabs(p));
        }
        sum.round_into(z, MPFR_RNDN);
        abs_sum.round_into(s, MPFR_RNDN);
        benchmark::DoNotOptimize(z);
        benchmark::DoNotOptimize(s);
      }
  }
  mpfr_clear(z);
  mpfr_clear(s);
}

BENCHMARK_CAPTURE(BM_dot_exact_sum, f32, true);
BENCHMARK_CAPTURE(BM_dot_mpfr, f32, true);
BENCHMARK_CAPTURE(BM_dot_exact_sum, f64, false);
BENCHMARK_CAPTURE(BM_dot_mpfr, f64, false);
BENCHMARK(BM_matmul64_f32_kernel);
BENCHMARK(BM_matmul64_f32_exact_oracle);

}  // namespace
