// Throughput of the reference unary kernels per dtype (elements per second),
// through the reference's exec bridge as the engine calls them.
#include <benchmark/benchmark.h>

#include "backends/reference/executor.h"

namespace {

constexpr const char* kUnary[] = {"neg", "relu", "sqr", "sqrt", "exp", "sign", "log", "sin", "cos",
                                  "abs", "recip", "tanh", "floor", "ceil", "erf", "gelu_erf", "round",
                                  "sigmoid", "silu", "gelu", "step", "rsqrt", "powi", "add_scalar",
                                  "mul_scalar", "clamp"};

void BM_unary(benchmark::State& state, const char* op, kc::DType t) {
  kc::Tensor x(t, {4096});
  for (std::int64_t i = 0; i < x.numel(); ++i)
    x.set_bits(i, kc::double_to_bits(t, kc::round_to_format(0.001 * static_cast<double>(i % 2000) - 1.0, t)));
  kc::Params p;
  for (const auto& d : kc::ref::find_arm(op)->params) {
    if (d.kind == kc::kern::ParamKind::integer) p.set(std::string(d.name), std::int64_t{3});
    else p.set(std::string(d.name), d.name == "max" ? 0.5 : -0.5);
  }
  const std::vector<kc::Tensor> in{x};
  for (auto _ : state) benchmark::DoNotOptimize(kc::ref::execute(op, in, p));
  state.SetItemsProcessed(state.iterations() * x.numel());
}

void register_all() {
  for (const char* op : kUnary)
    for (kc::DType t : kc::kFloatDTypes)
      benchmark::RegisterBenchmark((std::string(op) + "/" + std::string(kc::dtype_name(t))).c_str(),
                                   [op, t](benchmark::State& s) { BM_unary(s, op, t); });
}

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
