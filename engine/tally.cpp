#include "engine/tally.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "engine/failure_text.h"

namespace kc::engine {

namespace {

// Histogram edges per metric (last bin open). Fractional ulp: fine around
// 1/2, where correct rounding sits; distance: each small distance its own
// bin; normalized: the bound 1 is an edge.
// (kFracEdgeList: engine/grading.h, where the fast path keeps clear of its edges.)
const std::vector<double> kFracEdges(std::begin(kFracEdgeList), std::end(kFracEdgeList));
constexpr double kDistEdgeList[] = {0, 1, 2, 3, 4, 5, 8, 16, 64, 256, 4096, 1048576, INFINITY};
const std::vector<double> kDistEdges(std::begin(kDistEdgeList), std::end(kDistEdgeList));
static_assert(std::size(kDistEdgeList) == std::tuple_size_v<decltype(Tallies::PassBatch::dist_bins)> + 1);
static_assert(std::size(kFracEdgeList) == std::tuple_size_v<decltype(Tallies::PassBatch::frac_bins)> + 1);
const std::vector<double> kNormEdges{0, 0.125, 0.25, 0.5, 0.75, 1, 1.25, 2, 4, 16, 256, 65536, INFINITY};


Histogram empty_histogram(const char* metric, const std::vector<double>& edges) {
  return {metric, edges, std::vector<std::int64_t>(edges.size() - 1, 0), std::vector<std::int64_t>(edges.size() - 1, 0)};
}

void add_to(Histogram& h, double v, bool failing) {
  if (std::isnan(v)) return;
  const std::size_t i = v < h.edges.front() ? 0 : bin_of(h.edges, v);
  ++h.counts[i];
  if (failing) ++h.failing[i];
}

}  // namespace
Tallies::Tallies()
    : frac_hist(empty_histogram("fractional ulp", kFracEdges)),
      dist_hist(empty_histogram("integer distance", kDistEdges)),
      norm_hist(empty_histogram("normalized error", kNormEdges)) {}

CheckTally& Tallies::tally(const std::string& name, CheckKind kind, Profile profile) {
  for (auto& t : tallies)
    if (t.name == name) return t;
  tallies.push_back({.name = name, .kind = kind, .profile = profile});
  return tallies.back();
}

void Tallies::record(const Context& c, CheckTally& t, bool ok, const std::string& key,
                     const std::function<ElementReport()>& make) {
  if (ok) {
    ++t.passed;
    return;
  }
  // A conformance run does not fail on the reference's own choices: it
  // counts them and keeps examples, listed as "differs from the reference".
  const bool differs_only = c.opts.profile == Profile::conformance && t.profile == Profile::reference;
  if (differs_only) ++t.differs;
  else ++t.failed, ++failed;
  if (!make || !keeps(c, t) || !kept_.insert({t.name, key}).second) return;
  (differs_only ? differences : failures).push_back(make());
  ++t.kept;
}

bool Tallies::keeps(const Context& c, const CheckTally& t) const {
  return t.kept < static_cast<std::int64_t>(c.opts.max_failures_per_check);
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

void Tallies::add_coverage(const Context& c, std::span<const double> args, const Figures& g, double y) {  // (the first two)
  const bool float_in = is_float(c.t);
  const int p = float_in ? float_format(c.t).precision : 32;
  auto& vc = value_class_counts;
  for (std::size_t a = 0; a < args.size() && a < 2; ++a) {
    const double xv = args[a];
    ++vc[classify_value(c.t, xv)];
    if (float_in && std::isfinite(xv) && std::fabs(xv) < pow2(p - 1) && std::fabs(xv - std::trunc(xv)) == 0.5)
      ++vc[CoverageClass::tie];
    if (std::isfinite(xv) && xv != 0 && xv == std::trunc(xv)) ++vc[CoverageClass::integer];
  }
  if (g.overflow) ++vc[CoverageClass::overflow];
  const DType t_out = c.out_dtype();
  if (is_float(t_out)) ++result_class_counts[classify_result(t_out, g.rn)];
  ++coverage.outputs;
  if (y == 0) ++coverage.outputs_zero;
  if (std::isnan(y)) ++coverage.outputs_nan;
}

void Tallies::add_error(const Context& c, const Figures& g, bool profiled, std::uint64_t x_bits, double x) {
  const bool failing = !g.pass;
  const double frac = on_grid(g.frac);
  if (std::isfinite(g.frac)) fracs.push(g.frac, frac);
  if (!std::isnan(g.abs_err)) max_abs_err = std::max(max_abs_err, g.abs_err);
  if (!std::isnan(g.rel_err)) max_rel_err = std::max(max_rel_err, g.rel_err);
  add_to(frac_hist, g.frac, failing);
  if (g.distance >= 0) {
    max_dist = std::max(max_dist, g.distance);
    cr += g.distance == 0;
    ++n_dist;
    add_to(dist_hist, static_cast<double>(g.distance), failing);
  }
  if (g.normalized) add_to(norm_hist, *g.normalized, failing);
  if (!profiled) return;
  const double distance = g.distance >= 0 ? static_cast<double>(g.distance) : NAN;
  if (profile_slot) error_profile.fill(*profile_slot, frac, distance, g.normalized.value_or(NAN), failing);
  else error_profile.add(ordered_bits(c.t, x_bits), x, frac, distance, g.normalized.value_or(NAN), failing);
}


void Tallies::note_extremes(const Figures& g, const std::function<ElementReport()>& make, std::optional<Place> at) {
  const bool dist = g.distance >= 0 && (!at_max_dist || beats(g.distance, max_dist, at, *at_max_dist));
  const bool rel = !std::isnan(g.rel_err) && (!at_max_rel || beats(g.rel_err, max_rel_err, at, *at_max_rel));
  if (!dist && !rel) return;
  const ElementReport r = make();  // formatted once, and only when a maximum rises
  if (dist) at_max_dist = r;
  if (rel) at_max_rel = r;
}

void Tallies::add_normalized(const Figures& g) {
  if (g.normalized) {
    max_norm = std::max(max_norm, *g.normalized);
    sum_norm += *g.normalized;
    ++n_norm;
  }
  if (g.bias_sample && std::isfinite(g.signed_normalized)) {
    const double q = on_grid(g.signed_normalized);
    bias_sum.add(q);
    bias_sq.add_square(q);
    ++bias_n;
  }
}

void Tallies::add_failure(const Figures& g) {
  if (g.failure == Failure::none) return;
  auto& ft = by_failure[static_cast<std::size_t>(g.failure)];
  ++ft.count;
  double figure = g.frac;
  if (g.failure == Failure::distance_bound || g.failure == Failure::not_correctly_rounded ||
      g.failure == Failure::replay_mismatch)
    figure = static_cast<double>(g.distance);
  else if (g.failure == Failure::normalized_bound)
    figure = g.normalized.value_or(INFINITY);
  if (!std::isnan(figure)) ft.worst = std::max(ft.worst, figure);
  max_failing_frac = std::max(max_failing_frac, std::isnan(g.frac) ? INFINITY : g.frac);
  // (normalized: a failure without a finite normalized error, a wrong NaN or infinity, is infinitely far)
  failing_normalized = std::max(failing_normalized, g.normalized && !std::isnan(*g.normalized) ? *g.normalized : INFINITY);
  // A wrong NaN, infinity or special value has no finite error in any metric.
  if (std::isnan(g.abs_err)) max_abs_err = max_rel_err = INFINITY;
}

bool Tallies::could_be_worst(const Figures& g, std::optional<Place> at) const {
  const double key = g.normalized ? *g.normalized : g.frac;
  return !g.special && std::isfinite(g.frac) && (worst.size() < kWorstKept || beats(key, worst_key(worst.back()), at, worst.back()));
}

bool Tallies::needs_exact(const Figures& g, std::optional<Place> at) const {
  if (!g.approximate) return false;
  Figures hi = g;
  hi.frac = g.frac + g.uncertainty;
  if (could_be_worst(hi, at)) return true;
  if (!at_max_dist || beats(g.distance, max_dist, at, *at_max_dist)) return true;
  if (!std::isnan(g.rel_err) && (!at_max_rel || beats(g.rel_err + g.rel_uncertainty, max_rel_err, at, *at_max_rel)))
    return true;
  return g.abs_err + g.abs_uncertainty > max_abs_err;
}

void Tallies::keep_worst(const ElementReport& r) { engine::keep_worst(worst, r, Place{r.case_index, r.element}); }

}  // namespace kc::engine
