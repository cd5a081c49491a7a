// Orchestration of one kernel x dtype: the case list (exhaustive sweeps of
// 16-bit formats, then random cases from per-case derived seeds), the
// per-case checks, shrinking of the first failing random case, the
// bad-input rules, and the statistics of the result.
#include "engine/conformance.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "engine/grading.h"
#include "engine/jobs.h"
#include "generators/families.h"
#include "generators/invalid.h"
#include "generators/values.h"
#include "kernels/shape_math.h"
#include "oracles/mp.h"

namespace kc::engine {

namespace {

using contract::KernelSpec;
using contract::PropertyKind;

bool is_half(DType t) { return t == DType::bf16 || t == DType::f16; }

std::string fmt_value(double v) {
  if (std::isnan(v)) return "NaN";
  return fmt::format("{:.9g}", v);
}

// Histogram edges of fractional ulp error (last bin open).
const std::vector<double> kEdges{0, 1e-9, 0.5, 0.5001, 0.501, 0.51, 0.6, 1, 1.5, 2, 4, 8, 16, 64, 256, 1024, INFINITY};

struct Context {
  const KernelSpec& k;
  DType t;
  const Backend& backend;
  const RunOptions& opts;
};

std::string base_command(const Context& c) {
  std::string s = fmt::format("kconform run --kernel {} --dtype {}", c.k.name, dtype_name(c.t));
  if (c.opts.backend != "reference") s += " --backend " + c.opts.backend;
  return s;
}

std::string case_repro(const Context& c, std::int64_t case_id, const std::vector<int>& path) {
  std::string s = base_command(c) + fmt::format(" --seed {} --case {}", c.opts.seed, case_id);
  if (!path.empty()) s += fmt::format(" --shrink {}", fmt::join(path, ","));
  return s;
}

std::string element_repro(const Context& c, const std::string& hex, const Params& p) {
  std::string s = base_command(c) + " --input " + hex;
  if (!p.empty()) s += " --params " + p.to_string();
  return s;
}

// Everything the run accumulates over cases.
struct Acc {
  std::vector<CheckTally> tallies;
  std::vector<double> fracs;
  std::int64_t elements = 0, special = 0, replayed = 0, escalations = 0, cr = 0, n_dist = 0, max_dist = 0;
  double sum_norm = 0, max_norm = -1;
  std::int64_t n_norm = 0;
  double bias_sum = 0, bias_sq = 0;
  std::int64_t bias_n = 0;
  std::vector<std::int64_t> hist = std::vector<std::int64_t>(kEdges.size() - 1, 0);
  std::vector<double> prof_max = std::vector<double>(256, NAN);
  Coverage coverage;
  std::vector<ElementReport> worst, failures;
  std::int64_t failed = 0;

  CheckTally& tally(const std::string& name, const std::string& kind) {
    for (auto& t : tallies)
      if (t.name == name) return t;
    tallies.push_back({name, kind, 0, 0, ""});
    return tallies.back();
  }
};

void record(Acc& acc, const Context& c, CheckTally& tally, bool ok, ElementReport* report) {
  if (ok) {
    ++tally.passed;
    return;
  }
  ++tally.failed;
  ++acc.failed;
  if (!report) return;
  std::size_t stored = 0;
  for (const auto& f : acc.failures) stored += f.check == tally.name;
  if (stored < c.opts.max_failures_per_check) acc.failures.push_back(*report);
}

std::string classify_value(DType t, double x) {
  if (!is_float(t)) return x == 0 ? "zero" : "integer";
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return "inf";
  if (x == 0) return "zero";
  if (std::fabs(x) < std::ldexp(1.0, float_format(t).emin)) return "subnormal";
  return "normal";
}

std::string input_text(const Context& c, const engine::Job& job) {
  std::string hex;
  for (std::size_t s = 0; s < job.shown.size(); ++s) hex += (s ? ", " : "") + hex_bits(c.t, job.shown[s]);
  if (job.args.size() == 1) return fmt::format("x = {} ({})", fmt_value(job.args[0]), hex);
  if (job.elementwise && job.args.size() == 2)
    return fmt::format("a = {}, b = {} ({})", fmt_value(job.args[0]), fmt_value(job.args[1]), hex);
  return fmt::format("{}; first: {}{}", job.where, hex, job.args.size() > job.shown.size() ? ", ..." : "");
}

std::string join_hex(const Context& c, const engine::Job& job) {
  std::string hex;
  for (std::size_t s = 0; s < job.shown.size(); ++s) hex += (s ? "," : "") + hex_bits(c.t, job.shown[s]);
  return hex;
}

ElementReport element_report(const Context& c, const std::string& check, std::int64_t case_id,
                             const std::vector<int>& path, const gen::Case& cs, const engine::Job& job, double y,
                             std::uint64_t y_bits, const Grade& g) {
  const DType t_out = c.k.out_dtype(c.t);
  ElementReport r;
  r.check = check;
  r.case_index = case_id;
  r.element = job.out;
  r.dims = cs.inputs.empty() ? "" : dims_to_string(cs.inputs.front().dims());
  r.params = cs.params.to_string();
  r.input = job.args.empty() ? 0 : job.args[0];
  r.input_hex = join_hex(c, job);
  r.result = y;
  r.result_hex = hex_bits(t_out, y_bits);
  r.exact = g.exact;
  r.correctly_rounded = g.rn;
  r.correctly_rounded_hex = std::isnan(g.rn) ? "NaN" : hex_bits(t_out, double_to_bits(t_out, g.rn));
  r.frac_ulp = g.frac;
  r.distance = g.distance;
  r.normalized = g.normalized;
  r.bound = g.bound;
  r.repro = job.elementwise ? element_repro(c, r.input_hex, cs.params) : case_repro(c, case_id, path);
  std::string err = fmt::format("{:.6g} ulp (fractional)", g.frac);
  if (g.distance >= 0) err += fmt::format(", {} (integer distance)", g.distance);
  if (g.normalized) err += fmt::format(", {:.6g} (normalized)", *g.normalized);
  if (g.semantics_ok && !*g.semantics_ok)
    err += fmt::format("; the reference's steps give {} ({})", fmt_value(g.replay), hex_bits(t_out, double_to_bits(t_out, g.replay)));
  r.message = fmt::format(
      "{} {}: {}{}\n"
      "  where:             output element {} of case {} (input shape {}{})\n"
      "  input:             {}\n"
      "  result:            {} ({})\n"
      "  exact:             {}\n"
      "  correctly rounded: {} ({})\n"
      "  error:             {}\n"
      "  replay:            {}",
      c.k.name, dtype_name(c.t), check, g.why.empty() ? "" : ": " + g.why, job.out, case_id, r.dims,
      r.params.empty() ? "" : ", params " + r.params, input_text(c, job), fmt_value(y), r.result_hex, r.exact,
      fmt_value(g.rn), r.correctly_rounded_hex, err, r.repro);
  return r;
}

ElementReport case_report(const Context& c, const std::string& check, std::int64_t case_id,
                          const std::vector<int>& path, const gen::Case& cs, const std::string& what) {
  ElementReport r;
  r.check = check;
  r.case_index = case_id;
  r.dims = cs.inputs.empty() ? "" : dims_to_string(cs.inputs.front().dims());
  r.params = cs.params.to_string();
  r.repro = case_repro(c, case_id, path);
  r.message = fmt::format("{} {}: {}: {}\n  where:  case {} (shape {}{})\n  replay: {}", c.k.name, dtype_name(c.t),
                          check, what, case_id, r.dims, r.params.empty() ? "" : ", params " + r.params, r.repro);
  return r;
}

double worst_key(const ElementReport& e) { return e.normalized ? *e.normalized : e.frac_ulp; }

void keep_worst(std::vector<ElementReport>& worst, const ElementReport& r) {
  worst.push_back(r);
  std::stable_sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return worst_key(a) > worst_key(b); });
  if (worst.size() > 5) worst.pop_back();
}

