// Check "dequant_then_matmul": qmatmul(a, w) is dequantize_blocks of w
// (a u32 kernel: not the property's `related`, which must share the
// case's dtype), transposed by transpose_2d, then matmul'd with a: the
// reference's own composition (reference-semantics.md §18). Reference profile: equal bits, any NaN matching any NaN.
// Conformance: within twice the dot products' bound of each other
// (both within it of the same exact value), elements whose terms or
// results are not finite skipped: another library may fuse the
// dequantization into its inner loop and fold in another order.

#include <fmt/format.h>

#include "checks/check.h"

namespace kc::checks {

namespace {

class DequantThenMatmul final : public Check {
 public:
  explicit DequantThenMatmul(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    relational(p_, v, acc, [&](CheckTally& tally, const auto& fail) {
      for (const auto& [op, t] : {std::pair{"dequantize_blocks", DType::u32}, std::pair{"transpose_2d", DType::f32},
                                  std::pair{"matmul", DType::f32}}) {
        const auto dtypes = v.c.backend.supported(op);
        if (!dtypes || !dtypes->contains(t))
          return acc.not_graded(tally, fmt::format("{} does not implement {} for {}: the relation needs it",
                                                   v.c.backend.name(), op, dtype_name(t)));
      }
      const Tensor& a = v.cs.inputs.at(0);
      const Tensor w = v.c.backend.run("dequantize_blocks", std::vector<Tensor>{v.cs.inputs.at(1)}, v.cs.params).at(0);
      const Tensor wt = v.c.backend.run("transpose_2d", std::vector<Tensor>{w}, Params()).at(0);
      const Tensor mm = v.c.backend.run("matmul", std::vector<Tensor>{a, wt}, Params()).at(0);
      if (mm.dims() != v.y.dims())
        return fail(fmt::format("{} gave {}, dequantize_blocks then transpose_2d and matmul gave {}", v.c.k.name,
                                dims_to_string(v.y.dims()), dims_to_string(mm.dims())));
      const std::int64_t k = a.dims()[1], n = mm.dims()[1];
      const std::string why = agrees_as_dot(v, mm, "dequantize_blocks then transpose_2d and matmul",
                                            [&](std::int64_t o, std::vector<double>& pairs) {
        for (std::int64_t kk = 0; kk < k; ++kk) pairs.insert(pairs.end(), {a.value_at((o / n) * k + kk), w.value_at((o % n) * k + kk)});
      });
      if (!why.empty()) return fail(why);
      acc.record(v.c, tally, true);
    }, Cost::linear);
  }

 private:
  const contract::Property& p_;
};

}  // namespace

void register_dequant_then_matmul(Registry& r) {
  r.push_back({.name = "dequant_then_matmul",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property& p) -> std::string {
                 if (k.inputs.size() != 2) return "the kernel must take a and the weight w";
                 return p.related.empty() ? "" : "takes no `related` kernel (it calls dequantize_blocks, transpose_2d, matmul)";
               },
               .make = [](const contract::Property* p) { return std::make_unique<DequantThenMatmul>(*p); }});
}

}  // namespace kc::checks
