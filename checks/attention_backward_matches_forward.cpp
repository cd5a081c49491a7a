// Check "attention_backward_matches_forward": attention_flash_backward's
// (dQ, dK, dV) is the vector-Jacobian product of attention at dO, checked
// through two directions dx where <dO, J dx> is known without the
// backward: <J^T dO, dx> = <dO, J dx> within the bound
//   |<v, dx> - <dO, J dx>| <= sum_i |dx_i| B_i (+ sum_i |dO_i| B_f,i),
// B_i the backward's bound at output i (its oracle), B_f,i the forward's.
//  * With `related` (attention_naive): dx = (0, 0, dv). Attention is
//    linear in V, so J dx = attention(q, k, dv), which the backend's
//    forward computes within its own bound B_f: <dV, dv> = <dO, attention(q, k, dv)>.
//    (dv_i = (3i + 1) mod 5 - 2: small integers, exact in every dtype.)
//  * Without: dx = (q, -k, 0). Every score depends on q and k through
//    q_i . k_j, which (1 + t) q and (1 - t) k change by O(t^2) only: J dx
//    = 0, so <dQ, q> = <dK, k> (softcap and ALiBi included: ALiBi does not
//    depend on q or k, softcap is a function of the score).
// Cases whose cells are graded against the replay (a non-finite input or
// score) or whose outputs are not finite are not compared.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"

namespace kc::checks {

namespace {

using oracle::Mp;

double dv_at(std::int64_t i) { return static_cast<double>((i * 3 + 1) % 5 - 2); }

class AttentionBackwardMatchesForward final : public Check {
 public:
  explicit AttentionBackwardMatchesForward(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor &q = v.cs.inputs.at(0), &k = v.cs.inputs.at(1), &dout = v.cs.inputs.at(3);
      const std::int64_t nq = q.numel(), nk = k.numel();
      // The backward's bounds, element by element; any replayed cell or
      // non-finite output: not compared.
      const auto bounds = output_bounds(v);
      if (!bounds) return;
      const std::vector<Mp>& bound = *bounds;
      bool comparable = true;
      oracle::PrecisionScope scope(1024);
      ExactDot lhs, rhs;
      Mp b(0);
      std::string what;
      if (p_.related.empty()) {
        for (std::int64_t i = 0; i < nq; ++i) {
          lhs.add(v.outputs[0].value_at(i), q.value_at(i));
          b += Mp(std::fabs(q.value_at(i))) * bound[static_cast<std::size_t>(i)];
        }
        for (std::int64_t i = 0; i < nk; ++i) {
          rhs.add(v.outputs[1].value_at(i), k.value_at(i));
          b += Mp(std::fabs(k.value_at(i))) * bound[static_cast<std::size_t>(nq + i)];
        }
        what = "<dQ, q> = {:.17g}, <dK, k> = {:.17g}";
      } else {
        const contract::KernelSpec* fwd = contract::find_kernel(p_.related);
        if (!fwd) throw std::logic_error("attention_backward_matches_forward: no contract for " + std::string(p_.related));
        gen::Case fc{{q, k, Tensor(v.c.t, k.dims())}, v.cs.params, false};
        for (std::int64_t i = 0; i < nk; ++i) fc.inputs[2].set_bits(i, double_to_bits(v.c.t, dv_at(i)));
        if (v.cs.inputs.size() > 4) fc.inputs.push_back(v.cs.inputs[4]);
        const Tensor o = v.c.backend.run(p_.related, fc.inputs, fc.params).at(0);
        if (o.dims() != q.dims())
          return fail(fmt::format("{} gave {} for q of {}", p_.related, dims_to_string(o.dims()), dims_to_string(q.dims())));
        for (std::int64_t i = 0; i < nk; ++i) {
          lhs.add(v.outputs[2].value_at(i), dv_at(i));
          b += Mp(std::fabs(dv_at(i))) * bound[static_cast<std::size_t>(nq + nk + i)];
        }
        drivers::of(*fwd).for_each_element(*fwd, fc, [&](const drivers::Element& e) {
          if (!comparable) return;
          const RowExact r = row_exact(*fwd, e.input<oracle::Row>());
          comparable = !r.replayed && oracle::is_number(r.bound) && std::isfinite(o.value_at(e.out));
          rhs.add(dout.value_at(e.out), o.value_at(e.out));
          b += Mp(std::fabs(dout.value_at(e.out))) * r.bound;
        });
        if (!comparable) return;
        what = fmt::format("<dV, dv> = {{:.17g}}, <dO, {}(q, k, dv)> = {{:.17g}} (dv_i = (3i + 1) mod 5 - 2)", p_.related);
      }
      const Mp l = lhs.value(), r = rhs.value(), off = boost::multiprecision::abs(l - r);
      if (off > b)
        return fail(fmt::format(fmt::runtime(what + ": {:.6g} apart, beyond the bound {:.6g}"), l.convert_to<double>(),
                                r.convert_to<double>(), off.convert_to<double>(), b.convert_to<double>()));
      acc.record(v.c, tally, true);
    });
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_attention_backward_matches_forward(Registry& r) {
  r.push_back({.name = "attention_backward_matches_forward",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (std::string why = attention_fit(k, true); !why.empty()) return "an attention backward kernel " + why;
                 const contract::KernelSpec* f = p.related.empty() ? nullptr : contract::find_kernel(p.related);
                 if (!p.related.empty() && (!f || !attention_fit(*f, false).empty()))
                   return "names no attention forward kernel (`related`)";
                 return "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<AttentionBackwardMatchesForward>(*p); }});
}

}  // namespace kc::checks
