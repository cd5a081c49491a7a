// The contract table is complete and consistent with the inventory and with
// the reference's exec bridge.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>

#include "checks/check.h"
#include "backends/reference/executor.h"
#include "contracts/contract.h"
#include "engine/conformance.h"
#include "oracles/oracle.h"

// Two kernels' evaluations, for entries bound to the wrong input below.
KC_MATH_OF(Scalar, exp)
KC_MATH_OF(Pair, add)

namespace kc {
namespace {

// The kernels of the inventory's sections whose heading starts with one of
// `headings` (the first column's `name` of each table row): the list the
// table is held to, read from the inventory itself, never kept by hand.
std::set<std::string> inventory_kernels(std::initializer_list<std::string_view> headings) {
  std::ifstream in(std::string(KC_SOURCE_DIR) + "/../shared/seed/kernel-inventory.md");
  EXPECT_TRUE(in) << "the kernel inventory (../shared/seed/kernel-inventory.md) is not readable";
  std::set<std::string> names;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("## "))
      inside = std::any_of(headings.begin(), headings.end(), [&](std::string_view h) { return line.substr(3).starts_with(h); });
    else if (inside && line.starts_with("| `"))
      names.insert(line.substr(3, line.find('`', 3) - 3));
  }
  return names;
}

// Every unary kernel of the inventory has its entry in the family and an
// exec arm in the reference, and the family holds no other.
TEST(Contracts, UnaryFamilyIsTheInventorys) {
  const std::set<std::string> want = inventory_kernels({"Unary elementwise", "Scalar-by-tensor / clamp"});
  ASSERT_GE(want.size(), 20u) << "the inventory's unary sections did not parse";
  std::set<std::string> got;
  for (const auto& k : contract::all_kernels())
    if (k.family == "unary") got.insert(std::string(k.name));
  EXPECT_EQ(got, want);
  const auto reference = make_backend("reference");
  for (const std::string& name : want) EXPECT_TRUE(reference->supported(name)) << name << ": no reference exec arm";
}

// The binary, broadcast, reduction and cast families hold exactly the
// inventory's kernels of those sections.
TEST(Contracts, IssueThreeFamiliesAreTheInventorys) {
  std::set<std::string> got;
  for (const auto& k : contract::all_kernels())
    if (k.family == "binary" || k.family == "broadcast" || k.family == "reduction" || k.family == "reduce_to" ||
        k.family == "cast")
      got.insert(std::string(k.name));
  std::set<std::string> want = inventory_kernels({"Binary elementwise", "Reductions to scalar",
                                                        "Reductions along one dim", "Reduce-to-shape",
                                                        "Dtype casts"});
  // (The inventory describes broadcast_to in a paragraph, not a table row.)
  want.insert("broadcast_to");
  ASSERT_GE(want.size(), 40u) << "the inventory's sections did not parse";
  EXPECT_EQ(got, want);
}

// Issue 11's families: the inventory's matmul, convolution, shape-movement,
// indexing, masking and padding kernels, and the executor's arms that are
// kernels of their own here (the mixed matmul, Contiguize, Squeeze, Unsqueeze).
TEST(Contracts, IssueElevenFamiliesAreComplete) {
  std::set<std::string> got;
  for (const auto& k : contract::all_kernels())
    if (k.family == "linalg" || k.family == "conv" || k.family == "sequence" || k.family == "indexing" ||
        k.family == "masking" || k.family == "padding")
      got.insert(std::string(k.name));
  std::set<std::string> want =
      inventory_kernels({"Matmul", "Convolution", "Sequence", "Indexing", "Masking", "Padding"});
  ASSERT_GE(want.size(), 25u) << "the inventory's sections did not parse";
  // The executor's arms that are kernels here, which the inventory names in
  // its notes rather than its tables (Op::Contiguize, Op::Squeeze,
  // Op::Unsqueeze, the mixed f32 x bf16 matmul).
  want.insert({"contiguize", "squeeze", "unsqueeze", "matmul_f32_bf16"});
  EXPECT_EQ(got, want);
  // The executor's narrower dtype lists (conv2d and conv_transpose2d: f32/f64 only).
  for (const char* name : {"conv2d", "conv_transpose2d"}) {
    const auto* k = contract::find_kernel(name);
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->dtypes().to_string(), "f32, f64") << name;
  }
}

