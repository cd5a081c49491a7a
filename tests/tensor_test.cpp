// The tensor model's zero-copy views, the rule vocabulary and the exec
// bridge's typed errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "backends/reference/executor.h"
#include "core/error.h"
#include "core/rules.h"
#include "core/tensor.h"

namespace kc {
namespace {

TEST(Tensor, ReshapeSharesStorage) {
  Tensor x(DType::f32, {2, 3});
  Tensor y = x.reshaped({3, 2});
  EXPECT_TRUE(y.shares_storage(x));
  EXPECT_EQ(y.dims(), (Dims{3, 2}));
  EXPECT_THROW(x.reshaped({4, 2}), std::invalid_argument);
}

TEST(Tensor, PurePaddingBroadcastSharesStorage) {
  Tensor x(DType::bf16, {3, 4});
  Tensor y = x.broadcast_padded({1, 1, 3, 4});
  EXPECT_TRUE(y.shares_storage(x));
  EXPECT_TRUE(is_pure_padding({3, 4}, {1, 3, 4}));
  EXPECT_FALSE(is_pure_padding({3, 4}, {2, 3, 4}));  // needs a copy
  EXPECT_FALSE(is_pure_padding({1, 4}, {3, 4}));     // expands a dim
  EXPECT_THROW(x.broadcast_padded({2, 3, 4}), std::invalid_argument);
}

TEST(Tensor, FreshTensorsDoNotShare) {
  Tensor x(DType::f64, {5});
  Tensor y(DType::f64, {5});
  EXPECT_FALSE(x.shares_storage(y));
  EXPECT_TRUE(x.consistent());
  EXPECT_FALSE(Tensor::from_bytes_unchecked(DType::f32, {2}, std::vector<std::byte>(7)).consistent());
  EXPECT_THROW(Tensor(DType::f32, {-1}), std::invalid_argument);
}

TEST(Tensor, RankZeroHasOneElement) {
  Tensor s(DType::f16, {});
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.byte_size(), 2u);
}

void expect_rule(const char* op, std::vector<Tensor> in, const Params& p, const char* operand, Rule rule) {
  try {
    ref::execute(op, in, p);
    ADD_FAILURE() << op << ": accepted an input breaking " << rule_name(rule);
  } catch (const KernelError& e) {
    EXPECT_EQ(e.kernel(), op);
    EXPECT_EQ(e.operand(), operand);
    EXPECT_EQ(e.rule(), rule);
    EXPECT_NE(std::string(e.what()).find(rule_name(rule)), std::string::npos) << e.what();
  }
}

// A rule's name is its id in the JSON, the messages and the plug-in ABI:
// each parses back to its rule, and no two rules share one.
TEST(Rules, EveryNameRoundTripsAndIsUnique) {
  std::set<std::string_view> names;
  for (const Rule r : kRules.all()) {
    EXPECT_EQ(parse_rule(rule_name(r)), r) << rule_name(r);
    EXPECT_FALSE(rule_name(r).empty());
    EXPECT_TRUE(names.insert(rule_name(r)).second) << rule_name(r) << ": two rules";
  }
  EXPECT_EQ(names.size(), kRules.size());
}

// A plug-in's rule text that names no rule (a misspelling) is kept as it
// came, under Rule::unknown: never taken for a rule it resembles.
TEST(Rules, TextKconformDoesNotKnowIsKeptNotGuessed) {
  const KernelError e = KernelError::from_text("exp", "x", "dtype.unsuported", "u32 input");
  EXPECT_EQ(e.rule(), Rule::unknown);
  EXPECT_EQ(e.rule_text(), "dtype.unsuported");
  EXPECT_STREQ(e.what(), "exp: operand 'x' breaks rule 'dtype.unsuported': u32 input");
  const KernelError known = KernelError::from_text("exp", "x", "dtype.unsupported", "u32 input");
  EXPECT_EQ(known.rule(), Rule::dtype_unsupported);
  EXPECT_STREQ(known.what(), KernelError("exp", "x", Rule::dtype_unsupported, "u32 input").what());
}

TEST(ExecBridge, TypedErrorsNameKernelOperandRule) {
  expect_rule("exp", {Tensor(DType::u32, {2})}, {}, "x", Rule::dtype_unsupported);
  expect_rule("exp", {Tensor(DType::u8, {2})}, {}, "x", Rule::dtype_unsupported);
  expect_rule("exp", {}, {}, "inputs", Rule::arity);
  expect_rule("exp", {Tensor::from_bytes_unchecked(DType::f32, {2}, std::vector<std::byte>(7))}, {}, "x", Rule::buffer_size);
  expect_rule("exp", {Tensor::from_bytes_unchecked(DType::f32, {2, -3}, {})}, {}, "x", Rule::shape_negative_dim);
  expect_rule("powi", {Tensor(DType::f32, {2})}, {}, "n", Rule::param_missing);
  expect_rule("powi", {Tensor(DType::f32, {2})}, Params().set("n", 2.0), "n", Rule::param_type);
  expect_rule("powi", {Tensor(DType::f32, {2})}, Params().set("n", std::int64_t{1} << 31), "n", Rule::param_domain);
  expect_rule("clamp", {Tensor(DType::f32, {2})}, Params().set("min", 0.0), "max", Rule::param_missing);
  expect_rule("no_such_op", {Tensor(DType::f32, {2})}, {}, "op", Rule::kernel_unknown);
}

TEST(ExecBridge, DtypeSupportTableCoversTheUnaryFamily) {
  const kern::Arm* arm = ref::find_arm("gelu");
  ASSERT_NE(arm, nullptr);
  for (DType t : kFloatDTypes) EXPECT_TRUE(arm->dtypes.contains(t));
  EXPECT_FALSE(arm->dtypes.contains(DType::u32));
}

// No op has two arms (the executor would find the first only); which ops
// have one is held to the contract table (tests/contract_test.cpp), not
// to a count kept here.
TEST(ExecBridge, EachOpHasOneArm) {
  std::set<std::string_view> ops;
  for (const kern::Arm& a : ref::exec_table()) EXPECT_TRUE(ops.insert(a.op).second) << a.op << ": two arms";
  EXPECT_FALSE(ops.empty());
}

TEST(ExecBridge, FamilyRulesAreTyped) {
  Tensor a(DType::f32, {2, 3}), b(DType::f32, {3, 2}), h(DType::bf16, {2, 3});
  expect_rule("add", {a, b}, {}, "b", Rule::shape_mismatch);
  expect_rule("add", {a, h}, {}, "b", Rule::dtype_mismatch);
  expect_rule("broadcast_add", {a, Tensor(DType::f32, {4})}, {}, "b", Rule::broadcast_incompatible);
  expect_rule("sum_dim", {a}, Params().set("dim", std::int64_t{2}), "dim", Rule::dim_out_of_range);
  expect_rule("argmax_dim", {Tensor(DType::f32, {2, 0})}, Params().set("dim", std::int64_t{1}), "x", Rule::dim_empty);
  expect_rule("reduce_sum_to", {a}, Params().set("target", Dims{1, 2, 3}), "target", Rule::target_rank);
  expect_rule("reduce_sum_to", {a}, Params().set("target", Dims{2}), "target", Rule::target_incompatible);
  expect_rule("broadcast_to", {a}, Params().set("target", Dims{3}), "target", Rule::target_rank);
  expect_rule("broadcast_to", {a}, Params().set("target", Dims{4, 3}), "target", Rule::target_incompatible);
  expect_rule("cast_f32_to_bf16", {h}, {}, "x", Rule::dtype_unsupported);
  expect_rule("broadcast_to", {Tensor(DType::u32, {2})}, Params().set("target", Dims{2}), "x", Rule::dtype_unsupported);
}

TEST(ExecBridge, BroadcastToSharesStorageOnlyOnPurePadding) {
  Tensor x(DType::f32, {2, 3});
  auto pure = ref::execute("broadcast_to", std::vector<Tensor>{x}, Params().set("target", Dims{1, 1, 2, 3}));
  EXPECT_TRUE(pure[0].shares_storage(x));
  auto copy = ref::execute("broadcast_to", std::vector<Tensor>{x}, Params().set("target", Dims{4, 2, 3}));
  EXPECT_FALSE(copy[0].shares_storage(x));
}

TEST(ExecBridge, TruncatingF64ToBf16CastMatchesTheReferenceVector) {
  // reference-semantics.md §17: 1 + 2^-8 + 2^-22 casts to 0x3F80 (RN would give 0x3F81).
  Tensor x(DType::f64, {1});
  x.set_bits(0, double_to_bits(DType::f64, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -22)));
  EXPECT_EQ(ref::execute("cast_f64_to_bf16", std::vector<Tensor>{x}, {})[0].bits_at(0), 0x3F80u);
  Tensor f(DType::f32, {4});
  for (int i = 0; i < 4; ++i) f.set_bits(i, double_to_bits(DType::f32, std::array<double, 4>{3.99, -0.5, 5e9, -INFINITY}[i]));
  auto u = ref::execute("cast_f32_to_u32", std::vector<Tensor>{f}, {})[0];
  EXPECT_EQ(u.bits_at(0), 3u);
  EXPECT_EQ(u.bits_at(1), 0u);
  EXPECT_EQ(u.bits_at(2), 4294967295u);
  EXPECT_EQ(u.bits_at(3), 0u);
}

TEST(ExecBridge, OutputIsAFreshBufferOfTheSameShape) {
  Tensor x(DType::f32, {2, 1, 3});
  auto out = ref::execute("relu", std::vector<Tensor>{x}, {});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims(), x.dims());
  EXPECT_FALSE(out[0].shares_storage(x));
}

}  // namespace
}  // namespace kc
