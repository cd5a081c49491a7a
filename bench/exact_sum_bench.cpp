// Cost per term of the exact-accumulation oracle (oracles/exact_sum.h)
// against the plain MPFR path it replaces (each product exact in MPFR,
// then mpfr_sum), both rounding each dot product once to f32's working
// precision; and a 64x64x64 f32 matmul: the reference kernel (through the
// executor) against the oracle of all its outputs as a run evaluates them
// (the driver's pairs, oracle::dot: the exact sum rounded to the working
// precision, the bound's S from the double sum of |products|, the overflow
// test; one Exact reset per element, as the engine does). Each oracle on
// each path of the bulk calls: extraction 8 lanes at a time (AVX-512), 4
// (AVX2 and FMA), and the scalar paths; a path the CPU lacks is skipped.
// (The matmul oracle's other AVX2 loops, the driver's pairs and dot's
// |products|, run on every path where the CPU has AVX2: its "scalar"
// figure is the exact sums' scalar paths, not a CPU without AVX2.) Run them in one process and compare ratios: the
// machine is shared.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <vector>

#include <mpfr.h>

#include "backends/reference/executor.h"
#include "contracts/contract.h"
#include "drivers/driver.h"
#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/mp.h"

namespace {

constexpr mpfr_prec_t kWorkingBits = 157;  // f32's working precision as Boost gives it (oracles/mp.h)

// Terms of a dot product: mixed signs over a range of exponents, 2^-w ..
// 2^w: wide (w = 30, as accumulation tests draw them: products across 120
// binades) or narrow (w = 8: products within 32), in f32 or f64.
std::vector<double> values(bool f32, std::size_t n, unsigned seed, int w = 30) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mant(1.0, 2.0);
  std::vector<double> v(n);
  for (auto& x : v) {
    x = std::ldexp(mant(rng), static_cast<int>(rng() % static_cast<unsigned>(2 * w + 1)) - w) * (rng() & 1 ? -1 : 1);
    if (f32) x = static_cast<float>(x);
  }
  return v;
}

using Path = kc::oracle::ExactSum::Path;

// The path's benchmark runs where the CPU has it (the scalar paths: as on
// a CPU without AVX2 and FMA).
bool use_path(benchmark::State& state, Path path) {
  if (!kc::oracle::ExactSum::has_path(path)) {
    state.SkipWithError("this CPU does not have the path");
    return false;
  }
  kc::oracle::ExactSum::use_path(path);
  return true;
}

void BM_dot_exact_sum(benchmark::State& state, bool f32, Path path) {
  if (!use_path(state, path)) return;
  const auto kTerms = static_cast<std::size_t>(state.range(0));
  const int w = static_cast<int>(state.range(1));
  const auto a = values(f32, kTerms, 1, w), b = values(f32, kTerms, 2, w);
  std::vector<double> pairs, products(kTerms);
  for (std::size_t i = 0; i < kTerms; ++i) pairs.insert(pairs.end(), {a[i], b[i]});
  kc::oracle::ExactSum acc;
  mpfr_t out;
  mpfr_init2(out, kWorkingBits);
  for (auto _ : state) {
    acc.clear();
    // As oracle::dot: f32 products are exact in double, one double term
    // each; f64 products exactly as 106-bit ones.
    if (f32) {
      for (std::size_t i = 0; i < kTerms; ++i) products[i] = a[i] * b[i];
      acc.add_all(products.data(), kTerms);
    } else {
      acc.add_products(pairs.data(), kTerms);
    }
    benchmark::DoNotOptimize(acc.round_into(out, MPFR_RNDN));
  }
  state.counters["extracted"] = static_cast<double>(acc.terms_extracted());
  kc::oracle::ExactSum::use_default_path();
  mpfr_clear(out);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kTerms));
}

void BM_dot_mpfr(benchmark::State& state, bool f32) {
  const auto kTerms = static_cast<std::size_t>(state.range(0));
  const int w = static_cast<int>(state.range(1));
  const auto a = values(f32, kTerms, 1, w), b = values(f32, kTerms, 2, w);
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

constexpr std::int64_t kN = 64;

std::vector<kc::Tensor> matmul_operands(int w) {
  const auto a = values(true, kN * kN, 3, w), b = values(true, kN * kN, 4, w);
  kc::Tensor ta(kc::DType::f32, {kN, kN}), tb(kc::DType::f32, {kN, kN});
  for (std::int64_t i = 0; i < kN * kN; ++i) {
    ta.set_bits(i, kc::double_to_bits(kc::DType::f32, a[static_cast<std::size_t>(i)]));
    tb.set_bits(i, kc::double_to_bits(kc::DType::f32, b[static_cast<std::size_t>(i)]));
  }
  return {ta, tb};
}

void BM_matmul64_f32_kernel(benchmark::State& state) {
  const auto in = matmul_operands(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(kc::ref::execute("matmul_2d", in, kc::Params()));
}

// Every output's element (its 64 pairs, the driver's index maths) and its
// oracle at f32's working precision, as the engine evaluates them.
void BM_matmul64_f32_oracle(benchmark::State& state, Path path) {
  if (!use_path(state, path)) return;
  const auto* k = kc::contract::find_kernel("matmul_2d");
  const auto& driver = kc::drivers::of(*k);
  const kc::gen::Case c{matmul_operands(static_cast<int>(state.range(0))), kc::Params(), false};
  kc::oracle::PrecisionScope scope(kc::oracle::working_bits(kc::DType::f32));
  kc::drivers::Element e;
  kc::oracle::Exact ex;  // (reset per element, as engine/grading.cpp's evaluate does)
  for (auto _ : state)
    for (std::int64_t o = 0; o < kN * kN; ++o) {
      driver.element_at(*k, c, o, e);
      ex.reset();
      // (error_variance not wanted, as the engine asks of a random case:
      // only a statistics case's samples want it)
      ex.variance_wanted = false;
      k->math.exact(e.in, ex);
      benchmark::DoNotOptimize(ex);
    }
  kc::oracle::ExactSum::use_default_path();
}

// Dot products of 64 terms (a 64x64x64 matmul's) and of 1024, each over
// the wide and the narrow range of exponents (arguments: terms, w).
#define KC_DOT_ARGS ->ArgNames({"terms", "w"})->Args({64, 30})->Args({64, 8})->Args({1024, 30})->Args({1024, 8})
BENCHMARK_CAPTURE(BM_dot_exact_sum, f32_extract8, true, Path::extract8) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_exact_sum, f32_extract4, true, Path::extract4) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_exact_sum, f32_scalar, true, Path::scalar) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_mpfr, f32, true) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_exact_sum, f64_extract8, false, Path::extract8) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_exact_sum, f64_extract4, false, Path::extract4) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_exact_sum, f64_scalar, false, Path::scalar) KC_DOT_ARGS;
BENCHMARK_CAPTURE(BM_dot_mpfr, f64, false) KC_DOT_ARGS;
BENCHMARK(BM_matmul64_f32_kernel)->ArgName("w")->Arg(30)->Arg(8);
BENCHMARK_CAPTURE(BM_matmul64_f32_oracle, extract8, Path::extract8)->ArgName("w")->Arg(30)->Arg(8);
BENCHMARK_CAPTURE(BM_matmul64_f32_oracle, extract4, Path::extract4)->ArgName("w")->Arg(30)->Arg(8);
BENCHMARK_CAPTURE(BM_matmul64_f32_oracle, scalar, Path::scalar)->ArgName("w")->Arg(30)->Arg(8);

}  // namespace