Tensor negated(const Tensor& x) {
  Tensor y(x.dtype(), x.dims());
  const std::uint64_t sign = 1ull << (float_format(x.dtype()).total_bits - 1);
  for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, x.bits_at(i) ^ sign);
  return y;
}

std::vector<Tensor> call(const Context& c, const gen::Case& cs) {
  return c.backend.run(c.k.name, cs.inputs, cs.params);
}

// Properties of unary kernels on their own outputs (pointwise, monotone, odd/even).
void unary_properties(const Context& c, Acc& acc, std::int64_t case_id, const std::vector<int>& path,
                      const gen::Case& cs, const Tensor& y) {
  const Tensor& x = cs.inputs.front();
  auto job_of = [&](std::int64_t i) { return engine::Job{i, {x.value_at(i)}, {x.bits_at(i)}, "", true}; };
  for (const auto& prop : c.k.properties) {
    if (!prop.applies_to(c.t)) continue;
    auto& tally = acc.tally("property:" + std::string(prop.name), "property");
    if (prop.kind == PropertyKind::pointwise) {
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const double xv = x.value_at(i), yv = y.value_at(i);
        if (std::isnan(xv)) continue;
        const bool ok = prop.holds(xv, yv);
        ElementReport r;
        if (!ok) {
          Grade g;
          g.exact = "(property)";
          g.why = "property does not hold";
          r = element_report(c, tally.name, case_id, path, cs, job_of(i), yv, y.bits_at(i), g);
        }
        record(acc, c, tally, ok, &r);
      }
    } else if (prop.kind == PropertyKind::monotone) {
      std::vector<std::pair<double, double>> xy;
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        const double xv = x.value_at(i), yv = y.value_at(i);
        if (std::isfinite(xv) && !std::isnan(yv)) xy.emplace_back(xv, yv);
      }
      std::sort(xy.begin(), xy.end());
      bool ok = true;
      std::string what;
      for (std::size_t i = 1; i < xy.size() && ok; ++i) {
        const bool bad = xy[i].first == xy[i - 1].first ? xy[i].second != xy[i - 1].second : xy[i].second < xy[i - 1].second;
        if (bad) {
          ok = false;
          what = fmt::format("x1 = {} <= x2 = {} but f(x1) = {} > f(x2) = {}", fmt_value(xy[i - 1].first),
                             fmt_value(xy[i].first), fmt_value(xy[i - 1].second), fmt_value(xy[i].second));
        }
      }
      if (xy.size() >= 2) {
        ElementReport r = case_report(c, tally.name, case_id, path, cs, what);
        record(acc, c, tally, ok, &r);
      }
    } else if (prop.kind == PropertyKind::odd || prop.kind == PropertyKind::even) {
      gen::Case neg = cs;
      neg.inputs.front() = negated(x);
      std::vector<Tensor> out2;
      try {
        out2 = call(c, neg);
      } catch (const std::exception& e) {
        ElementReport r = case_report(c, tally.name, case_id, path, cs, fmt::format("kernel failed on -x: {}", e.what()));
        record(acc, c, tally, false, &r);
        continue;
      }
      if (out2.size() != 1 || out2[0].numel() != x.numel()) continue;  // the output check reports it
      const std::uint64_t sign = 1ull << (float_format(c.t).total_bits - 1);
      for (std::int64_t i = 0; i < x.numel(); ++i) {
        if (std::isnan(x.value_at(i))) continue;
        const std::uint64_t a = y.bits_at(i), b = out2[0].bits_at(i);
        const double av = y.value_at(i), bv = out2[0].value_at(i);
        const bool ok = (std::isnan(av) && std::isnan(bv)) ||
                        (prop.kind == PropertyKind::odd ? b == (a ^ sign) : b == a);
        ElementReport r;
        if (!ok) {
          Grade g;
          g.exact = fmt::format("f(-x) = {} ({})", fmt_value(bv), hex_bits(c.t, b));
          g.why = prop.kind == PropertyKind::odd ? "f(-x) != -f(x)" : "f(-x) != f(x)";
          r = element_report(c, tally.name, case_id, path, cs, job_of(i), av, a, g);
        }
        record(acc, c, tally, ok, &r);
      }
    }
  }
}

