// Check "prefix_total": the last prefix along `dim` of a prefix sum equals
// the property's `related` kernel's sum along `dim` (sum_dim) within the two
// sums' bounds: each lies within gamma_{n-1} sum |x| of the exact sum of the
// same n terms (docs/accuracy-bounds.md, "Prefix sums"), so they differ by
// at most twice that. The reference's two folds are the same fold: equal
// bits; another kernel (a pairwise sum_dim, a scan in blocks) may differ
// within the bound. Lines with a non-finite term or result are skipped
// (the identity is about finite sums).
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "oracles/det_math.h"
#include "oracles/mp.h"
#include "oracles/rounding.h"

namespace kc::checks {

namespace {

class PrefixTotal final : public Check {
 public:
  explicit PrefixTotal(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor& x = v.cs.inputs.at(0);
      const auto dim = static_cast<std::size_t>(v.cs.params.integer("dim"));
      const std::int64_t n = x.dims().at(dim);
      if (n == 0 || x.numel() == 0) return;
      const Tensor total = v.c.backend.run(p_.related, v.cs.inputs, v.cs.params).at(0);
      std::int64_t inner = 1;
      for (std::size_t a = dim + 1; a < x.dims().size(); ++a) inner *= x.dims()[a];
      const double u = oracle::unit_roundoff(v.c.t);
      const double gamma = oracle::det::gamma_up(u, static_cast<long>(n - 1));
      for (std::int64_t cell = 0; cell < total.numel(); ++cell) {
        const std::int64_t base = (cell / inner) * n * inner + cell % inner;
        double abs_sum = 0;
        bool finite = true;
        for (std::int64_t j = 0; j < n; ++j) {
          const double a = x.value_at(base + j * inner);
          finite &= std::isfinite(a);
          abs_sum += std::fabs(a);
        }
        const double last = v.y.value_at(base + (n - 1) * inner), sum = total.value_at(cell);
        if (!finite || !std::isfinite(last) || !std::isfinite(sum)) continue;
        // In MPFR: the difference and the bound 2 gamma sum|x|, its double
        // sum and gamma rounded up by a relative (n + 2) 2^-52: the sum's n
        // roundings (each 2^-53 relative at most, of a sum of nonnegative
        // terms), gamma_up's and the product's, with room for their
        // compounding ((1 + 2^-53)^(n + 2) <= 1 + (n + 2) 2^-52 while (n +
        // 2) 2^-53 < 1): any n, a 32000-term line's too.
        oracle::PrecisionScope scope(256);
        const oracle::Mp diff = boost::multiprecision::abs(oracle::Mp(last) - oracle::Mp(sum));
        oracle::Mp slack = oracle::Mp(static_cast<double>(n + 2));
        mpfr_mul_2si(oracle::raw(slack), oracle::raw(slack), -52, MPFR_RNDU);
        const oracle::Mp bound = oracle::Mp(2 * gamma) * oracle::Mp(abs_sum) * (oracle::Mp(1) + slack);
        if (diff > bound)
          return fail(fmt::format("line {}: the last prefix {} and {}'s {} differ by {}, above the bound {}", cell,
                                  fmt_value(last), p_.related, fmt_value(sum), diff.str(6, std::ios_base::scientific),
                                  bound.str(6, std::ios_base::scientific)));
      }
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  static std::string fmt_value(double v) { return engine::fmt_value(v); }
  const contract::Property& p_;
};

}  // namespace

void register_prefix_total(Registry& r) {
  r.push_back({.name = "prefix_total",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 1 || !k.param("dim")) return "the kernel must scan one input along `dim`";
                 return p.related.empty() ? "names no sum kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<PrefixTotal>(*p); }});
}

}  // namespace kc::checks
