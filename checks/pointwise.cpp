// Check "pointwise": holds(x, y) for every element of a one-input kernel
// and its output (relu(x) >= 0, floor(x) <= x, ...), exactly, on the
// kernel's own outputs; NaN inputs are skipped.
#include <cmath>

#include "checks/check.h"
#include "engine/failure_text.h"

namespace kc::checks {

namespace {

class Pointwise final : public Check {
 public:
  explicit Pointwise(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    if (!p_.applies_to(v.c.t)) return;
    auto& tally = acc.tally("property:" + std::string(p_.name), engine::CheckKind::property);
    const Tensor& x = v.cs.inputs.front();
    const std::int64_t n = x.numel();
    const ElementReader xr(x), yr(v.y);  // (typed reads: a sweep checks 2^32)
    std::int64_t held = 0;  // (passes counted here and added once)
    for (std::int64_t i = 0; i < n; ++i) {
      const double xv = xr.value(i), yv = yr.value(i);
      if (std::isnan(xv)) continue;
      if (p_.holds(xv, yv)) {
        ++held;
        continue;
      }
      engine::Grade g;
      g.why = "property does not hold";
      const drivers::Element e{.out = i,
                               .in = oracle::Scalar{{v.c.t, v.c.k.out_dtype(v.c.t), &v.cs.params}, xv},
                               .shown = {x.bits_at(i)},
                               .names = {"x"},
                               .replayable = true};
      acc.record(v.c, tally, false, engine::element_key(v.c, e), [&] {
        // `--input` checks the pointwise properties too (engine/runner.cpp
        // replay_element): the element alone replays the failure.
        return engine::element_report(v.c, tally.name, v.case_id, v.path, v.cs, e, yv, v.y.bits_at(i), g, "(property)",
                                      false, true);
      });
    }
    tally.passed += held;
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_pointwise(Registry& r) {
  r.push_back({.name = "pointwise",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (!p.holds) return "a pointwise property needs its predicate holds(x, y)";
                 if (k.inputs.size() != 1) return "a pointwise property relates one input to its output";
                 return {};
               },
               .make = [](const contract::Property* p) { return std::make_unique<Pointwise>(*p); }});
}

}  // namespace kc::checks
