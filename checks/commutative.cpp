// Check "commutative": f(a, b) == f(b, a) bit for bit, on the output
// elements whose input pair the property's predicate claims it for
// (maximum and minimum return b on ties and on a NaN in a). The kernel runs
// again with its operands swapped; the driver says which pair each output
// element reads.
#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class Commutative final : public Check {
 public:
  explicit Commutative(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor& a = v.cs.inputs[0];
      const Tensor& b = v.cs.inputs[1];
      const auto swapped = v.c.backend.run(v.c.k.name, std::vector<Tensor>{b, a}, v.cs.params);
      v.c.driver.for_each_element(v.c.k, v.cs, [&](const drivers::Element& e) {
        const auto& in = e.input<oracle::Pair>();
        if (!p_.holds(in.a, in.b)) return;
        const bool ok = swapped.size() == 1 && swapped[0].numel() == v.y.numel() &&
                        same_bits_or_nan(v.y, e.out, swapped[0], e.out);
        if (ok) acc.record(v.c, tally, true);
        else fail(fmt::format("f(a, b) != f(b, a) at output element {}", e.out));
      });
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_commutative(Registry& r) {
  r.push_back({.name = "commutative",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 2) return "commutativity needs two operands";
                 if (!p.holds) return "a commutative property needs its predicate holds(a, b)";
                 return {};
               },
               .make = [](const contract::Property* p) { return std::make_unique<Commutative>(*p); }});
}

}  // namespace kc::checks
