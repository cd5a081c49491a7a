// A kernel whose outputs have different dtypes, as a kernel author writes
// one: torch.max(x, dim) returns the maximum along dim (f32) and its first
// index (u32). Its entry is registered here only (never in the table, so
// never in the default run): the reduce_dim driver gives one output per
// output the entry declares, each graded in its own dtype. The kernel is
// the reference's max_dim and argmax_dim together; planted defects in one
// output or the other must fail the run, naming that output.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "checks/check.h"
#include "core/error.h"
#include "engine/conformance.h"
#include "oracles/exact.h"
#include "oracles/oracle.h"

KC_MATH_OF(Terms, max_fold)
KC_MATH_OF(Terms, argmax)

namespace kc {
namespace {

// The values' oracle and replay are max_dim's, the indices' argmax_dim's:
// an element's context says its output (drivers/reduce_dim.cpp).
void max_with_index(const oracle::Terms& in, oracle::Exact& out) {
  if (in.ctx.output == 0) oracle::max_fold(in, out);
  else oracle::argmax(in, out);
}
double replay_max_with_index(const oracle::Terms& in) {
  return in.ctx.output == 0 ? oracle::replay::max_fold(in) : oracle::replay::argmax(in);
}

contract::KernelSpec max_with_indices(std::string_view driver = "reduce_dim") {
  const contract::KernelSpec& argmax = *contract::find_kernel("argmax_dim");
  return {.name = "max_with_indices",
          .family = "test",
          .driver = driver,
          .summary = "the maximum along dim and the index of its first occurrence (torch.max(x, dim))",
          .source = "tests/multi_output_test.cpp",
          .inputs = argmax.inputs,
          .params = argmax.params,
          .outputs = {{.name = "values"}, {.name = "indices", .dtype = DType::u32}},
          .preconditions = argmax.preconditions,
          .accuracy = argmax.accuracy,  // exact: an element of x, an index
          .values = argmax.values,
          .math = {max_with_index, replay_max_with_index},
          .oracle_text = "max_dim's and argmax_dim's"};
}

enum class Defect { none, values, indices, indices_dtype };

// The kernel under test: the reference's max_dim and argmax_dim, with a
// defect planted in the first output cell (a value one ulp up, an index
// flipped in its lowest bit) or the indices returned as f32.
class MaxWithIndices final : public Backend {
 public:
  explicit MaxWithIndices(Defect d) : ref_(make_backend("reference")), defect_(d) {}
  std::string name() const override { return "max_with_indices_test"; }
  std::optional<DTypeSet> supported(std::string_view kernel) const override {
    return ref_->supported(kernel == "max_with_indices" ? "argmax_dim" : kernel);
  }
  std::vector<Tensor> run(std::string_view kernel, std::span<const Tensor> in, const Params& p) const override {
    if (kernel != "max_with_indices") return ref_->run(kernel, in, p);
    std::vector<Tensor> out;
    try {
      out = {ref_->run("max_dim", in, p).at(0), ref_->run("argmax_dim", in, p).at(0)};
    } catch (const KernelError& e) {  // its preconditions' errors are its own
      throw KernelError("max_with_indices", e.operand(), e.rule(), e.detail());
    }
    Tensor &values = out[0], &indices = out[1];
    if (values.numel() == 0) return out;
    if (defect_ == Defect::values && std::isfinite(values.value_at(0)))
      values.set_bits(0, double_to_bits(DType::f32, std::nextafter(static_cast<float>(values.value_at(0)), INFINITY)));
    if (defect_ == Defect::indices) indices.set_bits(0, indices.bits_at(0) ^ 1);
    if (defect_ == Defect::indices_dtype) indices = Tensor(DType::f32, indices.dims());
    return out;
  }

 private:
  std::unique_ptr<Backend> ref_;
  Defect defect_;
};

engine::KernelDTypeResult run(Defect d) {
  static const contract::KernelSpec k = max_with_indices();
  const MaxWithIndices backend(d);
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 30;
  opts.seed = 7;
  opts.backend = backend.name();
  return engine::run_kernel_dtype(k, DType::f32, backend, opts);
}

const engine::CheckTally* tally(const engine::KernelDTypeResult& r, std::string_view name) {
  const auto it = std::find_if(r.checks.begin(), r.checks.end(), [&](const auto& c) { return c.name == name; });
  return it == r.checks.end() ? nullptr : &*it;
}

// The failures' messages, one after the other.
std::string failures(const engine::KernelDTypeResult& r) {
  std::string s;
  for (const auto& f : r.failures) s += f.message + "\n";
  return s;
}

TEST(MultiOutput, BothOutputsGradedEachInItsDtype) {
  const auto r = run(Defect::none);
  EXPECT_EQ(r.verdict, engine::Verdict::pass) << failures(r);
  const engine::CheckTally* accuracy = tally(r, "accuracy");
  ASSERT_NE(accuracy, nullptr);
  // Every case's values and indices: twice the cells, the same count each.
  EXPECT_GT(accuracy->passed, 0);
  EXPECT_EQ(accuracy->passed % 2, 0);
  EXPECT_EQ(accuracy->failed, 0);
}

TEST(MultiOutput, WrongValueFailsNamingTheValues) {
  const auto r = run(Defect::values);
  EXPECT_EQ(r.verdict, engine::Verdict::fail);
  const std::string f = failures(r);
  EXPECT_NE(f.find("of values cell 0"), std::string::npos) << f;
  EXPECT_EQ(f.find("of indices cell"), std::string::npos) << f;
}

TEST(MultiOutput, WrongIndexFailsAsAnIntegerNamingTheIndices) {
  const auto r = run(Defect::indices);
  EXPECT_EQ(r.verdict, engine::Verdict::fail);
  const std::string f = failures(r);
  EXPECT_NE(f.find("of indices cell 0"), std::string::npos) << f;
  EXPECT_EQ(f.find("of values cell"), std::string::npos) << f;
  // Graded as a u32: shown in its 32 bits, not as a float's.
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures.front().result_hex.size(), std::string("0x00000000").size()) << r.failures.front().result_hex;
  ASSERT_FALSE(r.findings.empty());
  EXPECT_EQ(r.findings.front().failure, "wrong_integer");
}

TEST(MultiOutput, IndicesOfTheWrongDtypeNameTheOutput) {
  const auto r = run(Defect::indices_dtype);
  EXPECT_EQ(r.verdict, engine::Verdict::fail);
  const std::string f = failures(r);
  EXPECT_NE(f.find("indices: expected"), std::string::npos) << f;
  EXPECT_NE(f.find(" u32, got "), std::string::npos) << f;
}

// A driver of one output cannot grade an entry of two: refused at start-up.
TEST(MultiOutput, SingleOutputDriverRefusesTwoOutputs) {
  const auto problems = engine::check_table({max_with_indices("reduce_all")}, checks::registry());
  const bool named = std::any_of(problems.begin(), problems.end(), [](const std::string& p) {
    return p.find("2 outputs, but driver 'reduce_all' gives one") != std::string::npos;
  });
  EXPECT_TRUE(named) << (problems.empty() ? "no problem" : problems.front());
}

}  // namespace
}  // namespace kc