TEST(Contracts, EveryEntryIsComplete) {
  int checked = 0;
  for (const auto& k : contract::all_kernels()) {
    SCOPED_TRACE(std::string(k.name));
    ASSERT_FALSE(k.inputs.empty());
    ASSERT_FALSE(k.math.empty());
    EXPECT_FALSE(k.summary.empty());
    EXPECT_FALSE(k.source.empty());
    EXPECT_FALSE(k.oracle_text.empty());
    // An accuracy model for exactly the dtypes the operand accepts.
    EXPECT_EQ(k.accuracy.size(), k.dtypes().list().size());
    for (DType t : k.dtypes().list()) {
      const auto* a = k.accuracy_for(t);
      ASSERT_NE(a, nullptr);
      EXPECT_FALSE(a->derivation.empty());
      if (a->kind == contract::AccuracyKind::ulp_bound) {
        EXPECT_GE(a->max_frac_ulp, 0.5);
      }
      if (a->kind == contract::AccuracyKind::condition_aware) {
        EXPECT_GT(a->magnitude_coeff, 0);
      }
    }
    // Preconditions: the shared ones plus one set per parameter.
    std::set<std::string> rules;
    for (const auto& p : k.preconditions) {
      // (unknown and other are what a plug-in may raise, never a rule to break on purpose)
      EXPECT_TRUE(p.rule != Rule::unknown && p.rule != Rule::other) << k.name << ": " << rule_name(p.rule);
      rules.insert(std::string(rule_name(p.rule)) + ":" + std::string(p.operand));
    }
    const std::string x(k.inputs[0].name);
    for (const std::string& r : std::vector<std::string>{"arity:inputs", "shape.negative_dim:" + x, "buffer.size:" + x, "dtype.unsupported:" + x})
      EXPECT_TRUE(rules.count(r)) << r;
    for (const auto& p : k.params) {
      EXPECT_TRUE(rules.count("param.missing:" + std::string(p.name)));
      EXPECT_TRUE(rules.count("param.type:" + std::string(p.name)));
    }
    for (const auto& p : k.properties) {
      if (p.check == "pointwise") {
        EXPECT_NE(p.holds, nullptr) << p.name;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 68);
}

TEST(Contracts, AgreeWithTheExecBridge) {
  for (const auto& k : contract::all_kernels()) {
    const kern::Arm* arm = ref::find_arm(k.name);
    ASSERT_NE(arm, nullptr) << k.name;
    DTypeSet operands;  // the arm's set covers every operand's dtypes (the mixed matmul arm: f32 and bf16)
    for (const auto& in : k.inputs)
      for (DType t : in.dtypes.list()) operands.insert(t);
    EXPECT_EQ(arm->dtypes.to_string(), operands.to_string()) << k.name;
    EXPECT_EQ(arm->params.size(), k.params.size()) << k.name;
  }
  for (const auto& arm : ref::exec_table()) EXPECT_NE(contract::find_kernel(arm.op), nullptr) << arm.op;
}

// The start-up check of the table: the real one is sound; an entry whose
// oracle does not fit its driver, an unknown driver or an unknown property
// check is refused with a message naming the kernel and both sides.
TEST(Contracts, TheTableFitsItsDriversAndChecks) {
  EXPECT_EQ(engine::check_table(contract::all_kernels(), checks::registry()), std::vector<std::string>{});
  EXPECT_NO_THROW(checks::checked_kernels());
}

std::string problems_of(const contract::KernelSpec& k) {
  std::string s;
  for (const auto& p : engine::check_table({k}, checks::registry())) s += p + "\n";
  return s;
}

// What a check knows of a kernel is declared in its entry: a norm whose
// entry does not say its row map is refused by the moments' check and the
// backward's.
TEST(Contracts, ARowMapIsDeclaredNotToldFromTheName) {
  contract::KernelSpec k = *contract::find_kernel("layer_norm_last_dim");
  EXPECT_EQ(problems_of(k), "");
  k.row_map = contract::RowMap::none;
  EXPECT_NE(problems_of(k).find("knows the moments of the row maps layer_norm and rms_norm only"), std::string::npos)
      << problems_of(k);
  EXPECT_NE(problems_of(k).find("knows the Jacobians of the row maps"), std::string::npos) << problems_of(k);
}

// An entry's oracle, replay and fast path take one input type, or the entry
// does not compile (oracles/oracle.h Math): a replay or fast path of pairs
// beside a unary oracle is refused by the constructor's constraints.
namespace mismatch {
using oracle::Math;
using S = oracle::Scalar;
using P = oracle::Pair;
static_assert(std::is_constructible_v<Math, oracle::OracleFn<S>, oracle::ReplayFn<S>, oracle::FastFn<S>>);
static_assert(!std::is_constructible_v<Math, oracle::OracleFn<S>, oracle::ReplayFn<P>>);
static_assert(!std::is_constructible_v<Math, oracle::OracleFn<S>, oracle::ReplayFn<S>, oracle::FastFn<P>>);
static_assert(!std::is_constructible_v<Math, void (*)(const int&, oracle::Exact&)>);  // not an element input
}  // namespace mismatch

TEST(Contracts, AMismatchedEntryIsAClearStartUpError) {
  contract::KernelSpec k = *contract::find_kernel("exp");
  k.math = {oracle::add, oracle::replay::add};  // a binary oracle on a unary kernel
  EXPECT_NE(problems_of(k).find("kernel 'exp': driver 'elementwise' builds elements of Scalar, but the entry's "
                                "oracle takes Pair"),
            std::string::npos)
      << problems_of(k);
  k = *contract::find_kernel("add");
  k.math = {oracle::exp, oracle::replay::exp};
  EXPECT_NE(problems_of(k).find("driver 'binary' builds elements of Pair"), std::string::npos);
  k.driver = "no_such_driver";
  EXPECT_NE(problems_of(k).find("kernel 'add': driver 'no_such_driver' does not exist"), std::string::npos);
  k = *contract::find_kernel("add");
  k.properties.push_back({"made up", "no_such_check"});
  EXPECT_NE(problems_of(k).find("property 'made up' names check 'no_such_check'"), std::string::npos);
  k = *contract::find_kernel("sum_dim");
  k.params.clear();
  EXPECT_NE(problems_of(k).find("needs a parameter 'dim' of kind integer"), std::string::npos);
}

}  // namespace
}  // namespace kc
