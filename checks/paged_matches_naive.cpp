// Check "paged_matches_naive": attention_paged_naive equals the property's
// `related` kernel (attention_naive) on the same logical K/V: for each
// batch b, naive on q[b] and the L = context_lens[b] rows gathered
// contiguous, the implicit mask k > a = max(L - Sq, 0) + qi written as
// naive's: causal where L <= Sq (a = qi), else window_right = L - Sq with
// no causal flag. Element for element within both kernels' bounds (ALiBi's
// distance differs by the constant L - Sq across a row, which softmax does
// not see: not the same bits). Special rows (replayed by either oracle)
// are not compared.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"
#include "drivers/driver.h"

namespace kc::checks {

namespace {

class PagedMatchesNaive final : public Check {
 public:
  explicit PagedMatchesNaive(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const contract::KernelSpec* naive = contract::find_kernel(p_.related);
      if (!naive) throw std::logic_error("paged_matches_naive: no contract for " + std::string(p_.related));
      const drivers::Driver& nd = drivers::of(*naive);
      const auto& in = v.cs.inputs;
      const Dims &q = in[0].dims(), &kc = in[1].dims();
      const std::int64_t B = q[0], hq = q[1], sq = q[2], d = q[3], bs = kc[1], hkv = kc[2], mb = in[3].dims()[1];
      std::int64_t compared = 0;
      bool failed = false;
      for (std::int64_t b = 0; b < B && !failed; ++b) {
        const auto len = static_cast<std::int64_t>(in[4].bits_at(b));
        Tensor qb(v.c.t, {1, hq, sq, d}), kb(v.c.t, {1, hkv, len, d}), vb(v.c.t, {1, hkv, len, d});
        for (std::int64_t i = 0; i < qb.numel(); ++i) qb.set_bits(i, in[0].bits_at(b * qb.numel() + i));
        for (std::int64_t h = 0; h < hkv; ++h)
          for (std::int64_t k = 0; k < len; ++k) {
            const auto blk = static_cast<std::int64_t>(in[3].bits_at(b * mb + k / bs));
            for (std::int64_t x = 0; x < d; ++x) {
              const std::int64_t from = ((blk * bs + k % bs) * hkv + h) * d + x, to = (h * len + k) * d + x;
              kb.set_bits(to, in[1].bits_at(from)), vb.set_bits(to, in[2].bits_at(from));
            }
          }
        gen::Case nc{{qb, kb, vb}, Params(), false};
        if (in.size() > 5) nc.inputs.push_back(in[5]);
        nc.params.set("softmax_scale", v.cs.params.real("softmax_scale"))
            .set("softcap", v.cs.params.real("softcap"))
            .set("causal", std::int64_t{len <= sq ? 1 : 0})
            .set("window_left", std::int64_t{-1})
            .set("window_right", len <= sq ? std::int64_t{-1} : len - sq);
        const Tensor yn = v.c.backend.run(p_.related, nc.inputs, nc.params).at(0);
        nd.for_each_element(*naive, nc, [&](const drivers::Element& e) {
          if (failed) return;
          const std::int64_t o = b * qb.numel() + e.out;
          const std::optional<RowExact> gp = graded_row_exact(v, o);
          if (!gp) return;  // (a special-value rule's, or on a shaped case an element its sample left out)
          drivers::Element pe;
          v.c.driver.element_at(v.c.k, v.cs, o, pe);
          const RowExact& bp = *gp;
          const RowExact bn = row_exact(*naive, e.input<oracle::Row>());
          if (bp.replayed || bn.replayed || !oracle::is_number(bp.bound) || !oracle::is_number(bn.bound)) return;
          const double yp = v.y.value_at(o), yv = yn.value_at(e.out);
          ++compared;
          oracle::PrecisionScope scope(256);
          const oracle::Mp off = boost::multiprecision::abs(oracle::Mp(yp) - oracle::Mp(yv)), bound = bp.bound + bn.bound;
          if (!(std::isfinite(yp) && std::isfinite(yv)) || off > bound) {
            failed = true;
            fail(fmt::format("output {} ({}): {} gives {}, {} on the gathered context {}: {:.6g} apart, beyond both "
                             "bounds' sum {:.6g}",
                             o, pe.where_text(), v.c.k.name, engine::fmt_value(yp), p_.related, engine::fmt_value(yv),
                             off.convert_to<double>(), bound.convert_to<double>()));
          }
        });
      }
      if (!failed && compared > 0) acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_paged_matches_naive(Registry& r) {
  r.push_back({.name = "paged_matches_naive",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 const contract::KernelSpec* n = p.related.empty() ? nullptr : contract::find_kernel(p.related);
                 if (!n || !n->math.takes<oracle::Row>() || !k.math.takes<oracle::Row>() || k.inputs.size() != 6)
                   return "a paged kernel and a naive attention kernel with Row oracles (`related`)";
                 return "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<PagedMatchesNaive>(*p); }});
}

}  // namespace kc::checks
