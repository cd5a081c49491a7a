// Grade once (issue 36): an element's exact value is evaluated once, by
// grading, and the checks relating exact values (the row relations: rows
// sum to 1, log of softmax, backward against forward) read that
// evaluation (engine/check.h ElementExact) instead of calling the oracle
// again. The entries run here are softmax's and log_softmax's with their
// oracle counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

#include "backends/reference/executor.h"
#include "checks/check.h"
#include "engine/conformance.h"
#include "oracles/exact.h"
#include "oracles/oracle.h"

KC_MATH_OF(Row, softmax)
KC_MATH_OF(Row, log_softmax)

namespace kc {
namespace {

std::int64_t calls = 0;  // (run_kernel_dtype grades on this thread)
void counted_softmax(const oracle::Row& in, oracle::Exact& out) {
  ++calls;
  oracle::softmax(in, out);
}
void counted_log_softmax(const oracle::Row& in, oracle::Exact& out) {
  ++calls;
  oracle::log_softmax(in, out);
}

engine::KernelDTypeResult run_counted(std::string_view name, const oracle::Math& math) {
  contract::KernelSpec k = *contract::find_kernel(name);
  k.math = math;
  const auto backend = make_backend("reference");
  engine::RunOptions opts{.checks = &checks::registry()};
  opts.cases = 20;
  opts.seed = 3;
  calls = 0;
  return engine::run_kernel_dtype(k, DType::f32, *backend, opts);
}

TEST(GradeOnce, RowRelationsReadGradingsEvaluations) {
  const std::pair<std::string_view, oracle::Math> entries[] = {
      {"softmax_last_dim", {counted_softmax, oracle::replay::softmax}},
      {"log_softmax_last_dim", {counted_log_softmax, oracle::replay::log_softmax}}};
  for (const auto& [name, math] : entries) {
    const engine::KernelDTypeResult r = run_counted(name, math);
    EXPECT_EQ(r.verdict, engine::Verdict::pass) << name;
    std::int64_t relations = 0;
    for (const auto& c : r.checks)
      if (c.kind == engine::CheckKind::property) {
        EXPECT_GT(c.passed, 0) << name << ": " << c.name << " judged nothing";
        relations += c.passed;
      }
    EXPECT_GE(relations, 2) << name;
    // One evaluation per element graded against the oracle, and one per
    // Ziv re-evaluation: none by the relations.
    EXPECT_EQ(calls, r.elements - r.accuracy.special + r.accuracy.oracle_escalations)
        << name << ": " << r.elements << " elements, " << r.accuracy.special << " special, "
        << r.accuracy.oracle_escalations << " re-evaluations";
  }
}

}  // namespace
}  // namespace kc
