// Cost of grading one element against the MPFR oracle, per kernel and dtype
// (what bounds the exhaustive 16-bit sweeps and the random f32/f64 cases).
#include <benchmark/benchmark.h>

#include "contracts/contract.h"
#include "engine/grading.h"

namespace {

void BM_grade(benchmark::State& state, const kc::contract::KernelSpec* k, kc::DType t) {
  kc::Params p;
  for (const auto& prm : k->params) {
    if (prm.kind == kc::contract::ParamKind::integer) p.set(std::string(prm.name), std::int64_t{3});
    else p.set(std::string(prm.name), 0.5);
  }
  double x = 0.75;
  for (auto _ : state) {
    auto g = kc::engine::grade_element(*k, t, x, x, p);
    benchmark::DoNotOptimize(g);
  }
}

void register_all() {
  for (const auto& k : kc::contract::all_kernels())
    for (kc::DType t : {kc::DType::f32, kc::DType::f64, kc::DType::bf16})
      benchmark::RegisterBenchmark((std::string(k.name) + "/" + std::string(kc::dtype_name(t))).c_str(),
                                   [kp = &k, t](benchmark::State& s) { BM_grade(s, kp, t); });
}

const int registered = (register_all(), 0);

}  // namespace
