// Check "bias" (where the accuracy model asks for it): the mean signed ulp
// error of the run's bias samples is zero within 6 standard errors. Under
// unbiased rounding errors the mean of N signed errors has mean 0 and
// standard error sd/sqrt(N); |mean| > 6 s.e. has probability below 2e-9
// (docs/accuracy-bounds.md, "Statistical check").
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class Bias final : public Check {
 public:
  static constexpr std::int64_t kMinSamples = 1000;
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    auto& tally = acc.tally("bias: mean signed ulp error is zero", "bias");
    // Fewer samples and the test has too little power to tell a biased
    // kernel from an unbiased one: it says so rather than pass or fail.
    if (acc.bias_n < kMinSamples) {
      acc.not_graded(tally, fmt::format("only {} samples, the test needs {} (run more cases)", acc.bias_n, kMinSamples));
      return;
    }
    const double n = static_cast<double>(acc.bias_n);
    const double mean = acc.bias_sum / n;
    const double var = std::max(0.0, acc.bias_sq / n - mean * mean);
    const double se = std::sqrt(var / n);
    const bool ok = std::fabs(mean) <= 6 * se;
    const std::string what = fmt::format("mean {:.3g}, standard error {:.3g}, z = {:.3g} over {} samples (limit |z| <= 6)",
                                         mean, se, se > 0 ? mean / se : 0.0, acc.bias_n);
    tally.detail = what;
    engine::ElementReport r;
    r.check = tally.name;
    r.repro = engine::base_command(v.c) + fmt::format(" --seed {}", v.c.opts.seed);
    r.message = fmt::format("{} {}: {}: {}\n  replay: {}", v.c.k.name, dtype_name(v.c.t), tally.name, what, r.repro);
    acc.record(v.c, tally, ok, &r);
  }
};

}  // namespace

void register_bias(Registry& r) {
  r.push_back({.name = "bias",
               .applies = [](const contract::KernelSpec& k, DType t) {
                 const contract::Accuracy* a = k.accuracy_for(t);
                 return a && a->check_bias;
               },
               .make = [](const contract::Property*) { return std::make_unique<Bias>(); }});
}

}  // namespace kc::checks
