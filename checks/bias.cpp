// Check "bias" (where the accuracy model asks for it): the mean signed ulp
// error of the run's bias samples is zero within 6 standard errors
// (checks/bias.h).
#include "checks/bias.h"

#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class Bias final : public Check {
 public:
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    auto& tally = acc.tally("bias: mean signed ulp error is zero", engine::CheckKind::bias,
                            v.c.k.reference_constants.empty() ? engine::Profile::conformance : engine::Profile::reference);
    // Fewer samples and the test has too little power to tell a biased
    // kernel from an unbiased one: it says so rather than pass or fail.
    if (acc.bias_n < kBiasMinSamples) {
      acc.not_graded(tally, fmt::format("only {} samples, the test needs {} (run more cases)", acc.bias_n, kBiasMinSamples));
      return;
    }
    const BiasStatistic b = bias_statistic(acc.bias_n, acc.bias_sum.value(engine::kGridBits), acc.bias_sq.value(2 * engine::kGridBits));
    const std::string& what = b.detail;
    tally.detail = what;
    tally.metric = "|z|";
    tally.figure = b.z;
    tally.bound = kBiasMaxZ;
    acc.record(v.c, tally, b.ok, "run", [&] {
      // The statistic is over every case of the run: its replay is the run.
      engine::ElementReport r;
      r.check = tally.name;
      r.repro = engine::seed_replay(v.c);
      r.message = fmt::format("{} {}: {}: {}\n  replay: {}", v.c.k.name, dtype_name(v.c.t), tally.name, what, r.repro);
      return r;
    });
  }
};

}  // namespace

void register_bias(Registry& r) {
  r.push_back({.name = "bias",
               .of_contract_model = true,
               .applies = [](const contract::KernelSpec& k, DType t) {
                 const contract::Accuracy* a = k.accuracy_for(t);
                 return a && a->check_bias;
               },
               .make = [](const contract::Property*) { return std::make_unique<Bias>(); }});
}

}  // namespace kc::checks