bool same_bits_or_nan(const Tensor& a, std::int64_t i, const Tensor& b, std::int64_t j) {
  const double av = a.value_at(i), bv = b.value_at(j);
  return (std::isnan(av) && std::isnan(bv)) || a.bits_at(i) == b.bits_at(j);
}

// <x, broadcast_to(g)> == <reduce_sum_to(x), g> up to the sums' bound
// sum_c |g_c| gamma_{n_c - 1} S_c (docs/accuracy-bounds.md), with g small
// integers so that every product is exact. Cases with a non-finite x or
// result are not counted (the identity is about finite sums).
template <class Fail>
void adjoint_property(const Context& c, Acc& acc, CheckTally& tally, const gen::Case& cs, const Tensor& r,
                      Fail fail_case) {
  const Tensor& x = cs.inputs[0];
  for (std::int64_t i = 0; i < x.numel(); ++i)
    if (!std::isfinite(x.value_at(i))) return;
  for (std::int64_t i = 0; i < r.numel(); ++i)
    if (!std::isfinite(r.value_at(i))) return;
  Tensor g(c.t, r.dims());
  for (std::int64_t i = 0; i < g.numel(); ++i) g.set_bits(i, double_to_bits(c.t, static_cast<double>((i * 5 + 2) % 7 - 3)));
  auto bg = c.backend.run("broadcast_to", std::vector<Tensor>{g}, Params().set("target", x.dims()));
  oracle::PrecisionScope scope(1024);
  using oracle::Mp;
  Mp lhs(0), rhs(0), bound(0);
  for (std::int64_t i = 0; i < x.numel(); ++i) lhs += Mp(x.value_at(i)) * Mp(bg.at(0).value_at(i));
  const double u = std::ldexp(1.0, -float_format(c.t).precision);
  engine::for_each_job(c.k, cs, [&](const engine::Job& job) {
    Mp s(0);
    for (double a : job.args) s += Mp(std::fabs(a));
    const double m = job.args.empty() ? 0.0 : static_cast<double>(job.args.size() - 1);
    const Mp gc(g.value_at(job.out));
    rhs += Mp(r.value_at(job.out)) * gc;
    bound += boost::multiprecision::abs(gc) * Mp(std::expm1(m * std::log1p(u))) * s;  // gamma_m = (1+u)^m - 1
  });
  const Mp diff = boost::multiprecision::abs(lhs - rhs);
  if (diff <= bound) record(acc, c, tally, true, nullptr);
  else fail_case(fmt::format("|<x, broadcast(g)> - <reduce_sum_to(x), g>| = {} exceeds the bound {}",
                             diff.str(8, std::ios_base::scientific), bound.str(8, std::ios_base::scientific)));
}

