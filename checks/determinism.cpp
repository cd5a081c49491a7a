// Check "determinism": the same input gives the same bits, on a valid case
// run twice.
#include <algorithm>

#include "checks/check.h"

namespace kc::checks {

namespace {

class Determinism final : public Check {
 public:
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    if (!v.first_valid) return;
    auto& tally = acc.tally("deterministic: same input, same bits", "determinism");
    bool ok = false;
    std::string what = "the two runs differ";
    try {
      const auto a = v.c.backend.run(v.c.k.name, v.first_valid->inputs, v.first_valid->params);
      const auto b = v.c.backend.run(v.c.k.name, v.first_valid->inputs, v.first_valid->params);
      ok = a.size() == b.size();
      for (std::size_t i = 0; ok && i < a.size(); ++i)
        ok = a[i].byte_size() == b[i].byte_size() &&
             std::equal(a[i].bytes(), a[i].bytes() + a[i].byte_size(), b[i].bytes());
    } catch (const std::exception& e) {
      what = e.what();
    }
    acc.record(v.c, tally, ok, "first valid case",
               [&] { return engine::case_report(v.c, tally.name, v.first_valid_id, {}, *v.first_valid, what); });
  }
};

}  // namespace

void register_determinism(Registry& r) {
  r.push_back({.name = "determinism",
               .applies = [](const contract::KernelSpec&, DType) { return true; },
               .make = [](const contract::Property*) { return std::make_unique<Determinism>(); }});
}

}  // namespace kc::checks
