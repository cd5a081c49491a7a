// Check "attention_backward_jvp": attention_flash_backward's (dQ, dK) is
// the vector-Jacobian product of attention at dO in a general direction:
//   <dQ, dq> + <dK, dk> = <dO, J (dq, dk, 0)>
// within sum_i |dq_i| B_i + sum_i |dk_i| B_i (B_i the backward's bound at
// output i, its oracle's) plus the JVP's own rounding. dq_i = (5i + 2) mod
// 7 - 3 and dk_i = (3i + 1) mod 5 - 2: small integers, exact in every
// dtype, and no direction along which the scores stay put (unlike the
// invariant (q, -k) of attention_backward_matches_forward).
//
// J dx is the exact directional derivative of the forward, in MPFR: over a
// query row's admissible keys (oracles/attention_layout.h's Mask: the
// kernel's causal and window rules, S and c as T::from(f32)),
//   x_j = S q . k_j,  z_j = c tanh(x_j / c) (x_j without a softcap) + slope (j - i),
//   p = softmax(z),  dz_j = f'(x_j) S (dq . k_j + q . dk_j),  f' = 1 - tanh^2(x_j / c) (1 without),
//   d out = sum_j p_j (dz_j - sum_j' p_j' dz_j') v_j,
// and <dO, J dx> sums dO . d out over the rows, GQA heads to their KV head
// (hq / (Hq / Hk)). It is evaluated at 512 bits: each of its terms is
// within 2^-500 of its magnitude (a few hundred roundings of 2^-512), so
// the comparison allows 2^-480 of the sum of the terms' magnitudes besides.
// The backward takes q, k, v themselves (no rounded forward output in
// between): the backward's bounds are the whole allowance otherwise. Cases
// with a cell graded against the replay (a non-finite input or score) or
// a non-finite output are not compared.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"
#include "oracles/attention_layout.h"

