// Check "finite_outputs": every element of a shaped case's output (a
// tail's, a problem line's), the ones its exact sample left out too, is
// finite where it must be. The driver bounds every exact output of the
// case by M from its inputs (drivers::Driver::shaped_magnitude), where no
// order of the kernel's roundings can reach an overflow (so the overflow
// latitude admits no infinity); where M lies below the output dtype's
// largest finite value, RN(z) is finite for every output z, and a NaN or
// an infinity fails every accuracy model against it (engine/grading.cpp: a
// finite correctly rounded value against an infinite or NaN result). So a failure here is an accuracy failure of
// an element the sample did not grade: a tail tile left unwritten,
// garbage from a wrong stride, an overflowing partial sum. The check reads
// each element once (no oracle): it costs what copying the output costs.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "core/dtype.h"

namespace kc::checks {

namespace {

class FiniteOutputs final : public Check {
 public:
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    if (!v.cs.shaped) return;
    const std::optional<double> m = v.c.driver.shaped_magnitude(v.c.k, v.cs);
    if (!m) return;
    CheckTally& tally = acc.tally("finite_outputs", engine::CheckKind::property);
    for (std::size_t part = 0; part < v.outputs.size(); ++part) {
      const Tensor& y = v.outputs[part];
      // (Integer outputs, an argmax's indices, are finite.)
      if (!is_float(y.dtype()) || !(*m < max_finite(y.dtype()))) continue;
      for (std::int64_t i = 0; i < y.numel(); ++i) {
        const double value = y.value_at(i);
        if (std::isfinite(value)) continue;
        const std::string what = fmt::format(
            "output {}{} element {} is {}, where every exact output of this case is at most {:.6g} in magnitude "
            "and no order of its roundings reaches an overflow ({}'s bound from the inputs): its correctly rounded "
            "value is a finite {}, so every accuracy model fails this element",
            part, v.outputs.size() > 1 ? "" : " (y)", i, engine::fmt_value(value), *m, v.c.driver.name(),
            dtype_name(y.dtype()));
        return acc.record(v.c, tally, false, fmt::format("case {}", v.case_id),
                          [&] { return engine::case_report(v.c, tally.name, v.case_id, v.path, v.cs, what); });
      }
      acc.shapes.finite_held += y.numel();
    }
    acc.record(v.c, tally, true);
  }
};

}  // namespace

void register_finite_outputs(Registry& r) {
  r.push_back({.name = "finite_outputs",
               .applies = [](const contract::KernelSpec&, DType) { return true; },
               .make = [](const contract::Property*) { return std::make_unique<FiniteOutputs>(); }});
}

}  // namespace kc::checks
