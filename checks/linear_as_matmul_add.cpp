// Check "linear_as_matmul_add": fused_linear(a, b, bias) is the property's
// `related` kernel (matmul) of a and b, then broadcast_add of the bias.
// Conformance: element for element within both results' dot-product bounds
// of the same exact value (the bias as a last product bias x 1: each lies
// within dot_bound_upper of it; docs/accuracy-bounds.md, "Fused linear"),
// elements whose terms or results are not finite skipped. Reference
// profile: equal bits, any NaN matching any NaN (the reference composes the
// two kernels: reference-semantics.md §18, "not fused").
#include <cmath>

#include <fmt/format.h>

#include "checks/check.h"
#include "drivers/index_maps.h"

namespace kc::checks {

namespace {

class LinearAsMatmulAdd final : public Check {
 public:
  explicit LinearAsMatmulAdd(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      const auto add_dtypes = v.c.backend.supported("broadcast_add");
      if (!add_dtypes || !add_dtypes->contains(v.c.t))
        return acc.not_graded(tally, fmt::format("{} does not implement broadcast_add for {}: the relation needs it",
                                                 v.c.backend.name(), dtype_name(v.c.t)));
      const Tensor &a = v.cs.inputs.at(0), &b = v.cs.inputs.at(1), &bias = v.cs.inputs.at(2);
      const Tensor mm = v.c.backend.run(p_.related, std::vector<Tensor>{a, b}, Params()).at(0);
      const Tensor sum = v.c.backend.run("broadcast_add", std::vector<Tensor>{mm, bias}, Params()).at(0);
      if (sum.dims() != v.y.dims())
        return fail(fmt::format("{} gave {} and {} then broadcast_add gave {}", v.c.k.name, dims_to_string(v.y.dims()),
                                p_.related, dims_to_string(sum.dims())));
      const std::size_t r = a.dims().size();
      const std::int64_t m = a.dims()[r - 2], k = a.dims()[r - 1], n = b.dims()[r - 1];
      const Dims& out = v.y.dims();
      const std::string why = agrees_as_dot(v, sum, fmt::format("{} then broadcast_add", p_.related),
                                            [&](std::int64_t o, std::vector<double>& pairs) {
        const std::int64_t j = o % n, i = (o / n) % m, p = o / (n * m);
        for (std::int64_t kk = 0; kk < k; ++kk) {
          pairs.push_back(a.value_at((p * m + i) * k + kk));
          pairs.push_back(b.value_at((p * k + kk) * n + j));
        }
        pairs.insert(pairs.end(), {bias.value_at(drivers::source_of(bias.dims(), out, o)), 1.0});  // (right-aligned)
      });
      if (!why.empty()) return fail(why);
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_linear_as_matmul_add(Registry& r) {
  r.push_back({.name = "linear_as_matmul_add",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 3) return "the kernel must take a, b and a bias";
                 return p.related.empty() ? "names no matmul kernel (`related`)" : "";
               },
               .make = [](const contract::Property* p) { return std::make_unique<LinearAsMatmulAdd>(*p); }});
}

}  // namespace kc::checks
