#include "checks/row_oracle.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "drivers/driver.h"
#include "oracles/exact.h"
#include "oracles/rounding.h"

namespace kc::checks {

namespace {
// An element's exact value and bound from its evaluation, at the dtype's
// working precision.
RowExact from_evaluation(DType t, const oracle::Mp& value, const std::optional<oracle::Mp>& magnitude, bool replayed) {
  RowExact r{value, oracle::Mp(INFINITY), replayed};
  if (magnitude && !replayed) r.bound = *magnitude * oracle::Mp(oracle::unit_roundoff(t));
  return r;
}
}  // namespace

RowExact row_exact(const contract::KernelSpec& k, const oracle::Row& in) {
  const auto f = k.math.oracle_of<oracle::Row>();
  if (!f) throw std::logic_error(std::string(k.name) + ": the relation needs a Row oracle");
  const DType t = in.ctx.dtype;
  oracle::PrecisionScope scope(oracle::working_bits(t));
  oracle::Exact ex;
  f(in, ex);
  return from_evaluation(t, ex.value, ex.magnitude, ex.replayed);
}

std::optional<RowExact> graded_row_exact(const engine::CaseView& v, std::int64_t out) {
  const auto i = static_cast<std::size_t>(out);
  if (i >= v.exacts.size())
    throw std::logic_error(fmt::format("{} {}: grading kept no exact evaluation of output element {} (its check "
                                       "must ask for them, needs_exacts)",
                                       v.c.k.name, dtype_name(v.c.t), out));
  if (!v.exacts[i]) return std::nullopt;
  oracle::PrecisionScope scope(oracle::working_bits(v.c.t));
  return from_evaluation(v.c.t, v.exacts[i]->value, v.exacts[i]->magnitude, v.exacts[i]->replayed);
}

RowExact row_exact(const contract::KernelSpec& k, DType t, const Params& p, std::span<const double> a,
                   std::span<const double> b, std::size_t i) {
  return row_exact(k, oracle::Row{{.dtype = t, .out_dtype = t, .params = &p}, {a.begin(), a.end()}, {b.begin(), b.end()}, i});
}

RowOracle::RowOracle(DType t, const Params& p, std::span<const double> a, std::span<const double> b)
    : row_{{.dtype = t, .out_dtype = t, .params = &p}, {a.begin(), a.end()}, {b.begin(), b.end()}, 0, oracle::next_fill()} {}

RowExact RowOracle::at(const contract::KernelSpec& k, std::size_t i) {
  row_.i = i;
  return row_exact(k, row_);
}

std::optional<RowExact> graded_or_evaluated(const engine::CaseView& v, std::int64_t out, RowOracle& row, std::size_t j) {
  if (!v.cs.shaped || (static_cast<std::size_t>(out) < v.exacts.size() && v.exacts[static_cast<std::size_t>(out)]))
    return graded_row_exact(v, out);
  return row.at(v.c.k, j);
}

void each_graded_element(const engine::CaseView& v, const std::function<void(const drivers::Element&)>& f) {
  if (!v.cs.shaped) return v.c.driver.for_each_element(v.c.k, v.cs, f);
  std::vector<std::int64_t> graded;
  for (std::size_t i = 0; i < v.exacts.size(); ++i)
    if (v.exacts[i]) graded.push_back(static_cast<std::int64_t>(i));
  v.c.driver.for_each_listed(v.c.k, v.cs, graded, f);
}

std::optional<std::vector<oracle::Mp>> output_bounds(const engine::CaseView& v) {
  const drivers::Expectation want = v.c.driver.expected_output(v.c.k, v.cs);
  std::vector<oracle::Mp> bound(static_cast<std::size_t>(want.numel()));
  for (std::int64_t out = 0; out < want.numel(); ++out) {
    const std::optional<RowExact> e = graded_row_exact(v, out);
    if (!e) return std::nullopt;
    const RowExact& r = *e;
    const auto [part, at] = want.locate(out);
    if (r.replayed || !oracle::is_number(r.bound) || !std::isfinite(v.outputs[part].value_at(at))) return std::nullopt;
    bound[static_cast<std::size_t>(out)] = r.bound;
  }
  return bound;
}

std::string attention_fit(const contract::KernelSpec& k, bool backward) {
  const std::vector<std::string_view> inputs = backward ? std::vector<std::string_view>{"q", "k", "v", "do_grad"}
                                                        : std::vector<std::string_view>{"q", "k", "v"},
                                      outputs = backward ? std::vector<std::string_view>{"dq", "dk", "dv"}
                                                         : std::vector<std::string_view>{""};
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (k.inputs.size() <= i || k.inputs[i].name != inputs[i])
      return fmt::format("takes {} first", fmt::join(inputs, ", "));
  std::vector<std::string_view> named;
  for (const auto& o : k.outputs) named.push_back(o.name);
  if (named != outputs) return backward ? "returns dq, dk and dv" : "returns one output";
  return k.math.takes<oracle::Row>() ? "" : "has a Row oracle";
}

bool row_values(const Tensor& x, std::int64_t at, std::int64_t n, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(n));
  bool finite = true;
  for (std::int64_t j = 0; j < n; ++j) finite &= std::isfinite(out[static_cast<std::size_t>(j)] = x.value_at(at + j));
  return finite;
}

}  // namespace kc::checks