// Relational properties of the binary and reduction families: each calls
// the backend again (the same kernel or the one the property names).
void family_properties(const Context& c, Acc& acc, std::int64_t case_id, const std::vector<int>& path,
                       const gen::Case& cs, const Tensor& y) {
  for (const auto& prop : c.k.properties) {
    if (!prop.applies_to(c.t)) continue;
    auto& tally = acc.tally("property:" + std::string(prop.name), "property");
    auto fail_case = [&](const std::string& what) {
      ElementReport r = case_report(c, tally.name, case_id, path, cs, what);
      record(acc, c, tally, false, &r);
    };
    try {
      if (prop.kind == PropertyKind::commutative) {
        const Tensor& a = cs.inputs[0];
        const Tensor& b = cs.inputs[1];
        auto swapped = c.backend.run(c.k.name, std::vector<Tensor>{b, a}, cs.params);
        const Dims out = y.dims();
        const kern::BroadcastIndex ia(a.dims(), out), ib(b.dims(), out);
        for (std::int64_t o = 0; o < y.numel(); ++o) {
          if (!prop.holds(a.value_at(ia(o)), b.value_at(ib(o)))) continue;
          const bool ok = swapped.size() == 1 && swapped[0].numel() == y.numel() && same_bits_or_nan(y, o, swapped[0], o);
          if (ok) record(acc, c, tally, true, nullptr);
          else fail_case(fmt::format("f(a, b) != f(b, a) at output element {}", o));
        }
      } else if (prop.kind == PropertyKind::broadcast_consistent) {
        const Dims out = y.dims();
        const Params to = Params().set("target", out);
        auto a2 = c.backend.run("broadcast_to", std::vector<Tensor>{cs.inputs[0]}, to);
        auto b2 = c.backend.run("broadcast_to", std::vector<Tensor>{cs.inputs[1]}, to);
        auto same = c.backend.run(prop.related, std::vector<Tensor>{a2.at(0), b2.at(0)}, {});
        bool ok = same.size() == 1 && same[0].numel() == y.numel();
        std::int64_t bad = -1;
        for (std::int64_t o = 0; ok && o < y.numel(); ++o)
          if (!same_bits_or_nan(y, o, same[0], o)) ok = false, bad = o;
        if (ok) record(acc, c, tally, true, nullptr);
        else fail_case(fmt::format("{}(a, b) differs from {}(broadcast_to(a), broadcast_to(b)) at element {}", c.k.name,
                                   prop.related, bad));
      } else if (prop.kind == PropertyKind::argmax_value) {
        const Tensor& x = cs.inputs[0];
        auto m = c.backend.run(prop.related, std::vector<Tensor>{x}, cs.params);
        const auto dim = static_cast<std::size_t>(std::get<std::int64_t>(*cs.params.find("dim")));
        std::int64_t inner = 1;
        for (std::size_t d = dim + 1; d < x.dims().size(); ++d) inner *= x.dims()[d];
        const std::int64_t len = x.dims()[dim];
        for (std::int64_t o = 0; o < y.numel(); ++o) {
          const std::int64_t base = (o / inner) * inner * len + o % inner;
          bool has_nan = false;
          for (std::int64_t kk = 0; kk < len; ++kk) has_nan |= std::isnan(x.value_at(base + kk * inner));
          if (has_nan || len == 0) continue;  // argmax keeps a leading NaN, max_dim ignores it
          const auto at = static_cast<std::int64_t>(y.value_at(o));
          const bool ok = at < len && x.bits_at(base + at * inner) == m.at(0).bits_at(o);
          if (ok) record(acc, c, tally, true, nullptr);
          else fail_case(fmt::format("x at index {} of output cell {} is not {}'s value", at, o, prop.related));
        }
      } else if (prop.kind == PropertyKind::adjoint) {
        adjoint_property(c, acc, tally, cs, y, fail_case);
      }
    } catch (const std::exception& e) {
      fail_case(fmt::format("a call the property needs failed: {}", e.what()));
    }
  }
}

// Statistics over the outputs of one case (TOSA-style, for sums with many
// output cells), on the dedicated statistics case (gen::statistics_case):
// the mean of the signed normalized errors must be zero within 6 standard
// errors, and their mean square must not exceed the mean of its expectation
// bounds.
void case_statistics(const Context& c, Acc& acc, std::int64_t case_id, const std::vector<int>& path,
                     const gen::Case& cs, const std::vector<double>& e, const std::vector<double>& bound) {
  const contract::Accuracy* model = c.k.accuracy_for(c.t);
  if (!model || !model->check_case_statistics) return;
  auto& tally = acc.tally("statistics: mean and mean square of normalized errors per case", "statistics");
  const double n = static_cast<double>(e.size());
  double sum = 0, sq = 0, b = 0, q = 0;
  for (std::size_t i = 0; i < e.size(); ++i) sum += e[i], sq += e[i] * e[i], b += bound[i], q += std::pow(e[i], 4);
  const double mean = sum / n, ms = sq / n;
  const double se = std::sqrt(std::max(0.0, ms - mean * mean) / n);
  // One-sided test of E[e^2] <= mean bound: the sample mean square may
  // exceed it by 6 of its own standard errors.
  const double se_ms = std::sqrt(std::max(0.0, q / n - ms * ms) / n);
  const double ms_bound = b / n + 6 * se_ms;
  const bool ok = std::fabs(mean) <= 6 * se + 1e-300 && ms <= ms_bound;
  tally.detail = fmt::format("last case {}: mean {:.3g} (s.e. {:.3g}), mean square {:.3g} <= {:.3g}", case_id, mean, se, ms,
                             ms_bound);
  ElementReport r = case_report(c, tally.name, case_id, path, cs,
                                fmt::format("over {} outputs: mean {:.4g} (limit 6 s.e. = {:.4g}), mean square {:.4g} "
                                            "(limit {:.4g})", e.size(), mean, 6 * se, ms, ms_bound));
  record(acc, c, tally, ok, &r);
}

