// Check "split_parts": concatenation undone by slicing: the property's
// `related` kernel (slice) applied to the output at [0, a.shape[dim]) and
// [a.shape[dim], out.shape[dim]) along `dim` gives a and b back, dims and
// bits (any NaN matching any NaN: payloads are the element grade's business).
#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class SplitParts final : public Check {
 public:
  explicit SplitParts(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const std::int64_t dim = v.cs.params.integer("dim");
      std::int64_t start = 0;
      for (std::size_t part = 0; part < 2; ++part) {
        const Tensor& want = v.cs.inputs.at(part);
        const std::int64_t len = want.dims().at(static_cast<std::size_t>(dim));
        const Params p = Params().set("dim", dim).set("start", start).set("len", len);
        const Tensor got = v.c.backend.run(p_.related, std::vector<Tensor>{v.y}, p).at(0);
        const char* name = part == 0 ? "a" : "b";
        if (got.dims() != want.dims())
          return fail(fmt::format("{}({}) of the output has dims {}, not {}'s {}", p_.related, p.to_string(),
                                  dims_to_string(got.dims()), name, dims_to_string(want.dims())));
        for (std::int64_t i = 0; i < want.numel(); ++i)
          if (!same_bits_or_nan(got, i, want, i))
            return fail(fmt::format("{}({}) of the output differs from {} at flat index {}: {:#x} instead of {:#x}",
                                    p_.related, p.to_string(), name, i, got.bits_at(i), want.bits_at(i)));
        start += len;
      }
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_split_parts(Registry& r) {
  r.push_back({.name = "split_parts",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 2 || !k.param("dim")) return "the kernel must join two inputs along `dim`";
                 return p.related.empty() ? "names no slicing kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<SplitParts>(*p); }});
}

}  // namespace kc::checks
