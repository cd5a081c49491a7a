// The conformance profile's overflow latitude for folds (issue 37, item 2;
// docs/accuracy-bounds.md, "Overflow latitude"): a matmul result that is
// +-inf or NaN where another order of the same additions stays finite is
// correct exactly when some order reaches it. A kernel that folds in
// another order passes where the orders part ways near the top of the
// range; a planted early overflow (the products doubled, the sum halved)
// that no order reaches still fails, as does an infinity of the sign an
// infinite product rules out.
#include <gtest/gtest.h>

#include "tests/test_support.h"

#include <bit>
#include <cmath>
#include <vector>

#include "backends/reference/executor.h"
#include "checks/check.h"
#include "contracts/contract.h"
#include "engine/conformance.h"
#include "oracles/overflow_reach.h"

namespace kc {
namespace {

enum class Fold { reversed, doubled, negative_infinity };

// matmul of a [m, k] and b [k, n] in T, by `how`: kk descending; the
// products doubled and the sum halved at the end (overflows at half the
// range: a planted defect); or -inf for every output (a planted sign).
class FoldBackend final : public testing_support::ReferenceBut {
 public:
  explicit FoldBackend(Fold how) : ReferenceBut("fold_test"), how_(how) {}
  std::optional<DTypeSet> supported(std::string_view) const override { return DTypeSet{DType::f32, DType::f64}; }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    reference(kernel, in, p);  // (bad input raises the reference's errors)
    const DType t = in[0].dtype();
    const std::int64_t m = in[0].dims()[0], k = in[0].dims()[1], n = in[1].dims()[1];
    Tensor y(t, {m, n});
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const double v = t == DType::f32 ? fold<float>(in, i, j, k, n) : fold<double>(in, i, j, k, n);
        y.set_bits(i * n + j, t == DType::f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v))
                                                : std::bit_cast<std::uint64_t>(v));
      }
    return {y};
  }

 private:
  template <class T>
  double fold(std::span<const Tensor> in, std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t n) const {
    if (how_ == Fold::negative_infinity) return -INFINITY;
    T acc = 0;
    for (std::int64_t kk = k - 1; kk >= 0; --kk) {
      const T p = static_cast<T>(in[0].value_at(i * k + kk)) * static_cast<T>(in[1].value_at(kk * n + j));
      acc += how_ == Fold::doubled ? p + p : p;
    }
    return how_ == Fold::doubled ? acc / 2 : acc;
  }
  Fold how_;
};

// a = [1, k] of `products`' values, b = [k, 1] of ones: the products are exact.
gen::Case row_times_ones(DType t, const std::vector<double>& products) {
  const auto k = static_cast<std::int64_t>(products.size());
  gen::Case c;
  Tensor a(t, {1, k}), b(t, {k, 1});
  for (std::int64_t i = 0; i < k; ++i) {
    const double v = products[static_cast<std::size_t>(i)];
    a.set_bits(i, t == DType::f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v)) : std::bit_cast<std::uint64_t>(v));
    b.set_bits(i, t == DType::f32 ? std::bit_cast<std::uint32_t>(1.0f) : std::bit_cast<std::uint64_t>(1.0));
  }
  c.inputs = {a, b};
  return c;
}

engine::KernelDTypeResult grade(Fold how, DType t, const std::vector<double>& products, engine::Profile profile) {
  const FoldBackend backend(how);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.profile = profile;
  opts.backend = backend.name();
  return engine::grade_given_case(*contract::find_kernel("matmul_2d"), t, backend, opts, row_times_ones(t, products));
}

const engine::CheckTally& accuracy(const engine::KernelDTypeResult& r) {
  for (const auto& c : r.checks)
    if (c.name == "accuracy") return c;
  throw std::logic_error("no accuracy check");
}

