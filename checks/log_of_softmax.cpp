// Check "log_of_softmax": log_softmax(x) equals ln of the property's
// `related` kernel (softmax) on the same x, within both bounds: with z_l
// = ln z_s exactly, |y_l - ln y_s| <= |y_l - z_l| + |ln z_s - ln y_s| <=
// B_l - ln(1 - B_s / z_s) where |y_s - z_s| <= B_s < z_s (each B the
// entry's per-element bound; where B_s >= z_s the logarithm of y_s is
// unbounded and the element is not compared). Rows or results that are
// not finite, and zero softmax results, are not compared. The same in
// both profiles: ln of the reference's softmax is not its log_softmax bit
// for bit.
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"

namespace kc::checks {

namespace {

class LogOfSoftmax final : public Check {
 public:
  explicit LogOfSoftmax(const contract::Property& p) : p_(p) {}
  // (Its own kernel's elements: their exact values as grading evaluated them.)
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const contract::KernelSpec* soft = contract::find_kernel(p_.related);
      if (!soft) throw std::logic_error("log_of_softmax: no contract for " + std::string(p_.related));
      const Tensor& x = v.cs.inputs.at(0);
      const Tensor s = v.c.backend.run(p_.related, std::vector<Tensor>{x}, v.cs.params).at(0);
      if (s.dims() != v.y.dims())
        return fail(fmt::format("{} gave {}, {} gave {}", v.c.k.name, dims_to_string(v.y.dims()), p_.related,
                                dims_to_string(s.dims())));
      std::vector<double> xr, lr, sr;
      std::int64_t compared = 0;
      bool failed = false;
      for_each_row(x, [&](std::int64_t at, std::int64_t n) {
        if (failed || !row_values(x, at, n, xr)) return;
        row_values(v.y, at, n, lr);
        row_values(s, at, n, sr);
        oracle::PrecisionScope scope(oracle::working_bits(v.c.t));
        RowOracle row(v.c.t, v.cs.params, xr);
        for (std::int64_t j = 0; j < n && !failed; ++j) {
          const auto jj = static_cast<std::size_t>(j);
          if (!std::isfinite(lr[jj]) || !std::isfinite(sr[jj]) || !(sr[jj] > 0)) continue;
          // (A shaped case: the elements its exact sample graded, two MPFR
          // logarithms each being most of the check's cost.)
          const std::optional<RowExact> gl = graded_row_exact(v, at + j);
          if (!gl) continue;
          const RowExact es = row.at(*soft, jj);
          const RowExact& el = *gl;
          if (!(es.bound < es.z)) continue;
          oracle::Mp ratio = -es.bound / es.z, ln_y = oracle::Mp(sr[jj]);
          mpfr_log1p(oracle::raw(ratio), oracle::raw(ratio), MPFR_RNDN);
          mpfr_log(oracle::raw(ln_y), oracle::raw(ln_y), MPFR_RNDN);
          const oracle::Mp bound = el.bound - ratio;
          const oracle::Mp off = boost::multiprecision::abs(oracle::Mp(lr[jj]) - ln_y);
          ++compared;
          if (off > bound) {
            failed = true;
            fail(fmt::format("output {}: {} gives {}, ln of {}'s {} is {:.17g}: {:.6g} apart, beyond the bound {:.6g}",
                             at + j, v.c.k.name, engine::fmt_value(lr[jj]), p_.related, engine::fmt_value(sr[jj]),
                             ln_y.convert_to<double>(), off.convert_to<double>(), bound.convert_to<double>()));
          }
        }
      });
      if (!failed && compared > 0) acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_log_of_softmax(Registry& r) {
  r.push_back({.name = "log_of_softmax",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (p.related.empty()) return "names no softmax kernel (`related`)";
                 const contract::KernelSpec* s = contract::find_kernel(p.related);
                 if (!s || !s->math.takes<oracle::Row>() || !k.math.takes<oracle::Row>())
                   return "both kernels' oracles must take a Row";
                 return "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<LogOfSoftmax>(*p); }});
}

}  // namespace kc::checks
