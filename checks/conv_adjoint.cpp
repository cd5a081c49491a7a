// Check "conv_adjoint": conv_transpose2d is the adjoint of conv2d (the
// property's `related` kernel) with the same weights, stride, padding and
// groups: for the case's input y and a u of the output's dims (small
// integers), <u, conv_t(y)> = <conv2d(u), y> in exact arithmetic. Each
// computed output lies within its dot-product bound of its exact value
// (docs/accuracy-bounds.md, "Dot products"), so the two sides differ by at
// most sum_o |u_o| B(conv_t)_o + sum_i |y_i| B(conv2d)_i (the inner
// products themselves exact, in MPFR). Applies where conv2d is conv_t's
// adjoint at all: dilation 1 and output_padding < stride >= 1 (then
// conv2d's output has y's dims); the case's non-finite and huge values
// are replaced by small integers first.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/linalg.h"
#include "oracles/mp.h"

namespace kc::checks {

namespace {

class ConvAdjoint final : public Check {
 public:
  explicit ConvAdjoint(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    const auto pair = [&](const char* n) { return v.cs.params.shape(n); };
    const auto s = pair("stride"), d = pair("dilation"), op = pair("output_padding");
    if (d != std::vector<std::int64_t>{1, 1} || s[0] < 1 || s[1] < 1 || op[0] >= s[0] || op[1] >= s[1]) return;
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      // The case's operands with every non-finite or huge value (> 2^20)
      // replaced by a small integer (the identity is about finite sums;
      // the case gives the geometry and the ordinary values), and the
      // kernel's output for them.
      const Tensor y = finite_copy(v.cs.inputs.at(0)), w = finite_copy(v.cs.inputs.at(1));
      const DType t = y.dtype();
      const Tensor a = v.c.backend.run(v.c.k.name, std::vector<Tensor>{y, w}, v.cs.params).at(0);
      for (std::int64_t i = 0; i < a.numel(); ++i)
        if (!std::isfinite(a.value_at(i))) return;
      Tensor u(t, a.dims());
      for (std::int64_t i = 0; i < u.numel(); ++i) u.set_bits(i, double_to_bits(t, static_cast<double>((i * 5 + 2) % 7 - 3)));
      const Params cp = Params().set("stride", s).set("padding", pair("padding")).set("groups", v.cs.params.integer("groups"));
      const gen::Case conv_case{{u, w}, cp, false};
      const Tensor b = v.c.backend.run(p_.related, conv_case.inputs, cp).at(0);
      if (b.dims() != y.dims())
        return fail(fmt::format("{} of u gave {}, not y's {}", p_.related, dims_to_string(b.dims()), dims_to_string(y.dims())));
      for (std::int64_t i = 0; i < b.numel(); ++i)
        if (!std::isfinite(b.value_at(i))) return;
      oracle::PrecisionScope scope(2048);
      using oracle::Mp;
      Mp lhs(0), rhs(0), bound(0);
      v.c.driver.for_each_element(v.c.k, gen::Case{{y, w}, v.cs.params, false}, [&](const drivers::Element& e) {
        const double uo = u.value_at(e.out);
        lhs += Mp(uo) * Mp(a.value_at(e.out));
        bound += Mp(std::fabs(uo)) * Mp(oracle::dot_bound_upper(t, e.input<oracle::Dot>().pairs));
      });
      const contract::KernelSpec* conv = contract::find_kernel(p_.related);
      drivers::of(*conv).for_each_element(*conv, conv_case, [&](const drivers::Element& e) {
        const double yi = y.value_at(e.out);
        rhs += Mp(b.value_at(e.out)) * Mp(yi);
        bound += Mp(std::fabs(yi)) * Mp(oracle::dot_bound_upper(t, e.input<oracle::Dot>().pairs));
      });
      const Mp diff = boost::multiprecision::abs(lhs - rhs);
      if (diff <= bound) acc.record(v.c, tally, true);
      else fail(fmt::format("|<u, conv_transpose2d(y)> - <{}(u), y>| = {} exceeds the bound {}", p_.related,
                            diff.str(8, std::ios_base::scientific), bound.str(8, std::ios_base::scientific)));
    }, Cost::linear);
  }

 private:
  static Tensor finite_copy(const Tensor& x) {
    Tensor c(x.dtype(), x.dims());
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      const double v = x.value_at(i);
      c.set_bits(i, std::isfinite(v) && std::fabs(v) <= 0x1p20 ? x.bits_at(i) : double_to_bits(x.dtype(), static_cast<double>(i % 5 - 2)));
    }
    return c;
  }
  const contract::Property& p_;
};

}  // namespace

void register_conv_adjoint(Registry& r) {
  r.push_back({.name = "conv_adjoint",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (!k.param("dilation") || !k.param("output_padding")) return "the kernel must be a transposed convolution";
                 return p.related.empty() ? "names no convolution (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<ConvAdjoint>(*p); }});
}

}  // namespace kc::checks