// All checks of one case. Returns the number of failures it found.
std::int64_t grade_case(const Context& c, Acc& acc, std::int64_t case_id, const std::vector<int>& path,
                        const gen::Case& cs, bool full_stats, bool stats_case = false) {
  const std::int64_t failed_before = acc.failed;
  const Tensor& x = cs.inputs.front();
  std::vector<Tensor> out;
  {
    auto& run = acc.tally("accepts valid input", "run");
    try {
      out = call(c, cs);
      record(acc, c, run, true, nullptr);
    } catch (const std::exception& e) {
      ElementReport r = case_report(c, run.name, case_id, path, cs, fmt::format("a valid call failed: {}", e.what()));
      record(acc, c, run, false, &r);
      return acc.failed - failed_before;
    }
  }
  const engine::Expectation want = engine::expected_output(c.k, cs);
  {
    auto& shape = acc.tally("output shape and dtype", "output");
    const bool ok = out.size() == 1 && out[0].dims() == want.dims && out[0].dtype() == want.dtype && out[0].consistent();
    std::string what = out.size() != 1 ? fmt::format("expected 1 output, got {}", out.size())
                                       : fmt::format("expected {} {}, got {} {} ({} bytes)", dims_to_string(want.dims),
                                                     dtype_name(want.dtype), dims_to_string(out[0].dims()),
                                                     dtype_name(out[0].dtype()), out[0].byte_size());
    ElementReport r = case_report(c, shape.name, case_id, path, cs, what);
    record(acc, c, shape, ok, &r);
    if (!ok) return acc.failed - failed_before;
  }
  const Tensor& y = out[0];
  {
    auto& layout = acc.tally(want.zero_copy ? "layout: zero-copy (shares the input's storage)"
                                            : "layout: fresh output buffer", "layout");
    bool ok = true;
    if (want.zero_copy) ok = y.shares_storage(x);
    else
      for (const Tensor& in : cs.inputs) ok &= !y.shares_storage(in) || y.numel() == 0;
    ElementReport r = case_report(c, layout.name, case_id, path, cs,
                                  want.zero_copy ? "the output was copied although the target only pads leading 1s"
                                                 : "the output shares storage with an input");
    record(acc, c, layout, ok, &r);
  }
  if (full_stats) {
    auto& sc = acc.coverage.shape_classes;
    ++sc[fmt::format("rank{}", x.rank())];
    if (x.numel() == 0) ++sc["empty"];
    if (std::count(x.dims().begin(), x.dims().end(), 1) > 0) ++sc["size1_dim"];
  }
  const bool float_in = is_float(c.t);
  const int fmt_p = float_in ? float_format(c.t).precision : 32;
  std::vector<double> case_e, case_b;  // per-output signed normalized errors and their mean-square bounds
  engine::for_each_job(c.k, cs, [&](const engine::Job& job) {
    const std::uint64_t yb = y.bits_at(job.out);
    const double yv = y.value_at(job.out);
    const Grade g = grade_element(c.k, c.t, job.args, yv, cs.params, job.signaling_nan);
    ++acc.elements;
    acc.escalations += g.escalations;
    if (full_stats) {
      auto& vc = acc.coverage.value_classes;
      for (std::size_t a = 0; a < job.args.size() && a < 2; ++a) {
        const double xv = job.args[a];
        ++vc[classify_value(c.t, xv)];
        if (float_in && std::isfinite(xv) && std::fabs(xv) < std::ldexp(1.0, fmt_p - 1) &&
            std::fabs(xv - std::trunc(xv)) == 0.5)
          ++vc["tie"];
        if (std::isfinite(xv) && xv != 0 && xv == std::trunc(xv)) ++vc["integer"];
      }
      if (g.overflow) ++vc["overflow"];
      ++acc.coverage.outputs;
      if (yv == 0) ++acc.coverage.outputs_zero;
      if (std::isnan(yv)) ++acc.coverage.outputs_nan;
    }
    const std::string check = g.special ? "special:" + g.rule : "accuracy";
    auto& tally = acc.tally(check, g.special ? "special" : "accuracy");
    ElementReport rep;
    // Reports are built only where one is kept: failures, and elements that
    // enter the current top 5 (formatting every element would dominate a sweep).
    const double key = g.normalized ? *g.normalized : g.frac;
    const bool could_be_worst = full_stats && !g.special && std::isfinite(g.frac) &&
                                (acc.worst.size() < 5 || key > worst_key(acc.worst.back()));
    const bool need_report = !g.pass || (g.semantics_ok && !*g.semantics_ok) || could_be_worst;
    if (need_report) rep = element_report(c, check, case_id, path, cs, job, yv, yb, g);
    record(acc, c, tally, g.pass, &rep);
    if (g.semantics_ok) {
      auto& sem = acc.tally("semantics: the reference's rounding steps, bit for bit", "semantics");
      ElementReport srep = rep;
      srep.check = sem.name;
      srep.message = "(semantics) " + rep.message;
      record(acc, c, sem, *g.semantics_ok, &srep);
    }
    if (g.special) {
      ++acc.special;
      return;
    }
    if (g.replayed) ++acc.replayed;
    if (!full_stats || g.replayed) return;
    if (std::isfinite(g.frac)) {
      acc.fracs.push_back(g.frac);
      if (c.opts.dump)
        *c.opts.dump << c.k.name << ' ' << dtype_name(c.t) << ' ' << case_id << ' ' << job.out << ' '
                     << join_hex(c, job) << ' ' << hex_bits(want.dtype, yb) << '\n';
      auto it = std::upper_bound(kEdges.begin(), kEdges.end(), g.frac);
      ++acc.hist[static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - kEdges.begin() - 1))];
      if (g.distance >= 0) {
        acc.max_dist = std::max(acc.max_dist, g.distance);
        acc.cr += g.distance == 0;
        ++acc.n_dist;
      }
      // Error profile over the input domain, for one-input elementwise
      // kernels: slice by the ordered bit pattern of the input.
      if (job.elementwise && job.shown.size() == 1 && float_in) {
        const std::int64_t ord = ordered_bits(c.t, job.shown[0]);
        const double span = std::ldexp(1.0, float_format(c.t).total_bits);
        auto slice = static_cast<std::size_t>(std::clamp((static_cast<double>(ord) / span + 0.5) * 256.0, 0.0, 255.0));
        if (std::isnan(acc.prof_max[slice]) || g.frac > acc.prof_max[slice]) acc.prof_max[slice] = g.frac;
      }
      if (could_be_worst) keep_worst(acc.worst, rep);
    }
    if (g.normalized) {
      acc.max_norm = std::max(acc.max_norm, *g.normalized);
      acc.sum_norm += *g.normalized;
      ++acc.n_norm;
    }
    if (stats_case && g.signed_ratio && std::isfinite(*g.signed_ratio) && !g.replayed && job.args.size() >= 2) {
      // Each addition's rounding error is (model) uniform on +-ulp(s_k)/2,
      // ulp(s_k) <= 2u|s_k|, so its variance is <= u^2 s_k^2 / 3; the errors
      // add, so E[err^2] <= u^2/3 sum_{k>=2} s_k^2 over the partial sums s_k.
      const double u = std::ldexp(1.0, -fmt_p);
      double s_k = 0, sum_sq = 0;
      for (std::size_t a = 0; a < job.args.size(); ++a) {
        s_k += job.args[a];
        if (a > 0) sum_sq += s_k * s_k;
      }
      case_e.push_back(*g.signed_ratio);
      case_b.push_back((u * u / 3) * sum_sq / (g.bound_abs * g.bound_abs));
    }
    if (g.bias_sample && std::isfinite(g.signed_normalized)) {
      acc.bias_sum += g.signed_normalized;
      acc.bias_sq += g.signed_normalized * g.signed_normalized;
      ++acc.bias_n;
    }
  });
  if (stats_case) case_statistics(c, acc, case_id, path, cs, case_e, case_b);
  if (c.k.family == contract::Family::unary) unary_properties(c, acc, case_id, path, cs, y);
  else family_properties(c, acc, case_id, path, cs, y);
  return acc.failed - failed_before;
}

