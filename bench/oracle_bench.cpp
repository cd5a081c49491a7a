// Cost of grading one element against the MPFR oracle, per kernel and dtype
// (what bounds the exhaustive 16-bit sweeps and the random f32/f64 cases).
#include <benchmark/benchmark.h>

#include "backends/reference/executor.h"
#include "contracts/contract.h"
#include "engine/conformance.h"
#include "engine/grading.h"

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
  const kc::engine::RunOptions opts;
  const kc::engine::Context c{*k, t, *backend, driver, opts};
  for (auto _ : state) {
    auto g = kc::engine::grade_element(c, e, 0.75, kc::double_to_bits(t, 0.75), p);
    benchmark::DoNotOptimize(g);
  }
}

void register_all() {
  for (const auto& k : kc::engine::checked_kernels())
    for (kc::DType t : {kc::DType::f32, kc::DType::f64, kc::DType::bf16})
      benchmark::RegisterBenchmark((std::string(k.name) + "/" + std::string(kc::dtype_name(t))).c_str(),
                                   [kp = &k, t](benchmark::State& s) { BM_grade(s, kp, t); });
}

const int registered = (register_all(), 0);

}  // namespace
