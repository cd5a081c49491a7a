// The bulk lane of a one-input elementwise case: the elements graded
// straight from the tensors by the fast path, a block of them at a time
// (blocks of 4096 keep the figures in cache); in flat order, those it
// passed are tallied unless their figures could be shown (a worst case,
// a maximum: Tallies::block_candidates, decided over the whole block),
// and the rest go to the general path. The candidates are set aside
// (their error-profile points reserved in input order) and decided
// again over a stretch of blocks (the case, or until 2^16 are set
// aside): only those still candidates then go to the general path, the
// others are tallied. Errors that grow along the input (e^x near 0: each
// block's largest are new maxima, until the next block's) are then
// regraded by MPFR per stretch, not per block: over the 2^26 inputs of
// e^x in [2^-31, 2^-23], 5386 elements instead of 86026, and the whole
// f32 sweep took 98-108 s instead of 125-135 s (closing note of #10).
// The stretch's passes are added to the tallies at its end, after the
// candidates are graded: every pass lies below a candidate of its own
// block (or the figures of the gate), so no maximum the passes set
// lacks its element. Added first, a pass at the distance of the
// block's first element at it would raise the maximum distance, and
// that element, graded later, would not be shown at it.
#include <algorithm>
#include <span>
#include <vector>

#include "engine/case_grader.h"

namespace kc::engine {

namespace {

constexpr std::int64_t kBlock = 4096;
constexpr std::size_t kStretch = std::size_t{1} << 16;

// The lane's buffers, reused across cases (the engine grades one case at a time).
struct LaneBuffers {
  std::vector<LaneFigures> figures = std::vector<LaneFigures>(kBlock), pending_figures;
  std::vector<char> passed, candidate, all_passed, still;
  std::vector<Tallies::PendingLane> pending;  // set aside (their figures in pending_figures), in flat order
};

}  // namespace

bool CaseGrader::grade_lane() {
  const contract::Accuracy* model = lane_ ? fast_model(*c_) : nullptr;
  drivers::Element e;
  const gen::Case& cs = v_.cs;
  const std::int64_t numel = cs.inputs.size() == 1 ? cs.inputs[0].numel() : 0;
  if (!model || numel == 0 || !c_->driver.element_at(c_->k, cs, 0, e)) return false;
  const ElementReader x(cs.inputs[0]), yr(v_.y);
  static LaneBuffers b;
  b.pending.clear();
  b.pending_figures.clear();
  Tallies::PassBatch batch(c_->t, c_->k.math.has_replay());
  auto general = [&](std::int64_t i) {
    acc_.name_passes(batch);
    c_->driver.element_at(c_->k, cs, i, e);
    element(e);
  };
  auto end_stretch = [&] {
    if (!b.pending.empty()) {
      b.all_passed.assign(b.pending.size(), 1);
      acc_.block_candidates(b.pending_figures, b.all_passed, b.still, acc_.lane_gate(/*ties=*/true));
      for (std::size_t j = 0; j < b.pending.size(); ++j) {
        if (!b.still[j]) continue;
        // (its profile point's slot, for add_error; reset however general() ends)
        struct Slot {
          Tallies& acc;
          ~Slot() { acc.profile_slot.reset(); }
        } slot{acc_};
        if (full_stats_) acc_.profile_slot = b.pending[j].slot;
        general(b.pending[j].i);
      }
      acc_.add_pass_list(batch, b.pending_figures.data(), b.pending.data(), b.still.data(), b.pending.size(), x, yr,
                         full_stats_);
      b.pending.clear();
      b.pending_figures.clear();
    }
    acc_.add_passes(batch);
  };
  for (std::int64_t lo = 0; lo < numel; lo += kBlock) {
    const std::int64_t hi = std::min(numel, lo + kBlock);
    const auto n = static_cast<std::size_t>(hi - lo);
    b.passed.assign(n, 0);
    const Tallies::LaneGate gate = acc_.lane_gate();
    bool through = false;
    grade_fast_block(*c_, *model, x, yr, lo, n, cs.params, b.figures.data(), b.passed.data());
    for (std::size_t k = 0; k < n && !through; ++k) through = b.passed[k] && gate.lets_through(b.figures[k]);
    if (through) {
      acc_.block_candidates(std::span<const LaneFigures>(b.figures.data(), n), b.passed, b.candidate, gate);
    } else {
      b.candidate.assign(n, 0);
    }
    for (std::size_t k = 0; k < n; ++k) {
      k = acc_.add_pass_run(batch, b.figures.data(), b.passed.data(), b.candidate.data(), x, yr, lo, k, n, full_stats_);
      if (k == n) break;
      const std::int64_t i = lo + static_cast<std::int64_t>(k);
      if (!b.passed[k]) {
        general(i);
        continue;
      }
      const std::size_t slot = full_stats_ ? acc_.error_profile.reserve(ordered_bits(c_->t, x.bits(i)), x.value(i)) : 0;
      b.pending.push_back({i, slot});
      b.pending_figures.push_back(b.figures[k]);
    }
    if (b.pending.size() >= kStretch) end_stretch();
  }
  end_stretch();
  return true;
}

}  // namespace kc::engine
