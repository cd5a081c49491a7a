// Checks "odd" and "even": f(-x) == -f(x) (odd) or f(-x) == f(x) (even),
// bit for bit (NaN matching NaN) where the accuracy model is exact or
// correctly rounded, within the model's latitude where it is an ulp bound
// (checks/property_latitude.h). The check runs the kernel again on -x
// (every sign bit flipped) and compares element by element.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/property_latitude.h"
#include "engine/failure_text.h"

namespace kc::checks {

namespace {

Tensor negated(const Tensor& x) {
  Tensor y(x.dtype(), x.dims());
  const std::uint64_t sign = 1ull << (float_format(x.dtype()).total_bits - 1);
  for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, x.bits_at(i) ^ sign);
  return y;
}

class Symmetry final : public Check {
 public:
  Symmetry(const contract::Property& p, bool odd) : p_(p), odd_(odd) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    if (!p_.applies_to(v.c.t)) return;
    auto& tally = acc.tally("property:" + std::string(p_.name), engine::CheckKind::property);
    const Tensor& x = v.cs.inputs.front();
    gen::Case neg = v.cs;
    neg.inputs.front() = negated(x);
    std::vector<Tensor> out2;
    try {
      out2 = v.c.backend.run(v.c.k.name, neg.inputs, neg.params);
    } catch (const std::exception& e) {
      const std::string what = fmt::format("kernel failed on -x: {}", e.what());
      acc.record(v.c, tally, false, fmt::format("case {}", v.case_id),
                 [&] { return engine::case_report(v.c, tally.name, v.case_id, v.path, v.cs, what); });
      return;
    }
    if (out2.size() != 1 || out2[0].numel() != x.numel()) return;  // the output check reports it
    const std::uint64_t sign = 1ull << (float_format(v.c.t).total_bits - 1);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      if (std::isnan(x.value_at(i))) continue;
      const std::uint64_t a = v.y.bits_at(i), b = out2[0].bits_at(i);
      const double av = v.y.value_at(i), bv = out2[0].value_at(i);
      // (the latitude only where it is not 0: bit for bit, a zero's sign included, otherwise)
      const double lat = property_latitude(v.c, av, bv);
      const bool ok = (std::isnan(av) && std::isnan(bv)) || (odd_ ? b == (a ^ sign) : b == a) ||
                      (lat > 0 && std::fabs(bv - (odd_ ? -av : av)) <= lat);
      if (ok) {
        acc.record(v.c, tally, true);
        continue;
      }
      engine::Grade g;
      g.why = odd_ ? "f(-x) != -f(x)" : "f(-x) != f(x)";
      const drivers::Element e{.out = i,
                               .in = oracle::Scalar{{v.c.t, v.c.k.out_dtype(v.c.t), &v.cs.params}, x.value_at(i)},
                               .shown = {x.bits_at(i)},
                               .names = {"x"}};
      acc.record(v.c, tally, false, engine::element_key(v.c, e), [&] {
        return engine::element_report(v.c, tally.name, v.case_id, v.path, v.cs, e, av, a, g,
                                      fmt::format("f(-x) = {} ({})", engine::fmt_value(bv), hex_bits(v.c.t, b)), false);
      });
    }
  }

 private:
  const contract::Property& p_;
  bool odd_;
};

std::string one_input(const contract::KernelSpec& k, const contract::Property&) {
  return k.inputs.size() == 1 ? "" : "a symmetry relates one input to its output";
}

}  // namespace

void register_symmetry(Registry& r) {
  r.push_back({.name = "odd", .per_property = true, .validate = one_input,
               .make = [](const contract::Property* p) { return std::make_unique<Symmetry>(*p, true); }});
  r.push_back({.name = "even", .per_property = true, .validate = one_input,
               .make = [](const contract::Property* p) { return std::make_unique<Symmetry>(*p, false); }});
}

}  // namespace kc::checks
