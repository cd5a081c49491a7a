// Check "broadcast_consistent": broadcast_op(a, b) equals the same-shape
// op (the property's `related` kernel) on broadcast_to(a) and
// broadcast_to(b), bit for bit: broadcasting changes which elements pair
// up, never how a pair is combined.
#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class BroadcastConsistent final : public Check {
 public:
  explicit BroadcastConsistent(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Params to = Params().set("target", v.y.dims());
      auto a2 = v.c.backend.run("broadcast_to", std::vector<Tensor>{v.cs.inputs[0]}, to);
      auto b2 = v.c.backend.run("broadcast_to", std::vector<Tensor>{v.cs.inputs[1]}, to);
      auto same = v.c.backend.run(p_.related, std::vector<Tensor>{a2.at(0), b2.at(0)}, {});
      bool ok = same.size() == 1 && same[0].numel() == v.y.numel();
      std::int64_t bad = -1;
      for (std::int64_t o = 0; ok && o < v.y.numel(); ++o)
        if (!same_bits_or_nan(v.y, o, same[0], o)) ok = false, bad = o;
      if (ok) acc.record(v.c, tally, true);
      else fail(fmt::format("{}(a, b) differs from {}(broadcast_to(a), broadcast_to(b)) at element {}", v.c.k.name,
                            p_.related, bad));
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_broadcast_consistent(Registry& r) {
  r.push_back({.name = "broadcast_consistent",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 2) return "needs two operands";
                 return p.related.empty() ? "names no same-shape kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<BroadcastConsistent>(*p); }});
}

}  // namespace kc::checks
