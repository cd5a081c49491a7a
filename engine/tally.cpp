#include "engine/tally.h"

#include "engine/declared.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "engine/failure_text.h"
#include "engine/findings.h"

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

double worst_key(const ElementReport& e) { return e.normalized ? *e.normalized : e.frac_ulp; }

Histogram empty_histogram(const char* metric, const std::vector<double>& edges) {
  return {metric, edges, std::vector<std::int64_t>(edges.size() - 1, 0), std::vector<std::int64_t>(edges.size() - 1, 0)};
}

void add_to(Histogram& h, double v, bool failing) {
  if (std::isnan(v)) return;
  const std::size_t i = v < h.edges.front() ? 0 : bin_of(h.edges, v);
  ++h.counts[i];
  if (failing) ++h.failing[i];
}

// The findings of the accuracy and special-value failures, in the order a
// kernel author should read them: wrong NaNs and infinities first (their
// error is infinite), then the bounds.
void accuracy_findings(const Context& c, const Tallies& acc, std::vector<Finding>& out) {
  const contract::Accuracy* model = c.k.accuracy_for(c.t);
  auto add = [&](Failure f, const char* metric, double bound, std::string bound_text) {
    const auto ft = acc.by_failure[static_cast<std::size_t>(f)];
    if (ft.count == 0) return;
    const bool special = f == Failure::special_rule, counted = std::string_view(metric) == "elements";
    const std::string name(failure_name(f));
    out.push_back({special ? "special" : "accuracy", special ? "special" : "accuracy", metric,
                   counted ? static_cast<double>(ft.count) : ft.worst, bound, ft.count,
                   accuracy_finding_text(name, ft.count, ft.worst, bound_text), name, bound_text});
  };
  for (Failure f : {Failure::special_rule, Failure::spurious_inf, Failure::missed_overflow, Failure::nan_result,
                    Failure::missing_nan, Failure::zero_sign, Failure::wrong_integer})
    add(f, "elements", 0, "0");
  add(Failure::replay_mismatch, "integer distance", 0, "0");
  add(Failure::not_exact, "fractional ulp", 0, "0");
  add(Failure::not_correctly_rounded, "integer distance", 0, "0");
  if (model) {
    add(Failure::frac_bound, "fractional ulp", model->max_frac_ulp,
        model->param_bound ? "its bound" : figure_text(model->max_frac_ulp));
    add(Failure::distance_bound, "integer distance", static_cast<double>(model->max_distance),
        fmt::format("{}", model->max_distance));
  }
  add(Failure::normalized_bound, "normalized error", 1, "1");
}

PassFigures pass_figures(const Context& c, const AccuracyStats& s) {
  PassFigures p{.graded = s.graded, .special = s.special, .max_frac_ulp = s.max_frac_ulp,
                .max_distance = s.max_distance, .max_normalized = s.max_normalized};
  if (const contract::Accuracy* m = c.k.accuracy_for(c.t)) {
    p.kind = std::string(contract::accuracy_kind_name(m->kind));
    p.frac_bound_text = m->param_bound ? "its bound" : figure_text(m->max_frac_ulp);
    p.distance_bound = m->max_distance;
  }
  return p;
}

// The order-preserving key of a double: its bits, the sign flipped for
// positive values and every bit for negative ones (then unsigned order is
// numeric order).
std::uint64_t order_key(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b >> 63 ? ~b : b | (std::uint64_t{1} << 63);
}

}  // namespace

// (engine/tally.h) The element of rank floor(0.99 (n - 1)) of v (no NaN), as nth_element
// over a copy finds it, without copying or partitioning all of v (a
// sweep's block holds four million errors): a radix selection on the
// values' order keys, 16 bits a pass. Each pass counts the values that
// share the prefix found so far by their next 16 bits and keeps the bucket
// holding that rank; once it holds few values (or the keys are used up)
// they are gathered and partitioned. (One pass was not enough: in e^x's
// underflow region nearly every error shares its top 16 bits, and the
// gathered bucket was the whole block.)
double quantile_99(const std::vector<double>& v) {
  const auto k = static_cast<std::size_t>(0.99 * static_cast<double>(v.size() - 1));
  static thread_local std::vector<std::size_t> counts;
  static thread_local std::vector<double> bucket;
  constexpr std::size_t kGatherBelow = std::size_t{1} << 16;
  std::uint64_t prefix = 0;  // the selected keys' leading `bits` bits
  int bits = 0;
  const auto selected = [&](std::uint64_t key) { return bits == 0 || key >> (64 - bits) == prefix; };
  std::size_t below = 0, in_bucket = v.size();  // values under the bucket, and in it
  while (in_bucket > kGatherBelow && bits < 64) {
    counts.assign(std::size_t{1} << 16, 0);
    const int shift = 48 - bits;
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;  // the selected keys' least and greatest
    double at_lo = 0;
    for (const double x : v) {
      const std::uint64_t key = order_key(x);
      if (!selected(key)) continue;
      ++counts[(key >> shift) & 0xffff];
      if (key < lo) lo = key, at_lo = x;
      hi = std::max(hi, key);
    }
    // One value throughout (a sweep's underflow region: every error 0): it is the one.
    if (lo == hi) return at_lo;
    std::size_t b = 0;
    while (below + counts[b] <= k) below += counts[b++];
    prefix = (prefix << 16) | b;
    bits += 16;
    in_bucket = counts[b];
  }
  bucket.clear();
  for (const double x : v)
    if (selected(order_key(x))) bucket.push_back(x);
  const auto at = static_cast<std::ptrdiff_t>(k - below);
  std::nth_element(bucket.begin(), bucket.begin() + at, bucket.end());
  return bucket[static_cast<std::size_t>(at)];
}