gen::Case sweep_case(const Context& c, std::int64_t sweep) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "sweep",
                                              static_cast<std::uint64_t>(sweep));
  return gen::sweep_case(c.k, c.t, seed, static_cast<int>(sweep));
}

rc::Shrinkable<gen::Case> random_case(const Context& c, std::int64_t id) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "case", static_cast<std::uint64_t>(id));
  return gen::family_case(c.k, c.t)(rc::Random(seed), gen::kMaxSize);
}

// Follow RapidCheck's shrink tree while the case still fails; returns the
// path of shrink indices (replayable with --shrink).
std::vector<int> shrink(const Context& c, std::int64_t id, rc::Shrinkable<gen::Case> sh, gen::Case& smallest) {
  std::vector<int> path;
  int budget = 400;
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    auto seq = sh.shrinks();
    int idx = 0;
    while (auto next = seq.next()) {
      if (--budget <= 0) break;
      Acc scratch;
      if (grade_case(c, scratch, id, path, next->value(), false) > 0) {
        path.push_back(idx);
        sh = *next;
        progress = true;
        break;
      }
      ++idx;
    }
  }
  smallest = sh.value();
  return path;
}

gen::Case replay_path(rc::Shrinkable<gen::Case> sh, const std::vector<int>& path) {
  for (int step : path) {
    auto seq = sh.shrinks();
    int idx = 0;
    bool found = false;
    while (auto next = seq.next()) {
      if (idx++ == step) {
        sh = *next;
        found = true;
        break;
      }
    }
    if (!found) throw UsageError(fmt::format("--shrink: step {} does not exist in this case's shrink tree", step));
  }
  return sh.value();
}

void bad_input_checks(const Context& c, Acc& acc, const gen::Case& valid) {
  for (const auto& rule : c.k.preconditions) {
    auto& tally = acc.tally("bad-input:" + std::string(rule.rule) + " (" + std::string(rule.operand) + ")", "bad-input");
    for (int i = 0; i < c.opts.invalid_per_rule; ++i) {
      auto bad = gen::violate(c.k, rule, valid, static_cast<std::uint64_t>(i));
      if (!bad) continue;
      std::string what;
      bool ok = false;
      try {
        c.backend.run(c.k.name, bad->inputs, bad->params);
        what = "the invalid call was accepted";
      } catch (const KernelError& e) {
        ok = e.rule() == rule.rule && e.operand() == rule.operand && e.kernel() == c.k.name;
        if (!ok)
          what = fmt::format("expected rule '{}' on operand '{}' of kernel '{}', got: {}", rule.rule, rule.operand,
                             c.k.name, e.what());
      } catch (const std::exception& e) {
        what = fmt::format("untyped error instead of KernelError: {}", e.what());
      }
      ElementReport r;
      if (!ok) {
        r.check = tally.name;
        r.repro = base_command(c) + fmt::format(" --seed {} --bad-input", c.opts.seed);
        r.message = fmt::format("{} {}: {} (variant {}): {}\n  inputs: {}\n  replay: {}", c.k.name, dtype_name(c.t),
                                tally.name, i, what,
                                bad->inputs.empty() ? std::string("none")
                                                    : fmt::format("{} {} ({} bytes), params {}",
                                                                  dtype_name(bad->inputs[0].dtype()),
                                                                  dims_to_string(bad->inputs[0].dims()),
                                                                  bad->inputs[0].byte_size(), bad->params.to_string()),
                                r.repro);
      }
      record(acc, c, tally, ok, &r);
    }
    if (tally.passed + tally.failed == 0) {
      ElementReport r;
      r.check = tally.name;
      r.message = fmt::format("{} {}: {}: no invalid input could be generated for this rule", c.k.name, dtype_name(c.t),
                              tally.name);
      record(acc, c, tally, false, &r);
    }
  }
}

