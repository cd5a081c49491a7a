#include "checks/row_oracle.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "drivers/driver.h"
#include "oracles/exact.h"
#include "oracles/rounding.h"

namespace kc::checks {

RowExact row_exact(const contract::KernelSpec& k, const oracle::Row& in) {
  const auto f = k.math.oracle_of<oracle::Row>();
  if (!f) throw std::logic_error(std::string(k.name) + ": the relation needs a Row oracle");
  const DType t = in.ctx.dtype;
  oracle::PrecisionScope scope(oracle::working_bits(t));
  oracle::Exact ex;
  f(in, ex);
  RowExact r{ex.value, oracle::Mp(INFINITY), ex.replayed};
  if (ex.magnitude && !ex.replayed) r.bound = *ex.magnitude * oracle::Mp(oracle::unit_roundoff(t));
  return r;
}

RowExact row_exact(const contract::KernelSpec& k, DType t, const Params& p, std::span<const double> a,
                   std::span<const double> b, std::size_t i) {
  return row_exact(k, oracle::Row{{.dtype = t, .out_dtype = t, .params = &p}, {a.begin(), a.end()}, {b.begin(), b.end()}, i});
}

std::optional<std::vector<oracle::Mp>> output_bounds(const contract::KernelSpec& k, DType t, const gen::Case& cs,
                                                     std::span<const Tensor> outputs) {
  const drivers::Driver& d = drivers::of(k);
  const drivers::Expectation want = d.expected_output(k, cs);
  std::vector<oracle::Mp> bound(static_cast<std::size_t>(want.numel()));
  bool comparable = true;
  d.for_each_element(k, cs, [&](const drivers::Element& e) {
    if (!comparable) return;
    const RowExact r = row_exact(k, e.input<oracle::Row>());
    const auto [part, at] = want.locate(e.out);
    comparable = !r.replayed && oracle::is_number(r.bound) && std::isfinite(outputs[part].value_at(at));
    bound[static_cast<std::size_t>(e.out)] = r.bound;
  });
  if (!comparable) return std::nullopt;
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
