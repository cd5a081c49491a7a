#include "engine/tally.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace kc::engine {

namespace {

// Histogram edges of fractional ulp error (last bin open).
const std::vector<double> kEdges{0, 1e-9, 0.5, 0.5001, 0.501, 0.51, 0.6, 1, 1.5, 2, 4, 8, 16, 64, 256, 1024, INFINITY};
constexpr std::size_t kSlices = 256;  // of the input domain, for the error profile

double worst_key(const ElementReport& e) { return e.normalized ? *e.normalized : e.frac_ulp; }

// The error profile's 256 slices of a dtype's input domain. Floats are cut
// by the ordered bit pattern (sign-magnitude: -NaN ... -0 | +0 ... +NaN),
// integers by value; slice i starts at lower(i). Integer arithmetic
// throughout: f64's ordered range spans 2^64 values.
struct Slices {
  DType t;
  int bits() const { return is_float(t) ? float_format(t).total_bits : static_cast<int>(dtype_size(t) * 8); }
  std::size_t of(std::uint64_t pattern) const {
    if (!is_float(t)) return static_cast<std::size_t>(pattern >> (bits() - 8));
    const __int128 half = static_cast<__int128>(1) << (bits() - 1);
    const __int128 shifted = static_cast<__int128>(ordered_bits(t, pattern)) + half;  // in [1, 2 half)
    return static_cast<std::size_t>(std::min<__int128>(shifted >> (bits() - 8), 255));
  }
  // The bit pattern of the first input of slice i (i = 256: the last input).
  std::uint64_t lower(std::size_t i) const {
    const int b = bits();
    if (!is_float(t)) {
      const __int128 v = static_cast<__int128>(i) << (b - 8);
      return static_cast<std::uint64_t>(std::min<__int128>(v, (static_cast<__int128>(1) << b) - 1));
    }
    const __int128 half = static_cast<__int128>(1) << (b - 1);
    const __int128 o = std::clamp<__int128>((static_cast<__int128>(i) << (b - 8)) - half, -(half - 1), half - 1);
    const std::uint64_t sign = 1ull << (b - 1);
    return o >= 0 ? static_cast<std::uint64_t>(o) : (sign | static_cast<std::uint64_t>(-o));
  }
};

std::string classify_value(DType t, double x) {
  if (!is_float(t)) return x == 0 ? "zero" : "integer";
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return "inf";
  if (x == 0) return "zero";
  if (std::fabs(x) < min_normal(t)) return "subnormal";
  return "normal";
}

}  // namespace

Tallies::Tallies() : hist(kEdges.size() - 1, 0), prof_max(kSlices, NAN) {}

CheckTally& Tallies::tally(const std::string& name, const std::string& kind) {
  for (auto& t : tallies)
    if (t.name == name) return t;
  tallies.push_back({.name = name, .kind = kind});
  return tallies.back();
}

void Tallies::record(const Context& c, CheckTally& t, bool ok, const ElementReport* report) {
  if (ok) {
    ++t.passed;
    return;
  }
  ++t.failed;
  ++failed;
  if (!report) return;
  std::size_t stored = 0;
  for (const auto& f : failures) stored += f.check == t.name;
  if (stored < c.opts.max_failures_per_check) failures.push_back(*report);
}

void Tallies::not_graded(CheckTally& t, const std::string& why) {
  ++t.not_graded;
  t.detail = "not graded: " + why;
}

void Tallies::add_shape(const Tensor& x) {
  auto& sc = coverage.shape_classes;
  ++sc[fmt::format("rank{}", x.rank())];
  if (x.numel() == 0) ++sc["empty"];
  if (std::count(x.dims().begin(), x.dims().end(), 1) > 0) ++sc["size1_dim"];
}

void Tallies::add_coverage(const Context& c, const drivers::Element& e, const Grade& g, double y) {
  const bool float_in = is_float(c.t);
  const int p = float_in ? float_format(c.t).precision : 32;
  auto& vc = coverage.value_classes;
  for (std::size_t a = 0; a < e.args.size() && a < 2; ++a) {
    const double xv = e.args[a];
    ++vc[classify_value(c.t, xv)];
    if (float_in && std::isfinite(xv) && std::fabs(xv) < std::ldexp(1.0, p - 1) && std::fabs(xv - std::trunc(xv)) == 0.5)
      ++vc["tie"];
    if (std::isfinite(xv) && xv != 0 && xv == std::trunc(xv)) ++vc["integer"];
  }
  if (g.overflow) ++vc["overflow"];
  ++coverage.outputs;
  if (y == 0) ++coverage.outputs_zero;
  if (std::isnan(y)) ++coverage.outputs_nan;
}

