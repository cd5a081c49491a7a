// Cost of grading one element against the MPFR oracle, per kernel and dtype
// (what bounds the exhaustive 16-bit sweeps and the random f32/f64 cases).
#include <benchmark/benchmark.h>

#include "checks/check.h"
#include "backends/reference/executor.h"
#include "contracts/contract.h"
#include "engine/conformance.h"
#include "engine/grading.h"
#include "oracles/mp.h"

#include <cmath>
#include <mpfr.h>

namespace {

void BM_grade(benchmark::State& state, const kc::contract::KernelSpec* k, kc::DType t) {
  kc::Params p;
  for (const auto& prm : k->params) {
    if (prm.kind == kc::contract::ParamKind::integer) p.set(std::string(prm.name), std::int64_t{3});
    else p.set(std::string(prm.name), 0.5);
  }
  // One element of a one-element case of the kernel, as the driver maps it.
  const auto& driver = kc::drivers::of(*k);
  std::vector<std::uint64_t> bits(k->inputs.size(), kc::double_to_bits(t, 0.75));
  auto cs = driver.element_case(*k, t, bits, p);
  if (!cs) {
    state.SkipWithError("no one-element case for this kernel");
    return;
  }
  kc::drivers::Element e;
  driver.for_each_element(*k, *cs, [&](const kc::drivers::Element& el) { e = el; });
  const auto backend = kc::make_backend("reference");
  const kc::engine::RunOptions opts{.checks = &kc::checks::registry()};
  const kc::engine::Context c{*k, t, *backend, driver, opts};
  for (auto _ : state) {
    auto g = kc::engine::grade_element(c, e, 0.75, kc::double_to_bits(t, 0.75), p);
    benchmark::DoNotOptimize(g);
  }
}

void register_all() {
  for (const auto& k : kc::checks::checked_kernels())
    for (kc::DType t : {kc::DType::f32, kc::DType::f64, kc::DType::bf16})
      benchmark::RegisterBenchmark((std::string(k.name) + "/" + std::string(kc::dtype_name(t))).c_str(),
                                   [kp = &k, t](benchmark::State& s) { BM_grade(s, kp, t); });
}

}  // namespace

// Per-point cost of grading f32 exp, side by side in one run (compare
// their ratios, not the absolute times; run with
// --benchmark_enable_random_interleaving on a shared machine):
// * naive_mpfr: mpfr_exp at 128 bits, then mpfr_get_flt; no grade at all;
// * grade/working_precision: the full MPFR grade at the working precision
//   (f32: 152 bits), as every shown element is graded;
// * grade/mpfr_path: the MPFR path of a run (--exact-oracle): the 64-bit
//   first evaluation, the working precision where it does not decide;
// * grade/fast_path: a run's default, the double evaluation with its bound
//   (oracles/fast.h) as the bulk lane of a one-input elementwise case calls
//   it, the MPFR path where it does not decide.
// The inputs are 4096 f32 values spread over exp's finite range.
namespace {

std::vector<float> exp_inputs() {
  std::vector<float> xs;
  for (int i = 0; i < 4096; ++i) xs.push_back(-87.0f + 175.0f * static_cast<float>(i) / 4096.0f + 1e-3f * static_cast<float>(i % 7));
  return xs;
}

void BM_exp_f32_naive_mpfr(benchmark::State& state) {
  const auto xs = exp_inputs();
  mpfr_t x, y;
  mpfr_init2(x, 128);
  mpfr_init2(y, 128);
  std::size_t i = 0;
  for (auto _ : state) {
    mpfr_set_flt(x, xs[i++ & 4095], MPFR_RNDN);
    mpfr_exp(y, x, MPFR_RNDN);
    benchmark::DoNotOptimize(mpfr_get_flt(y, MPFR_RNDN));
  }
  mpfr_clear(x);
  mpfr_clear(y);
}

enum class Path { working_precision, mpfr, fast };

void BM_exp_f32_grade(benchmark::State& state, Path path) {
  const auto* k = kc::contract::find_kernel("exp");
  const auto backend = kc::make_backend("reference");
  const auto& driver = kc::drivers::of(*k);
  kc::engine::RunOptions opts{.checks = &kc::checks::registry()};
  opts.fast_oracle = path == Path::fast;
  const kc::engine::Context c{*k, kc::DType::f32, *backend, driver, opts};
  const auto xs = exp_inputs();
  std::vector<kc::drivers::Element> elements;
  std::vector<double> ys;
  for (float xv : xs) {
    const std::vector<std::uint64_t> bits{kc::double_to_bits(kc::DType::f32, xv)};
    auto cs = driver.element_case(*k, kc::DType::f32, bits, {});
    driver.for_each_element(*k, *cs, [&](const kc::drivers::Element& el) { elements.push_back(el); });
    ys.push_back(std::exp(static_cast<double>(xv)));
    ys.back() = static_cast<float>(ys.back());
  }
  const kc::Params p;
  const kc::contract::Accuracy* model = kc::engine::fast_model(c);
  if (path == Path::fast && !model) {
    state.SkipWithError("exp f32 has no fast path");
    return;
  }
  std::size_t i = 0;
  std::int64_t fast = 0, cheap = 0;
  kc::engine::LaneFigures f;  // one record, refilled per element, as the bulk lane's block of them
  for (auto _ : state) {
    const std::size_t j = i++ & 4095;
    const std::uint64_t yb = kc::double_to_bits(kc::DType::f32, ys[j]);
    // The fast path as a run takes it for a one-input elementwise kernel
    // (the bulk lane of engine/case_run.cpp): the figures alone, straight
    // from the input, where it decides; the MPFR path where it does not.
    if (path == Path::fast && kc::engine::grade_fast_scalar(c, *model, elements[j].input<kc::oracle::Scalar>().x, ys[j], yb, p, f)) {
      ++fast;
      benchmark::DoNotOptimize(f);
      continue;
    }
    auto g = kc::engine::grade_element(c, elements[j], ys[j], yb, p,
                                       path == Path::working_precision ? kc::engine::GradeMode::exact
                                                                       : kc::engine::GradeMode::mpfr);
    cheap += g.precision < kc::oracle::working_bits(kc::DType::f32);
    benchmark::DoNotOptimize(g);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["fast_share"] = static_cast<double>(fast) / n;
  state.counters["mpfr64_share"] = static_cast<double>(cheap) / n;
}

BENCHMARK(BM_exp_f32_naive_mpfr);
BENCHMARK_CAPTURE(BM_exp_f32_grade, working_precision, Path::working_precision);
BENCHMARK_CAPTURE(BM_exp_f32_grade, mpfr_path, Path::mpfr);
BENCHMARK_CAPTURE(BM_exp_f32_grade, fast_path, Path::fast);

}  // namespace

// The tables are registered from main, not from a static initializer: the
// contract table and the drivers' own tables are statics of other
// translation units, not yet constructed during this one's initialization.
int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
