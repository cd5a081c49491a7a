// Throughput of the reference unary kernels per dtype (elements per second).
#include <benchmark/benchmark.h>

#include "backends/reference/executor.h"
#include "kernels/unary.h"

namespace {

void BM_unary(benchmark::State& state, kc::kern::UnaryOp op, kc::DType t) {
  kc::Tensor x(t, {4096});
  for (std::int64_t i = 0; i < x.numel(); ++i)
    x.set_bits(i, kc::double_to_bits(t, kc::round_to_format(0.001 * static_cast<double>(i % 2000) - 1.0, t)));
  kc::kern::UnaryArgs args{.n = 3, .c = 0.5, .lo = -0.5, .hi = 0.5};
  for (auto _ : state) benchmark::DoNotOptimize(kc::kern::unary(op, x, args));
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void register_all() {
  for (int i = 0; i <= static_cast<int>(kc::kern::UnaryOp::clamp); ++i)
    for (kc::DType t : kc::kFloatDTypes) {
      const auto op = static_cast<kc::kern::UnaryOp>(i);
      benchmark::RegisterBenchmark(
          (std::string(kc::kern::unary_op_name(op)) + "/" + std::string(kc::dtype_name(t))).c_str(),
          [op, t](benchmark::State& s) { BM_unary(s, op, t); });
    }
}

const int registered = (register_all(), 0);

}  // namespace
