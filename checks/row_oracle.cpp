#include "checks/row_oracle.h"

#include <cmath>

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
                                                     const Tensor& y) {
  std::vector<oracle::Mp> bound(static_cast<std::size_t>(y.numel()));
  bool comparable = true;
  drivers::of(k).for_each_element(k, cs, [&](const drivers::Element& e) {
    if (!comparable) return;
    const RowExact r = row_exact(k, e.input<oracle::Row>());
    comparable = !r.replayed && oracle::is_number(r.bound) && std::isfinite(y.value_at(e.out));
    bound[static_cast<std::size_t>(e.out)] = r.bound;
  });
  if (!comparable) return std::nullopt;
  return bound;
}

bool row_values(const Tensor& x, std::int64_t at, std::int64_t n, std::vector<double>& out) {
  out.resize(static_cast<std::size_t>(n));
  bool finite = true;
  for (std::int64_t j = 0; j < n; ++j) finite &= std::isfinite(out[static_cast<std::size_t>(j)] = x.value_at(at + j));
  return finite;
}

}  // namespace kc::checks
