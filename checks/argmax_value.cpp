// Check "argmax_value": the input element at argmax's (argmin's) index
// equals max_dim's (min_dim's) value, the property's `related` kernel, bit
// for bit. Cells holding a NaN are skipped: argmax keeps a NaN at index 0
// where max_dim ignores it. The driver gives each output cell's elements.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class ArgmaxValue final : public Check {
 public:
  explicit ArgmaxValue(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const auto m = v.c.backend.run(p_.related, v.cs.inputs, v.cs.params);
      const Tensor& best = m.at(0);
      v.c.driver.for_each_element(v.c.k, v.cs, [&](const drivers::Element& e) {
        const std::vector<double>& terms = e.input<oracle::Terms>().terms;
        bool has_nan = false;
        for (double a : terms) has_nan |= std::isnan(a);
        if (has_nan || terms.empty()) return;
        const double at = v.y.value_at(e.out);
        const double want = best.value_at(e.out);
        // Values compared, so +0 and -0 are equal: which of two equal zeros
        // comes first is the tie order, a reference choice the replay grades.
        const bool ok = at >= 0 && at < static_cast<double>(terms.size()) && terms[static_cast<std::size_t>(at)] == want;
        if (ok) acc.record(v.c, tally, true);
        else fail(fmt::format("x at index {} of output cell {} is not {}'s value", at, e.out, p_.related));
      });
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_argmax_value(Registry& r) {
  r.push_back({.name = "argmax_value",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (is_float(k.out_dtype(DType::f32))) return "the kernel must return indices";
                 return p.related.empty() ? "names no value kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<ArgmaxValue>(*p); }});
}

}  // namespace kc::checks
