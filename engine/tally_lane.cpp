// The bulk lane's side of the tallies (engine/case_lane.cpp): which passed
// fast-path elements of a block could still be shown (block_candidates,
// lane_gate), and the batches of passes added at once.
#include <algorithm>
#include <array>
#include <cmath>

#include "engine/failure_text.h"
#include "engine/tally.h"

namespace kc::engine {

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
  LaneGate g{.worst_lo = worst.size() < kWorstKept ? -INFINITY : worst_key(worst.back()),
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
  tally("accuracy", CheckKind::accuracy);
  if (b.replays) tally(kSemanticsCheck, CheckKind::semantics, Profile::reference);
}

void Tallies::add_passes(PassBatch& b) {
  if (b.elements == 0) return;
  name_passes(b);
  tally("accuracy", CheckKind::accuracy).passed += b.elements;
  if (b.replays) tally(kSemanticsCheck, CheckKind::semantics, Profile::reference).passed += b.elements;
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

}  // namespace kc::engine
