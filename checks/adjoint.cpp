// Check "adjoint": reduce_sum_to is the adjoint of broadcast_to (the
// property's `related` kernel): <x, broadcast(g)> == <reduce_sum_to(x), g>
// up to the sums' bound sum_c |g_c| gamma_{n_c - 1} S_c
// (docs/accuracy-bounds.md), with g small integers so that every product is
// exact. Cases with a non-finite x or result are not counted (the identity
// is about finite sums).
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/det_math.h"
#include "oracles/mp.h"
#include "oracles/rounding.h"

namespace kc::checks {

namespace {

class Adjoint final : public Check {
 public:
  explicit Adjoint(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor& x = v.cs.inputs[0];
      const Tensor& r = v.y;
      for (std::int64_t i = 0; i < x.numel(); ++i)
        if (!std::isfinite(x.value_at(i))) return;
      for (std::int64_t i = 0; i < r.numel(); ++i)
        if (!std::isfinite(r.value_at(i))) return;
      Tensor g(v.c.t, r.dims());
      for (std::int64_t i = 0; i < g.numel(); ++i)
        g.set_bits(i, double_to_bits(v.c.t, static_cast<double>((i * 5 + 2) % 7 - 3)));
      const auto bg = v.c.backend.run(p_.related, std::vector<Tensor>{g}, Params().set("target", x.dims()));
      oracle::PrecisionScope scope(1024);
      using oracle::Mp;
      Mp lhs(0), rhs(0), bound(0);
      for (std::int64_t i = 0; i < x.numel(); ++i) lhs += Mp(x.value_at(i)) * Mp(bg.at(0).value_at(i));
      const double u = oracle::unit_roundoff(v.c.t);
      v.c.driver.for_each_element(v.c.k, v.cs, [&](const drivers::Element& e) {
        const std::vector<double>& terms = e.input<oracle::Terms>().terms;
        Mp s(0);
        for (double a : terms) s += Mp(std::fabs(a));
        const long m = terms.empty() ? 0 : static_cast<long>(terms.size() - 1);
        const Mp gc(g.value_at(e.out));
        rhs += Mp(r.value_at(e.out)) * gc;
        bound += boost::multiprecision::abs(gc) * Mp(oracle::det::gamma_up(u, m)) * s;  // gamma_m = (1+u)^m - 1
      });
      const Mp diff = boost::multiprecision::abs(lhs - rhs);
      if (diff <= bound) acc.record(v.c, tally, true);
      else fail(fmt::format("|<x, broadcast(g)> - <reduce_sum_to(x), g>| = {} exceeds the bound {}",
                            diff.str(8, std::ios_base::scientific), bound.str(8, std::ios_base::scientific)));
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_adjoint(Registry& r) {
  r.push_back({.name = "adjoint",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (!k.param("target")) return "the kernel must take a target shape";
                 return p.related.empty() ? "names no broadcast kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<Adjoint>(*p); }});
}

}  // namespace kc::checks