namespace kc::checks {

namespace {

using oracle::Mp;

double dq_at(std::int64_t i) { return static_cast<double>((i * 5 + 2) % 7 - 3); }
double dk_at(std::int64_t i) { return static_cast<double>((i * 3 + 1) % 5 - 2); }

// <dO, J (dq, dk, 0)>, and the sum of its terms' magnitudes.
struct Jvp {
  Mp value = Mp(0), magnitude = Mp(0);
};

// `mk`: the reference's reading of the scale and softcap, or the other
// reading (as given: oracle::Exact::other_reading).
Jvp attention_jvp(const gen::Case& cs, const oracle::attention::Mask& mk) {
  const Tensor &q = cs.inputs[0], &k = cs.inputs[1], &v = cs.inputs[2], &dout = cs.inputs[3];
  const Tensor* alibi = cs.inputs.size() > 4 ? &cs.inputs[4] : nullptr;
  const std::int64_t B = q.dims()[0], hq_n = q.dims()[1], sq = q.dims()[2], d = q.dims()[3];
  const std::int64_t hk_n = k.dims()[1], sk = k.dims()[2], groups = hq_n / hk_n;
  const Mp scale(mk.scale), cap(mk.softcap);
  Jvp out;
  std::vector<Mp> z(static_cast<std::size_t>(sk)), dz(z.size());
  std::vector<bool> adm(z.size());
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t hq = 0; hq < hq_n; ++hq) {
      const std::int64_t kv = (b * hk_n + hq / groups) * sk * d;
      for (std::int64_t qi = 0; qi < sq; ++qi) {
        const std::int64_t at = ((b * hq_n + hq) * sq + qi) * d;
        Mp zmax;
        bool any = false;
        for (std::int64_t j = 0; j < sk; ++j) {
          const auto u = static_cast<std::size_t>(j);
          adm[u] = mk.admissible(qi, j);
          if (!adm[u]) continue;
          Mp dot(0), ddot(0);
          for (std::int64_t x = 0; x < d; ++x) {
            dot += Mp(q.value_at(at + x)) * Mp(k.value_at(kv + j * d + x));
            ddot += Mp(dq_at(at + x)) * Mp(k.value_at(kv + j * d + x)) + Mp(q.value_at(at + x)) * Mp(dk_at(kv + j * d + x));
          }
          Mp x = dot * scale, slope_term(0), fprime(1);
          if (mk.softcap != 0) {
            const Mp th = boost::multiprecision::tanh(x / cap);
            x = cap * th;
            fprime = Mp(1) - th * th;
          }
          if (alibi) slope_term = Mp(alibi->value_at(hq)) * Mp(static_cast<double>(j - qi));
          z[u] = x + slope_term;
          dz[u] = fprime * scale * ddot;
          if (!any || z[u] > zmax) zmax = z[u], any = true;
        }
        if (!any) continue;  // no admissible key: the output is +0 whatever q and k
        Mp sum(0), mean_dz(0);
        for (std::size_t u = 0; u < z.size(); ++u)
          if (adm[u]) z[u] = boost::multiprecision::exp(z[u] - zmax), sum += z[u];  // z now the weights
        for (std::size_t u = 0; u < z.size(); ++u)
          if (adm[u]) mean_dz += z[u] / sum * dz[u];
        for (std::size_t u = 0; u < z.size(); ++u) {
          if (!adm[u]) continue;
          const Mp dp = z[u] / sum * (dz[u] - mean_dz);
          for (std::int64_t x = 0; x < d; ++x) {
            const Mp term = Mp(dout.value_at(at + x)) * dp * Mp(v.value_at(kv + static_cast<std::int64_t>(u) * d + x));
            out.value += term;
            out.magnitude += boost::multiprecision::abs(term);
          }
        }
      }
    }
  return out;
}

class AttentionBackwardJvp final : public Check {
 public:
  explicit AttentionBackwardJvp(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor &q = v.cs.inputs.at(0), &k = v.cs.inputs.at(1);
      const std::int64_t nq = q.numel(), nk = k.numel();
      const auto bounds = output_bounds(v);
      if (!bounds) return;
      oracle::PrecisionScope scope(512);
      ExactDot lhs;
      Mp b(0);
      for (std::int64_t i = 0; i < nq; ++i) {
        lhs.add(v.outputs[0].value_at(i), dq_at(i));
        b += Mp(std::fabs(dq_at(i))) * (*bounds)[static_cast<std::size_t>(i)];
      }
      for (std::int64_t i = 0; i < nk; ++i) {
        lhs.add(v.outputs[1].value_at(i), dk_at(i));
        b += Mp(std::fabs(dk_at(i))) * (*bounds)[static_cast<std::size_t>(nq + i)];
      }
      const auto mk = oracle::attention::Mask::of(v.cs.params, v.c.t);
      Jvp j = attention_jvp(v.cs, mk);
      const Mp l = lhs.value();
      Mp off = boost::multiprecision::abs(l - j.value);
      // (Either reading of the parameters is the definition: the other one
      // where the first does not hold.)
      if (off > b + j.magnitude * Mp(0x1p-480) && !(mk.as_given(v.cs.params) == mk)) {
        const Jvp given = attention_jvp(v.cs, mk.as_given(v.cs.params));
        if (boost::multiprecision::abs(l - given.value) < off) j = given, off = boost::multiprecision::abs(l - j.value);
      }
      b += j.magnitude * Mp(0x1p-480);
      if (off > b)
        return fail(fmt::format("<dQ, dq> + <dK, dk> = {:.17g}, <dO, J (dq, dk, 0)> = {:.17g} (exact): {:.6g} apart, "
                                "beyond the bound {:.6g} (dq_i = (5i + 2) mod 7 - 3, dk_i = (3i + 1) mod 5 - 2)",
                                l.convert_to<double>(), j.value.convert_to<double>(), off.convert_to<double>(),
                                b.convert_to<double>()));
      acc.record(v.c, tally, true);
    });
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_attention_backward_jvp(Registry& r) {
  r.push_back({.name = "attention_backward_jvp",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property&) -> std::string {
                 const std::string why = attention_fit(k, true);
                 return why.empty() ? "" : "an attention backward kernel " + why;
               },
               .make = [](const contract::Property* p) { return std::make_unique<AttentionBackwardJvp>(*p); }});
}

}  // namespace kc::checks
