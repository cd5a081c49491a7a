// Check "round_trip": a data mover undone by its inverse gives its input
// back exactly: the property's `related` kernel (the kernel itself when
// none is named) applied to the output with the property's `inverse`
// parameters (the same ones when null) returns x, dims and bits (any NaN
// matching any NaN: payloads are the element grade's business). Transpose
// twice, permute by the inverse permutation, flip twice, roll by s then -s.
#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class RoundTrip final : public Check {
 public:
  explicit RoundTrip(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor& x = v.cs.inputs.at(0);
      const Params back = p_.inverse ? p_.inverse(v.cs.params) : v.cs.params;
      const std::string_view op = p_.related.empty() ? v.c.k.name : p_.related;
      const auto z = v.c.backend.run(op, std::vector<Tensor>{v.y}, back);
      const Tensor& r = z.at(0);
      if (r.dims() != x.dims() || r.dtype() != x.dtype())
        return fail(fmt::format("{}({}) gave {} {}, not x's {} {}", op, back.to_string(), dtype_name(r.dtype()),
                                dims_to_string(r.dims()), dtype_name(x.dtype()), dims_to_string(x.dims())));
      for (std::int64_t i = 0; i < x.numel(); ++i)
        if (!same_bits_or_nan(r, i, x, i))
          return fail(fmt::format("{}({}) of the output differs from x at flat index {}: {:#x} instead of {:#x}", op,
                                  back.to_string(), i, r.bits_at(i), x.bits_at(i)));
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_round_trip(Registry& r) {
  r.push_back({.name = "round_trip",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property&) -> std::string {
                 return k.inputs.size() == 1 ? "" : "the kernel must take one input tensor";
               },
               .make = [](const contract::Property* p) { return std::make_unique<RoundTrip>(*p); }});
}

}  // namespace kc::checks