void determinism_check(const Context& c, Acc& acc, const gen::Case& cs, std::int64_t id) {
  auto& tally = acc.tally("deterministic: same input, same bits", "determinism");
  bool ok = false;
  std::string what = "the two runs differ";
  try {
    auto a = call(c, cs), b = call(c, cs);
    ok = a.size() == b.size();
    for (std::size_t i = 0; ok && i < a.size(); ++i)
      ok = a[i].byte_size() == b[i].byte_size() &&
           std::equal(a[i].bytes(), a[i].bytes() + a[i].byte_size(), b[i].bytes());
  } catch (const std::exception& e) {
    what = e.what();
  }
  ElementReport r = case_report(c, tally.name, id, {}, cs, what);
  record(acc, c, tally, ok, &r);
}

void bias_check(const Context& c, Acc& acc) {
  const contract::Accuracy* model = c.k.accuracy_for(c.t);
  if (!model || !model->check_bias) return;
  auto& tally = acc.tally("bias: mean signed ulp error is zero", "bias");
  // Under unbiased rounding errors the mean of N signed ulp errors has mean
  // 0 and standard error sd/sqrt(N); |mean| > 6 s.e. has probability below
  // 2e-9 (docs/accuracy-bounds.md, "Statistical check").
  bool ok = false;
  std::string what;
  if (acc.bias_n < 1000) {
    what = fmt::format("only {} samples (needs 1000)", acc.bias_n);
  } else {
    const double n = static_cast<double>(acc.bias_n);
    const double mean = acc.bias_sum / n;
    const double var = std::max(0.0, acc.bias_sq / n - mean * mean);
    const double se = std::sqrt(var / n);
    ok = std::fabs(mean) <= 6 * se;
    what = fmt::format("mean {:.3g}, standard error {:.3g}, z = {:.3g} over {} samples (limit |z| <= 6)", mean, se,
                       se > 0 ? mean / se : 0.0, acc.bias_n);
  }
  tally.detail = what;
  gen::Case none;
  ElementReport r;
  r.check = tally.name;
  r.repro = base_command(c) + fmt::format(" --seed {}", c.opts.seed);
  r.message = fmt::format("{} {}: {}: {}\n  replay: {}", c.k.name, dtype_name(c.t), tally.name, what, r.repro);
  record(acc, c, tally, ok, &r);
}

void finish(const Context& c, Acc& acc, KernelDTypeResult& res) {
  AccuracyStats& s = res.accuracy;
  s.graded = static_cast<std::int64_t>(acc.fracs.size());
  s.special = acc.special;
  s.replayed = acc.replayed;
  s.oracle_escalations = acc.escalations;
  if (!acc.fracs.empty()) {
    s.max_frac_ulp = *std::max_element(acc.fracs.begin(), acc.fracs.end());
    s.mean_frac_ulp = std::accumulate(acc.fracs.begin(), acc.fracs.end(), 0.0) / static_cast<double>(acc.fracs.size());
    auto k = static_cast<std::size_t>(0.99 * static_cast<double>(acc.fracs.size() - 1));
    std::nth_element(acc.fracs.begin(), acc.fracs.begin() + static_cast<std::ptrdiff_t>(k), acc.fracs.end());
    s.p99_frac_ulp = acc.fracs[k];
    s.correctly_rounded_share = static_cast<double>(acc.cr) / static_cast<double>(acc.fracs.size());
    s.not_correctly_rounded = acc.n_dist - acc.cr;
  }
  s.max_distance = acc.max_dist;
  if (acc.n_norm > 0) {
    s.max_normalized = acc.max_norm;
    s.mean_normalized = acc.sum_norm / static_cast<double>(acc.n_norm);
  }
  if (acc.bias_n > 0) {
    const double n = static_cast<double>(acc.bias_n), mean = acc.bias_sum / n;
    s.bias_mean = mean;
    s.bias_stderr = std::sqrt(std::max(0.0, acc.bias_sq / n - mean * mean) / n);
  }
  s.histogram = {kEdges, acc.hist};
  res.elements = acc.elements;
  res.checks = acc.tallies;
  res.failures = acc.failures;
  res.worst = acc.worst;
  res.coverage = acc.coverage;
  const FloatFormat f = float_format(c.t);
  const double span = std::ldexp(1.0, f.total_bits);
  for (int i = 0; i < 256; ++i) {
    // Slice i covers ordered bit patterns [lo, hi); show them as values.
    auto ord_to_value = [&](double o) {
      auto oi = static_cast<std::int64_t>(std::clamp(o, -span / 2 + 1, span / 2 - 1));
      const std::uint64_t sign = 1ull << (f.total_bits - 1);
      const std::uint64_t bits = oi >= 0 ? static_cast<std::uint64_t>(oi) : (sign | static_cast<std::uint64_t>(-oi));
      return bits_to_double(c.t, bits);
    };
    res.profile.x_lo.push_back(ord_to_value((i / 256.0 - 0.5) * span));
    res.profile.x_hi.push_back(ord_to_value(((i + 1) / 256.0 - 0.5) * span));
    res.profile.max_frac_ulp.push_back(acc.prof_max[static_cast<std::size_t>(i)]);
  }
  std::int64_t failed = 0;
  for (const auto& t : acc.tallies) failed += t.failed;
  if (acc.elements == 0 && !c.opts.only_case) {  // (a replayed single case may be empty)
    res.verdict = "fail";  // a loop that graded nothing is a failure
    ElementReport r;
    r.check = "graded something";
    r.message = fmt::format("{} {}: no element was graded", c.k.name, dtype_name(c.t));
    res.failures.push_back(r);
    res.checks.push_back({"graded something", "run", 0, 1, ""});
  } else {
    res.verdict = failed > 0 ? "fail" : "pass";
  }
}

}  // namespace

