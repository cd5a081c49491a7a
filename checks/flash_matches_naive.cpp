// Check "flash_matches_naive": attention_flash equals the property's
// `related` kernel (attention_naive) on the same case, element for
// element, within the sum of both kernels' bounds (each within its own of
// the same exact value; oracles/attention.cpp). The special rows (a
// non-finite input or score, no admissible key), where the two algorithms
// legitimately differ (a +inf score zeroes naive's row and drops one of
// flash's tiles), are not compared.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"

namespace kc::checks {

namespace {

class FlashMatchesNaive final : public Check {
 public:
  explicit FlashMatchesNaive(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const contract::KernelSpec* naive = contract::find_kernel(p_.related);
      if (!naive) throw std::logic_error("flash_matches_naive: no contract for " + std::string(p_.related));
      const Tensor other = v.c.backend.run(p_.related, v.cs.inputs, v.cs.params).at(0);
      if (other.dims() != v.y.dims())
        return fail(fmt::format("{} gave {}, {} gave {}", v.c.k.name, dims_to_string(v.y.dims()), p_.related,
                                dims_to_string(other.dims())));
      std::int64_t compared = 0;
      bool failed = false;
      each_graded_element(v, [&](const drivers::Element& e) {
        if (failed) return;
        const double yf = v.y.value_at(e.out), yn = other.value_at(e.out);
        const std::optional<RowExact> gf = graded_row_exact(v, e.out);
        if (!gf) return;
        const RowExact& bf = *gf;
        const RowExact bn = row_exact(*naive, e.input<oracle::Row>());
        if (bf.replayed || bn.replayed || !oracle::is_number(bf.bound) || !oracle::is_number(bn.bound)) return;
        if (!std::isfinite(yf) || !std::isfinite(yn)) {
          failed = true;
          return fail(fmt::format("output {} ({}): {} gives {}, {} gives {}, where both exact values are finite", e.out,
                                  e.where_text(), v.c.k.name, engine::fmt_value(yf), p_.related, engine::fmt_value(yn)));
        }
        ++compared;
        oracle::PrecisionScope scope(256);
        const oracle::Mp off = boost::multiprecision::abs(oracle::Mp(yf) - oracle::Mp(yn)), bound = bf.bound + bn.bound;
        if (off > bound) {
          failed = true;
          fail(fmt::format("output {} ({}): {} gives {}, {} gives {}: {:.6g} apart, beyond both bounds' sum {:.6g}", e.out,
                           e.where_text(), v.c.k.name, engine::fmt_value(yf), p_.related, engine::fmt_value(yn),
                           off.convert_to<double>(), bound.convert_to<double>()));
        }
      });
      if (!failed && compared > 0) acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_flash_matches_naive(Registry& r) {
  r.push_back({.name = "flash_matches_naive",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 const contract::KernelSpec* n = p.related.empty() ? nullptr : contract::find_kernel(p.related);
                 if (!n || !n->math.takes<oracle::Row>() || !k.math.takes<oracle::Row>())
                   return "names no attention kernel with a Row oracle (`related`)";
                 return "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<FlashMatchesNaive>(*p); }});
}

}  // namespace kc::checks
