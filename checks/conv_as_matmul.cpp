// Check "conv_as_matmul": conv2d with a 1 x 1 kernel (stride 1, no padding,
// one group, no bias) is a matmul: for the case's x [N, Cin, H, W] and a
// weight W [Cout, Cin, 1, 1] made of the case's weight values, conv2d(x, W)
// equals the property's `related` kernel (matmul) of W (once per image,
// [N, Cout, Cin]) and x viewed as [N, Cin, H W], element for element,
// within both results' dot-product bounds (each lies within its bound of
// the same exact sum; docs/accuracy-bounds.md, "Dot products"). The
// reference folds both over ci ascending in T: equal bits there. Elements
// whose terms or results are not finite are skipped.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/linalg.h"

namespace kc::checks {

namespace {

class ConvAsMatmul final : public Check {
 public:
  explicit ConvAsMatmul(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor &x = v.cs.inputs.at(0), &w = v.cs.inputs.at(1);
      const DType t = x.dtype();
      const std::int64_t n = x.dims()[0], cin = x.dims()[1], hw = x.dims()[2] * x.dims()[3], cout = w.dims()[0];
      if (w.numel() == 0 || x.numel() == 0) return;
      Tensor w1(t, {cout, cin, 1, 1}), a(t, {n, cout, cin});
      for (std::int64_t i = 0; i < w1.numel(); ++i) w1.set_bits(i, w.bits_at(i % w.numel()));
      for (std::int64_t i = 0; i < a.numel(); ++i) a.set_bits(i, w1.bits_at(i % w1.numel()));
      const Params one = Params().set("stride", std::vector<std::int64_t>{1, 1}).set("padding", std::vector<std::int64_t>{0, 0})
                             .set("groups", std::int64_t{1});
      const Tensor conv = v.c.backend.run(v.c.k.name, std::vector<Tensor>{x, w1}, one).at(0);
      const Tensor mm = v.c.backend.run(p_.related, std::vector<Tensor>{a, x.reshaped({n, cin, hw})}, Params()).at(0);
      if (conv.numel() != n * cout * hw || mm.numel() != conv.numel())
        return fail(fmt::format("conv2d gave {} and {} gave {}: not [N, Cout, H, W] and [N, Cout, H W]",
                                dims_to_string(conv.dims()), p_.related, dims_to_string(mm.dims())));
      std::vector<double> pairs;
      for (std::int64_t o = 0; o < conv.numel(); ++o) {
        const std::int64_t s = o % hw, co = (o / hw) % cout, b = o / (hw * cout);
        pairs.clear();
        bool finite = true;
        for (std::int64_t ci = 0; ci < cin; ++ci) {
          pairs.push_back(x.value_at((b * cin + ci) * hw + s));
          pairs.push_back(w1.value_at(co * cin + ci));
          finite &= std::isfinite(pairs[pairs.size() - 2]) && std::isfinite(pairs.back());
        }
        const double c = conv.value_at(o), m = mm.value_at(o);
        if (!finite || !std::isfinite(c) || !std::isfinite(m)) continue;
        const double bound = 2 * oracle::dot_bound_upper(t, pairs);
        if (!(std::fabs(c - m) <= bound))  // (the difference of two T values is exact in double, or far beyond any bound)
          return fail(fmt::format("output {}: conv2d gives {} and {} gives {}, {} apart (bound {})", o, engine::fmt_value(c),
                                  p_.related, engine::fmt_value(m), engine::fmt_value(std::fabs(c - m)),
                                  engine::fmt_value(bound)));
      }
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_conv_as_matmul(Registry& r) {
  r.push_back({.name = "conv_as_matmul",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() < 2 || !k.param("groups")) return "the kernel must be a grouped 2-D convolution";
                 return p.related.empty() ? "names no matmul kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<ConvAsMatmul>(*p); }});
}

}  // namespace kc::checks