std::vector<DType> graded_dtypes(const contract::KernelSpec& k) {
  std::vector<DType> v;
  for (const auto& a : k.accuracy) v.push_back(a.dtype);
  return v;
}

KernelDTypeResult run_kernel_dtype(const KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts) {
  const auto start = std::chrono::steady_clock::now();
  Context c{k, t, backend, opts};
  KernelDTypeResult res;
  res.kernel = std::string(k.name);
  res.family = std::string(contract::family_name(k.family));
  res.dtype = t;

  Acc acc;
  const std::int64_t sweeps = opts.exhaustive_halves ? gen::sweep_count(k, t, opts.sweeps) : 0;
  // "exhaustive": every input bit pattern was graded (one-input kernels on a 16-bit dtype).
  res.exhaustive = sweeps > 0 && is_half(t) &&
                   (k.family == contract::Family::unary || k.family == contract::Family::cast);
  const std::int64_t total = sweeps + opts.cases;
  bool shrunk = false;
  std::optional<gen::Case> first_valid;
  for (std::int64_t id = 0; id < total; ++id) {
    if (opts.only_case && *opts.only_case != id) continue;
    if (id < sweeps) {
      gen::Case cs = sweep_case(c, id);
      grade_case(c, acc, id, {}, cs, true);
      if (!first_valid) first_valid = cs;
      continue;
    }
    auto sh = random_case(c, id);
    gen::Case cs = opts.shrink_path.empty() ? sh.value() : replay_path(sh, opts.shrink_path);
    const std::int64_t n_failed = grade_case(c, acc, id, opts.shrink_path, cs, true);
    if (!first_valid || first_valid->inputs.front().numel() == 0) first_valid = cs;
    if (n_failed > 0 && !shrunk && opts.shrink_path.empty()) {
      shrunk = true;
      gen::Case smallest;
      std::vector<int> path = shrink(c, id, sh, smallest);
      Acc scratch;
      grade_case(c, scratch, id, path, smallest, true);
      for (auto f : scratch.failures) {
        f.check = "shrunk: " + f.check;
        f.message = "(shrunk) " + f.message + "\n  shrunk case: " + case_repro(c, id, path);
        acc.failures.push_back(f);
        break;
      }
    }
  }
  res.cases = opts.only_case ? 1 : total;
  if (const auto* m = k.accuracy_for(t); m && m->check_case_statistics && !opts.only_case) {
    const gen::Case sc = gen::statistics_case(k, t, gen::derive_seed(opts.seed, k.name, dtype_name(t), "statistics", 0));
    grade_case(c, acc, -2, {}, sc, true, true);  // case -2: the statistics case (replayed by a plain run)
    ++res.cases;
  }
  if (first_valid) {
    determinism_check(c, acc, *first_valid, opts.only_case.value_or(0));
    bad_input_checks(c, acc, *first_valid);
  }
  bias_check(c, acc);
  finish(c, acc, res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

ElementReport replay_element(const KernelSpec& k, DType t, const Backend& backend,
                             const std::vector<std::uint64_t>& bits, const Params& params, const RunOptions& opts,
                             bool& failed) {
  Context c{k, t, backend, opts};
  if (bits.size() != k.inputs.size() || (k.family != contract::Family::unary && k.family != contract::Family::cast &&
                                         k.family != contract::Family::binary && k.family != contract::Family::broadcast))
    throw UsageError(fmt::format("--input replays one element of an elementwise kernel: {} needs {} bit pattern(s) "
                                 "separated by commas; use --case for {}",
                                 k.name, k.inputs.size(), k.name));
  gen::Case cs;
  cs.params = params;
  for (std::uint64_t b : bits) {
    Tensor x(t, {1});
    x.set_bits(0, b);
    cs.inputs.push_back(x);
  }
  auto out = call(c, cs);
  if (out.size() != 1 || out[0].numel() != 1) throw UsageError("the backend returned no single output element");
  ElementReport r;
  engine::for_each_job(k, cs, [&](const engine::Job& job) {
    const double yv = out[0].value_at(0);
    const Grade g = grade_element(k, t, job.args, yv, params, job.signaling_nan);
    failed = !g.pass || (g.semantics_ok && !*g.semantics_ok);
    r = element_report(c, g.special ? "special:" + g.rule : "accuracy", -1, {}, cs, job, yv, out[0].bits_at(0), g);
  });
  return r;
}

}  // namespace kc::engine
