// One conformance test per kernel and dtype of the contract table, run on
// the reference backend with the default run's settings (every bf16/f16
// input of one-input kernels; 100 random cases). A run that graded nothing fails.
#include <gtest/gtest.h>

#include "core/backend.h"
#include "engine/conformance.h"

namespace kc {
namespace {

struct Item {
  const contract::KernelSpec* kernel;
  DType dtype;
};

std::vector<Item> items() {
  std::vector<Item> v;
  for (const auto& k : contract::all_kernels())
    for (DType t : engine::graded_dtypes(k)) v.push_back({&k, t});
  return v;
}

void PrintTo(const Item& i, std::ostream* os) { *os << i.kernel->name << " " << dtype_name(i.dtype); }

class Conformance : public ::testing::TestWithParam<Item> {};

TEST_P(Conformance, ReferencePassesItsContract) {
  const auto [k, t] = GetParam();
  auto backend = make_backend("reference");
  const auto r = engine::run_kernel_dtype(*k, t, *backend, engine::RunOptions{});
  EXPECT_GT(r.elements, 0) << "graded nothing";
  EXPECT_GT(r.accuracy.graded + r.accuracy.special, 0);
  const bool one_input = k->family == contract::Family::unary || k->family == contract::Family::cast;
  if ((t == DType::bf16 || t == DType::f16) && one_input) EXPECT_TRUE(r.exhaustive) << "every 16-bit input";
  for (const auto& c : r.checks) EXPECT_GT(c.passed + c.failed, 0) << c.name << " checked nothing";
  EXPECT_EQ(r.verdict, "pass");
  for (const auto& f : r.failures) ADD_FAILURE() << f.message;
}

INSTANTIATE_TEST_SUITE_P(Conformance, Conformance, ::testing::ValuesIn(items()), [](const auto& info) {
  return std::string(contract::family_name(info.param.kernel->family)) + "_" + std::string(info.param.kernel->name) +
         "_" + std::string(dtype_name(info.param.dtype));
});

TEST(ConformanceTable, RanSomething) { EXPECT_GE(items().size(), 26u * 4u); }

}  // namespace
}  // namespace kc
