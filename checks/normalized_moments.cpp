// Check "normalized_moments": the outputs of a norm have the moments the
// normalization fixes, within the sum of the elements' bounds. With N =
// T(n), E = T(eps) and r = 1/sqrt(v + E) (layer_norm, v = sum (x - mu)^2 /
// N, mu = sum x / N) or 1/sqrt(q + E) (rms_norm, q = sum x^2 / N), exactly:
//   layer_norm: sum z / n = (sum x - n mu) r / n   (0 when N = n)
//               sum z^2 / n = (N / n) v / (v + E)   (the biased variance 1, eps accounted for)
//   rms_norm:   sum z^2 / n = (N / n) q / (q + E)
// computed from x here (MPFR), not from the oracle's z; and each y_j is
// within B_j (the entry's bound) of z_j, so |sum y / n - m1| <= sum B / n
// and |sum y^2 / n - m2| <= sum B (2 |y| + B) / n. Rows whose input or
// output is not finite, or whose bound is unbounded, are not compared.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"
#include "oracles/rounding.h"

namespace kc::checks {

namespace {

using oracle::Mp;

class NormalizedMoments final : public Check {
 public:
  explicit NormalizedMoments(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const bool layer = v.c.k.row_map == contract::RowMap::layer_norm;
      const Tensor& x = v.cs.inputs.at(0);
      const double eps = v.cs.params.has("eps") ? v.cs.params.real("eps") : 0.0;
      std::vector<double> xr, yr;
      std::int64_t rows = 0;
      bool failed = false;
      for_each_row(x, [&](std::int64_t at, std::int64_t n) {
        if (failed || !row_values(x, at, n, xr) || !row_values(v.y, at, n, yr)) return;
        oracle::PrecisionScope scope(1024);
        const Mp nn(oracle::num_cast(v.c.t, static_cast<double>(n))), ee(oracle::num_cast(v.c.t, eps)), count(n);
        Mp sx(0), sxx(0);
        for (double a : xr) sx += Mp(a), sxx += Mp(a) * Mp(a);
        const Mp mu = sx / nn;
        Mp var(0);
        for (double a : xr) var += (Mp(a) - mu) * (Mp(a) - mu);
        const Mp spread = layer ? var / nn : sxx / nn;  // v or q
        if (oracle::is_zero(spread + ee)) return;        // 0/0: undefined
        const Mp m1 = layer ? (sx - count * mu) / (count * boost::multiprecision::sqrt(spread + ee)) : Mp(0);
        const Mp m2 = nn / count * spread / (spread + ee);
        Mp s1(0), s2(0), b1(0), b2(0);
        RowOracle row(v.c.t, v.cs.params, xr);
        for (std::int64_t j = 0; j < n; ++j) {
          const auto jj = static_cast<std::size_t>(j);
          const std::optional<RowExact> ge = graded_or_evaluated(v, at + j, row, jj);
          if (!ge || !oracle::is_number(ge->bound)) return;
          const RowExact& e = *ge;
          const Mp y(yr[jj]);
          s1 += y, s2 += y * y;
          b1 += e.bound, b2 += e.bound * (Mp(2) * boost::multiprecision::abs(y) + e.bound);
        }
        ++rows;
        const Mp d1 = boost::multiprecision::abs(s1 / count - m1), d2 = boost::multiprecision::abs(s2 / count - m2);
        if (layer && d1 > b1 / count) {
          failed = true;
          fail(fmt::format("row at output {} ({} elements): mean {:.9g}, the exact {:.9g}, beyond the bound {:.6g}", at, n,
                           (s1 / count).convert_to<double>(), m1.convert_to<double>(), (b1 / count).convert_to<double>()));
        } else if (d2 > b2 / count) {
          failed = true;
          fail(fmt::format("row at output {} ({} elements): mean square {:.9g}, the exact {} {:.9g}, beyond the bound {:.6g}",
                           at, n, (s2 / count).convert_to<double>(), layer ? "(N/n) v/(v + eps)" : "(N/n) q/(q + eps)",
                           m2.convert_to<double>(), (b2 / count).convert_to<double>()));
        }
      });
      if (!failed && rows > 0) acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_normalized_moments(Registry& r) {
  r.push_back({.name = "normalized_moments",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property&) -> std::string {
                 if (k.row_map != contract::RowMap::layer_norm && k.row_map != contract::RowMap::rms_norm)
                   return "knows the moments of the row maps layer_norm and rms_norm only (the entry's row_map)";
                 return k.math.takes<oracle::Row>() ? "" : "the kernel's oracle must take a Row";
               },
               .make = [](const contract::Property* p) { return std::make_unique<NormalizedMoments>(*p); }});
}

}  // namespace kc::checks