Tallies::Tallies()
    : frac_hist(empty_histogram("fractional ulp", kFracEdges)),
      dist_hist(empty_histogram("integer distance", kDistEdges)),
      norm_hist(empty_histogram("normalized error", kNormEdges)) {}

CheckTally& Tallies::tally(const std::string& name, const std::string& kind, Profile profile) {
  for (auto& t : tallies)
    if (t.name == name) return t;
  tallies.push_back({.name = name, .kind = kind, .profile = std::string(profile_name(profile))});
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
  const bool differs_only = c.opts.profile == Profile::conformance && t.profile == profile_name(Profile::reference);
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

void Tallies::add_coverage(const Context& c, std::span<const double> args, const Figures& g, double y) {
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
  const DType t_out = c.k.out_dtype(c.t);
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

namespace {
// Whether a figure v of the element at `at` displaces the figure `kept`
// of the element reported in r: it is larger, or equal and the element
// comes before r's in the same case (an earlier element wins a tie,
// whatever order the two are recorded in).
// (A distance compared as an integer: past 2^53 a double would merge two.)
template <class V>
bool beats(V v, V kept, const std::optional<Tallies::Place>& at, const ElementReport& r) {
  return v > kept || (v == kept && at && at->case_index == r.case_index && at->element < r.element);
}
}  // namespace

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
  // A wrong NaN, infinity or special value has no finite error in any metric.
  if (std::isnan(g.abs_err)) max_abs_err = max_rel_err = INFINITY;
}

bool Tallies::could_be_worst(const Figures& g, std::optional<Place> at) const {
  const double key = g.normalized ? *g.normalized : g.frac;
  return !g.special && std::isfinite(g.frac) && (worst.size() < 5 || beats(key, worst_key(worst.back()), at, worst.back()));
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

// A passed approximate element j can be left ungraded by MPFR when, in its
// own block (any set of the run's elements will do), five others are
// certainly worse (their fractional error minus its uncertainty exceeds
// j's plus its own: the final five worst are the five largest, earliest
// first on a tie, so j is never among them) and
// another certainly has a larger relative and absolute error and distance
// (so j neither sets a maximum nor is the element shown at one; distances
// are exact). The rest are candidates, graded by the general path in flat
// order, where needs_exact regrades those that matter. Over a block whose
// errors grow with x (e^x near 0: every element a new maximum, each
// regraded by MPFR one after another) this leaves a handful.
void Tallies::block_candidates(std::span<const LaneFigures> g, std::span<const char> passed,
                              std::vector<char>& candidate, const LaneGate& gate) const {
  const std::size_t n = g.size();
  candidate.resize(n);
  std::array<double, 5> top{};  // the five largest frac - uncertainty, descending
  std::size_t in_top = 0;
  double rel_lo = -INFINITY, abs_lo = -INFINITY;
  std::int64_t dist_max = -1;
  // The five largest form the same multiset in any order: read the block
  // from its larger end (most blocks' errors grow or shrink along the
  // input), so that few enter the list only to be pushed out again.
  const bool backward = n > 1 && g[n - 1].frac - g[n - 1].uncertainty > g[0].frac - g[0].uncertainty;
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t i = backward ? n - 1 - j : j;
    if (!passed[i]) continue;
    const LaneFigures& f = g[i];
    if (std::isfinite(f.frac)) {
      const double lo = f.frac - f.uncertainty;
      if (in_top < top.size() || lo > top.back()) {
        std::size_t k = std::min(in_top, top.size() - 1);
        while (k > 0 && top[k - 1] < lo) top[k] = top[k - 1], --k;
        top[k] = lo;
        in_top = std::min(in_top + 1, top.size());
      }
    }
    if (!std::isnan(f.rel_err)) rel_lo = std::max(rel_lo, f.rel_err - f.rel_uncertainty);
    if (!std::isnan(f.abs_err)) abs_lo = std::max(abs_lo, f.abs_err - f.abs_uncertainty);
    dist_max = std::max(dist_max, f.distance);
  }
  const double worst_lo = in_top < top.size() ? -INFINITY : top.back();
  // A figure known exactly (no uncertainty) that only equals the bound
  // cannot displace an earlier equal one (a maximum or a worst case is
  // replaced only by a strictly larger figure), so of those only the
  // first ties are candidates: five for the worst cases (the list may
  // still have room for all five), one for a maximum. An exact absolute
  // error needs no regrade at all (it enters the maximum as it is, and no
  // element is shown at it).
  auto above = [](double v, double unc, double bound, int& ties_left) {
    if (v + unc > bound || (unc > 0 && v + unc >= bound)) return true;
    if (v + unc < bound || ties_left == 0) return false;
    --ties_left;
    return true;
  };
  int worst_ties = static_cast<int>(top.size()), rel_ties = 1, dist_ties = 1;
  for (std::size_t i = 0; i < n; ++i) {
    candidate[i] = 0;
    if (!passed[i]) continue;
    const LaneFigures& f = g[i];
    bool c = !f.approximate;
    c |= std::isfinite(f.frac) && above(f.frac, f.uncertainty, worst_lo, worst_ties);
    c |= !std::isnan(f.rel_err) && above(f.rel_err, f.rel_uncertainty, rel_lo, rel_ties);
    c |= !std::isnan(f.abs_err) && f.abs_uncertainty > 0 && f.abs_err + f.abs_uncertainty >= abs_lo;
    c |= f.distance >= 0 && above(static_cast<double>(f.distance), 0, static_cast<double>(dist_max), dist_ties);
    // (A candidate of the block that the gate does not let through needs no regrade either.)
    candidate[i] = c && gate.lets_through(f);
  }
}

Tallies::LaneGate Tallies::lane_gate(bool ties) const {
  // (As needs_exact: no worst case or maximum yet lets every figure through.)
  LaneGate g{.worst_lo = worst.size() < 5 ? -INFINITY : worst_key(worst.back()),
             .max_rel = at_max_rel ? max_rel_err : -INFINITY,
             .max_abs = max_abs_err,
             .max_dist = at_max_dist ? max_dist : std::numeric_limits<std::int64_t>::min()};
  if (ties) {  // each bound lowered to the figure below it: lets_through's > becomes >=
    g.worst_lo = std::nextafter(g.worst_lo, -INFINITY);
    g.max_rel = std::nextafter(g.max_rel, -INFINITY);
    if (at_max_dist) --g.max_dist;
  }
  return g;
}

Tallies::PassBatch::PassBatch(DType type, bool with_replay)
    : t(type),
      replays(with_replay),
      min_normal(pow2(float_format(type).emin)),
      tie_limit(pow2(float_format(type).precision - 1)),
      near_overflow(pow2(float_format(type).emax)),
      sign_mask(std::uint64_t{1} << (float_format(type).total_bits - 1)) {}

void Tallies::name_passes(const PassBatch& b) {
  if (b.elements == 0) return;
  // (Created in the order the general path meets them: accuracy first.)
  tally("accuracy", "accuracy");
  if (b.replays) tally(kSemanticsCheck, "semantics", Profile::reference);
}

void Tallies::add_passes(PassBatch& b) {
  if (b.elements == 0) return;
  name_passes(b);
  tally("accuracy", "accuracy").passed += b.elements;
  if (b.replays) tally(kSemanticsCheck, "semantics", Profile::reference).passed += b.elements;
  elements += b.elements;
  for (const auto w : kCoverageClasses.all()) value_class_counts[w] += b.value_classes[w];
  for (const auto rc : contract::kResultClasses) result_class_counts[rc] += b.result_classes[rc];
  coverage.outputs += b.outputs;
  coverage.outputs_zero += b.outputs_zero;
  for (std::size_t i = 0; i < frac_hist.counts.size(); ++i) frac_hist.counts[i] += b.frac_bins[i];
  for (std::size_t i = 0; i < dist_hist.counts.size(); ++i) dist_hist.counts[i] += b.dist_bins[i];
  max_abs_err = std::max(max_abs_err, b.max_abs);
  max_rel_err = std::max(max_rel_err, b.max_rel);
  max_dist = std::max(max_dist, b.max_dist);
  cr += b.cr;
  n_dist += b.n_dist;
  bias_n += b.bias_n;
  b = PassBatch(b.t, b.replays);
}

void Tallies::keep_worst(const ElementReport& r) {
  // Ahead of every smaller key, and of an equal one of a later element of
  // its case (note_extremes); behind the others (those recorded earlier).
  const double key = worst_key(r);
  const Place place{r.case_index, r.element};
  auto at = worst.begin();
  while (at != worst.end() && !beats(key, worst_key(*at), place, *at)) ++at;
  worst.insert(at, r);
  if (worst.size() > 5) worst.pop_back();
}

void Tallies::finish(const Context& c, KernelDTypeResult& res) const {
  AccuracyStats& s = res.accuracy;
  s.graded = static_cast<std::int64_t>(fracs.values.size());
  s.special = special;
  s.replayed = replayed;
  s.oracle_escalations = escalations;
  if (!fracs.values.empty()) {
    const auto n = static_cast<double>(fracs.values.size());
    s.max_frac_ulp = fracs.max;
    s.mean_frac_ulp = fracs.sum.value(kGridBits) / n;
    s.p99_frac_ulp = std::min(quantile_99(fracs.values), fracs.max);  // (on the grid, and never above the maximum)
    s.correctly_rounded_share = static_cast<double>(cr) / n;
    s.not_correctly_rounded = n_dist - cr;
  }
  // A failure is never dropped from the maximum: a wrong NaN, infinity or
  // special value has an infinite error and makes the maximum infinite.
  s.max_frac_ulp = std::max(s.max_frac_ulp, max_failing_frac);
  s.max_distance = max_dist;
  s.max_absolute = max_abs_err;
  s.max_relative = max_rel_err;
  s.at_max_distance = at_max_dist;
  s.at_max_relative = at_max_rel;
  if (n_norm > 0) {
    s.max_normalized = max_norm;
    s.mean_normalized = sum_norm / static_cast<double>(n_norm);
  }
  if (bias_n > 0) {
    const double n = static_cast<double>(bias_n), mean = bias_sum.value(kGridBits) / n;
    s.bias_mean = mean;
    s.bias_stderr = std::sqrt(std::max(0.0, bias_sq.value(2 * kGridBits) / n - mean * mean) / n);
    s.bias_samples = bias_n;
  }
  s.histogram = frac_hist;
  if (n_dist > 0) s.distance_histogram = dist_hist;
  if (n_norm > 0) s.normalized_histogram = norm_hist;
  res.elements = elements;
  res.checks.assign(tallies.begin(), tallies.end());
  res.failures = failures;
  res.differences = differences;
  res.printed = printed;
  for (const auto& t : tallies) res.differs += t.differs;
  res.worst = worst;
  res.coverage = coverage;
  for (const auto w : kCoverageClasses.all())
    if (value_class_counts[w]) res.coverage.value_classes[std::string(kCoverageClasses.name(w))] += value_class_counts[w];
  for (const auto rc : contract::kResultClasses)
    if (const auto n = result_class_counts[rc])
      res.coverage.result_classes[std::string(contract::result_class_name(rc))] += n;
  res.profile = error_profile.finish();
  accuracy_findings(c, *this, res.findings);
  for (const auto& t : tallies)
    if (t.failed > 0 && t.kind != "accuracy" && t.kind != "special") res.findings.push_back(check_finding(t));
  judge_claim(c, max_abs_err, max_rel_err, res);
  std::int64_t n_failed = 0;
  for (const auto& t : res.checks) n_failed += t.failed;
  if (res.interrupted) {
    res.verdict = n_failed > 0 ? "fail" : "not_graded";
  } else if (elements == 0 && !c.opts.only_case) {  // (a replayed single case may be empty)
    res.verdict = "fail";  // a loop that graded nothing is a failure
    ElementReport r;
    r.check = "graded something";
    r.message = fmt::format("{} {}: no element was graded", c.k.name, dtype_name(c.t));
    res.failures.push_back(r);
    res.checks.push_back({.name = "graded something", .kind = "run", .failed = 1});
    res.findings.push_back({"graded something", "run", "runs that graded nothing", 1, 0, 1, "no element was graded"});
  } else {
    res.verdict = n_failed > 0 ? "fail" : "pass";
  }
  judge_expected_failure(c, res);
  res.headline = res.findings.empty() ? pass_headline(pass_figures(c, s)) : res.findings.front().text;
}

}  // namespace kc::engine