void Tallies::add_error(const Context& c, const drivers::Element& e, const Grade& g) {
  if (!std::isfinite(g.frac)) return;
  fracs.push_back(g.frac);
  auto it = std::upper_bound(kEdges.begin(), kEdges.end(), g.frac);
  ++hist[static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - kEdges.begin() - 1))];
  if (g.distance >= 0) {
    max_dist = std::max(max_dist, g.distance);
    cr += g.distance == 0;
    ++n_dist;
  }
  // Error profile over the input domain, for one-input elementwise elements.
  if (e.replayable && e.shown.size() == 1) {
    const std::size_t slice = Slices{c.t}.of(e.shown[0]);
    if (std::isnan(prof_max[slice]) || g.frac > prof_max[slice]) prof_max[slice] = g.frac;
  }
}

void Tallies::add_normalized(const Grade& g) {
  if (g.normalized) {
    max_norm = std::max(max_norm, *g.normalized);
    sum_norm += *g.normalized;
    ++n_norm;
  }
  if (g.bias_sample && std::isfinite(g.signed_normalized)) {
    bias_sum += g.signed_normalized;
    bias_sq += g.signed_normalized * g.signed_normalized;
    ++bias_n;
  }
}

bool Tallies::could_be_worst(const Grade& g) const {
  const double key = g.normalized ? *g.normalized : g.frac;
  return !g.special && std::isfinite(g.frac) && (worst.size() < 5 || key > worst_key(worst.back()));
}

void Tallies::keep_worst(const ElementReport& r) {
  worst.push_back(r);
  std::stable_sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return worst_key(a) > worst_key(b); });
  if (worst.size() > 5) worst.pop_back();
}

void Tallies::finish(const Context& c, KernelDTypeResult& res) const {
  AccuracyStats& s = res.accuracy;
  s.graded = static_cast<std::int64_t>(fracs.size());
  s.special = special;
  s.replayed = replayed;
  s.oracle_escalations = escalations;
  if (!fracs.empty()) {
    std::vector<double> f = fracs;
    s.max_frac_ulp = *std::max_element(f.begin(), f.end());
    s.mean_frac_ulp = std::accumulate(f.begin(), f.end(), 0.0) / static_cast<double>(f.size());
    auto k = static_cast<std::size_t>(0.99 * static_cast<double>(f.size() - 1));
    std::nth_element(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(k), f.end());
    s.p99_frac_ulp = f[k];
    s.correctly_rounded_share = static_cast<double>(cr) / static_cast<double>(f.size());
    s.not_correctly_rounded = n_dist - cr;
  }
  s.max_distance = max_dist;
  if (n_norm > 0) {
    s.max_normalized = max_norm;
    s.mean_normalized = sum_norm / static_cast<double>(n_norm);
  }
  if (bias_n > 0) {
    const double n = static_cast<double>(bias_n), mean = bias_sum / n;
    s.bias_mean = mean;
    s.bias_stderr = std::sqrt(std::max(0.0, bias_sq / n - mean * mean) / n);
  }
  s.histogram = {kEdges, hist};
  res.elements = elements;
  res.checks = tallies;
  res.failures = failures;
  res.worst = worst;
  res.coverage = coverage;
  const Slices slices{c.t};
  for (std::size_t i = 0; i < kSlices; ++i) {
    res.profile.x_lo.push_back(bits_to_double(c.t, slices.lower(i)));
    res.profile.x_hi.push_back(bits_to_double(c.t, slices.lower(i + 1)));
    res.profile.max_frac_ulp.push_back(prof_max[i]);
  }
  std::int64_t n_failed = 0;
  for (const auto& t : tallies) n_failed += t.failed;
  if (res.interrupted) {
    res.verdict = n_failed > 0 ? "fail" : "not_graded";
  } else if (elements == 0 && !c.opts.only_case) {  // (a replayed single case may be empty)
    res.verdict = "fail";  // a loop that graded nothing is a failure
    ElementReport r;
    r.check = "graded something";
    r.message = fmt::format("{} {}: no element was graded", c.k.name, dtype_name(c.t));
    res.failures.push_back(r);
    res.checks.push_back({.name = "graded something", .kind = "run", .failed = 1});
  } else {
    res.verdict = n_failed > 0 ? "fail" : "pass";
  }
}

}  // namespace kc::engine