// The reference folds -1.5e308 + 1e308 + 1e308 = 5e307; kk descending
// reaches 1e308 + 1e308 = +inf first. Both are IEEE evaluations of the sum.
TEST(OverflowLatitude, AnotherOrdersOverflowPassesConformanceNotTheReference) {
  const std::vector<double> p{-1.5e308, 1e308, 1e308};
  const auto conf = grade(Fold::reversed, DType::f64, p, engine::Profile::conformance);
  EXPECT_EQ(conf.verdict, engine::Verdict::pass) << conf.headline;
  EXPECT_GT(accuracy(conf).passed, 0);
  const auto ref = grade(Fold::reversed, DType::f64, p, engine::Profile::reference);
  EXPECT_EQ(ref.verdict, engine::Verdict::fail) << "the reference's bits are finite";
}

// f32: an exact sum of 3.3e38 (finite) whose blocked order overflows.
TEST(OverflowLatitude, AnF32BlockedOverflowPasses) {
  const auto r = grade(Fold::reversed, DType::f32, {-2e37, 2e38, 1.5e38}, engine::Profile::conformance);
  EXPECT_EQ(r.verdict, engine::Verdict::pass) << r.headline;
}

// The case: two -1.6e308 products and a +inf one. The reference's
// fold reaches -inf, then NaN; kk descending gives +inf. -inf is reached by
// no order (the +inf product meets it): it fails.
TEST(OverflowLatitude, TheInfiniteProductsSignRulesOutTheOtherInfinity) {
  const std::vector<double> p{-1.6e308, -1.6e308, INFINITY};
  EXPECT_EQ(grade(Fold::reversed, DType::f64, p, engine::Profile::conformance).verdict, engine::Verdict::pass);
  const auto wrong = grade(Fold::negative_infinity, DType::f64, p, engine::Profile::conformance);
  EXPECT_EQ(wrong.verdict, engine::Verdict::fail);
  // The failure has no finite normalized error: the maximum is infinite, not left out (issue 37, P2).
  ASSERT_TRUE(wrong.accuracy.max_normalized);
  EXPECT_TRUE(std::isinf(*wrong.accuracy.max_normalized));
}

// Planted: products summing to 0.61 max (P = 0.67 max < max / (1 + u)^3):
// no order overflows, the doubled accumulator does.
TEST(OverflowLatitude, AnOverflowNoOrderReachesFails) {
  for (const DType t : {DType::f64, DType::f32}) {
    const double s = t == DType::f64 ? 1e308 : 1.89e38;  // (max / 1.8)
    const auto r = grade(Fold::doubled, t, {0.6 * s, 0.6 * s, -0.1 * s}, engine::Profile::conformance);
    EXPECT_EQ(r.verdict, engine::Verdict::fail) << dtype_name(t);
    EXPECT_GT(accuracy(r).failed, 0) << dtype_name(t);
  }
}

// The test's band (oracles/overflow_reach.h): a positive total just below
// max / (1 + u)^(m - 2) reaches nothing; at max it reaches +inf; both signs
// reaching their infinity reach NaN. One term of a sign never overflows
// a sum ([max, -max] is 0 in every order; [max] has no addition), nor one
// product that is itself finite.
TEST(OverflowLatitude, TheReachTestsThreshold) {
  const double max = 1.7976931348623157e308;
  oracle::OverflowReach below, at, both, opposite, single, product;
  for (int i = 0; i < 4; ++i) below.add(max / 4 * (1 - 0x1p-35));
  for (int i = 0; i < 4; ++i) at.add(max / 4);
  for (double v : {max, max, -max, -max}) both.add(v);
  opposite.add(max), opposite.add(-max);
  single.add(max);
  product.add_product(max, 1.0);
  EXPECT_FALSE(below.reaches_pos_inf(DType::f64));
  EXPECT_TRUE(at.reaches_pos_inf(DType::f64));
  EXPECT_FALSE(at.reaches_nan(DType::f64));
  EXPECT_TRUE(both.reaches_nan(DType::f64) && both.reaches_pos_inf(DType::f64) && both.reaches_neg_inf(DType::f64));
  EXPECT_FALSE(opposite.reaches_nan(DType::f64) || opposite.reaches_pos_inf(DType::f64) || opposite.reaches_neg_inf(DType::f64));
  EXPECT_FALSE(single.reaches_pos_inf(DType::f64));
  EXPECT_FALSE(product.reaches_pos_inf(DType::f64));
}

}  // namespace
}  // namespace kc
