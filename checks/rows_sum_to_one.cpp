// Check "rows_sum_to_one": every finite row of a softmax output sums to 1
// within the sum of its elements' bounds: sum z_j = 1 exactly, so
// |sum y_j - 1| <= sum |y_j - z_j| <= sum B_j (B_j the entry's per-element
// bound, oracles/softmax.cpp), the sum of the y_j taken exactly. Rows with
// a non-finite input or output are not about this identity (NaN rows).
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/row_oracle.h"
#include "oracles/exact_sum.h"

namespace kc::checks {

namespace {

class RowsSumToOne final : public Check {
 public:
  explicit RowsSumToOne(const contract::Property& p) : p_(p) {}
  bool needs_exacts(const CaseView& v) const override { return p_.applies_to(v.c.t); }
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const Tensor& x = v.cs.inputs.at(0);
      std::vector<double> xr, yr;
      std::int64_t rows = 0;
      bool failed = false;
      for_each_row(x, [&](std::int64_t at, std::int64_t n) {
        if (failed || !row_values(x, at, n, xr) || !row_values(v.y, at, n, yr)) return;
        oracle::PrecisionScope scope(1024);
        oracle::ExactSum sum;
        oracle::Mp bound(0), s;
        RowOracle row(v.c.t, v.cs.params, xr);
        for (std::int64_t j = 0; j < n; ++j) {
          sum.add(yr[static_cast<std::size_t>(j)]);
          const std::optional<RowExact> e = graded_or_evaluated(v, at + j, row, static_cast<std::size_t>(j));
          if (!e) return;
          bound += e->bound;
        }
        sum.round_into(oracle::raw(s), MPFR_RNDN);
        const oracle::Mp off = boost::multiprecision::abs(s - oracle::Mp(1));
        ++rows;
        if (off > bound) {
          failed = true;
          fail(fmt::format("row at output {} ({} elements) sums to 1 {:+.6g}, beyond its elements' bounds' sum {:.6g}", at,
                           n, (s - oracle::Mp(1)).convert_to<double>(), bound.convert_to<double>()));
        }
      });
      if (!failed && rows > 0) acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_rows_sum_to_one(Registry& r) {
  r.push_back({.name = "rows_sum_to_one",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property&) -> std::string {
                 return k.math.takes<oracle::Row>() ? "" : "the kernel's oracle must take a Row";
               },
               .make = [](const contract::Property* p) { return std::make_unique<RowsSumToOne>(*p); }});
}

}  // namespace kc::checks
