// The evaluations of attention_naive, attention_flash and attention_paged
// (oracles/oracle.h).
// Rows with a non-finite input, a non-finite score or no admissible key
// are the reference's special cases (an all-+0 row, a dropped tile, the
// zero-weight skip): graded against the kernel's replay, with the other
// algorithm's answer accepted as well. Otherwise the exact value is
//   z = sum_j e^(s_j - M) v[j, d] / sum_j e^(s_j - M)
// over the admissible keys, s_j = (q . k_j) S, then tanh(s / c) c with a
// softcap, then + slope (kj - qi) with ALiBi (S and c the f32 parameters;
// M any shift: the replay's maximum), and the bound is the last stage's
// error of the kernel's steps replayed on Stage values, the shift and the
// tile maxima being the replay's own (exact constants of T: softmax does
// not depend on them).
//
// The replays come first (the exact functions grade the special rows
// against them): the element's query row redone in T, scores then the
// naive or the tiled online softmax, and the output column d
// (oracles/attention_layout.h); attention_paged_naive's over its context.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "oracles/attention_layout.h"
#include "oracles/attention_scores.h"
#include "oracles/exact.h"
#include "oracles/oracle.h"
#include "oracles/replay.h"
#include "oracles/rounding.h"
#include "oracles/row_support.h"

KC_MATH_OF(Row, attention_naive)
KC_MATH_OF(Row, attention_flash)
KC_MATH_OF(Row, attention_paged)

namespace kc::oracle::replay {

using attention::exp_t;
using attention::Layout;
using attention::Mask;
using attention::scores_t;

// A query row's scores in T, kept for the row's next column (its D
// elements replay the same scores: each computing them again was most of
// a long row's grading).
const std::vector<double>& row_scores(const InT& a, const Row& in, const Layout& l) {
  static thread_local rows::RowKey key;
  static thread_local std::vector<double> s;
  if (!key.same_or_set(in, 0)) s = scores_t(a, l, Mask::of(*in.ctx.params, in.ctx.dtype));
  return s;
}

double attention_naive(const Row& in) {
  const InT a{in.ctx.dtype};
  const Layout l = Layout::of(in.a);
  const std::vector<double>& s = row_scores(a, in, l);
  double m = -INFINITY;
  for (double x : s)
    if (x > m) m = x;
  if (!std::isfinite(m)) return 0.0;
  std::vector<double> e(s.size());
  double sum = 0.0;
  for (std::size_t j = 0; j < s.size(); ++j) sum = a.add(sum, e[j] = std::isfinite(s[j]) ? exp_t(a, a.sub(s[j], m)) : 0.0);
  const double inv = a.div(1.0, sum);
  double out = 0.0;
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double p = a.mul(e[j], inv);
    if (p != 0) out = a.add(out, a.mul(p, l.v[j * static_cast<std::size_t>(l.d) + in.i]));
  }
  return out;
}

double attention_flash(const Row& in) {
  const InT a{in.ctx.dtype};
  const Layout l = Layout::of(in.a);
  const std::vector<double>& s = row_scores(a, in, l);
  double sum = 0.0, o = 0.0;
  attention::each_tile(s, [&](std::size_t t0, std::size_t t1, double m, double m_new) {
    const double alpha = std::isfinite(m) ? exp_t(a, a.sub(m, m_new)) : 0.0;
    double r = 0.0;
    std::vector<double> p(t1 - t0);
    for (std::size_t j = t0; j < t1; ++j) r = a.add(r, p[j - t0] = std::isfinite(s[j]) ? exp_t(a, a.sub(s[j], m_new)) : 0.0);
    sum = a.add(a.mul(alpha, sum), r);
    o = a.mul(o, alpha);
    for (std::size_t j = t0; j < t1; ++j)
      if (p[j - t0] != 0) o = a.add(o, a.mul(p[j - t0], l.v[j * static_cast<std::size_t>(l.d) + in.i]));
  });
  return sum == 0 ? 0.0 : a.mul(o, a.div(1.0, sum));
}

}  // namespace kc::oracle::replay

namespace kc::oracle::replay {

// attention_paged_naive (§12): the element's args hold its context's rows
// gathered through the block table and its absolute position a as qi; the
// mask k > a is naive's top-left causal rule at a, with no window.
Params paged_as_naive(const Params& p) {
  return Params()
      .set("softmax_scale", p.real("softmax_scale"))
      .set("softcap", p.real("softcap"))
      .set("causal", std::int64_t{1})
      .set("window_left", std::int64_t{-1})
      .set("window_right", std::int64_t{-1});
}

double attention_paged(const Row& in) {
  const Params naive = paged_as_naive(*in.ctx.params);
  Row as_naive = in;
  as_naive.ctx.params = &naive;
  return attention_naive(as_naive);
}

}  // namespace kc::oracle::replay

namespace kc::oracle {

namespace {

using attention::exp_t;
using attention::Layout;
using attention::Mask;
using attention::Scores;
using attention::term;
using rows::B;
using rows::Stage;
using rows::Stages;
using D1 = double (*)(double);

// Where the kernel's own weight for key j is 0 (naive: e_j (1/sum);
// flash: e^(s_j - m_new) of j's tile): it skips V's row there.
std::vector<bool> zero_weights(const Scores& s, DType t, bool flash) {
  const replay::InT a{t};
  std::vector<bool> zero(s.t.size(), true);
  if (!flash) {
    double m = -INFINITY, sum = 0.0;
    for (double x : s.t)
      if (x > m) m = x;
    std::vector<double> e(s.t.size(), 0.0);
    for (std::size_t j = 0; j < s.t.size(); ++j)
      if (s.admissible[j]) sum = a.add(sum, e[j] = exp_t(a, s.t[j], m));
    const double inv = a.div(1.0, sum);
    for (std::size_t j = 0; j < s.t.size(); ++j) zero[j] = !s.admissible[j] || a.mul(e[j], inv) == 0;
    return zero;
  }
  attention::each_tile(s.t, [&](std::size_t t0, std::size_t t1, double, double m_new) {
    for (std::size_t j = t0; j < t1; ++j) zero[j] = !s.admissible[j] || exp_t(a, s.t[j], m_new) == 0;
  });
  return zero;
}

// A kernel's steps over a query row, the part no column changes: each
// admissible key's weight in T and its stage, by tiles, each tile's
// rescaling alpha, and the final factor; column_stage() then folds one
// column of V under them. (Kept per row in Cell: a row's D columns share
// them, and the exponentials' stages were most of an element's cost.)
struct Weighted {
  struct Tile {
    Stage alpha = Stages::exact(1);
    std::vector<std::size_t> keys;
    std::vector<double> p_t;
    std::vector<Stage> p;
  };
  std::vector<Tile> tiles;
  bool flash = false;
  Stage inv = Stages::exact(1);
};

// The naive kernel's steps: one shift m, e_j, their fold, 1/sum, p_j = e_j
// inv (one tile of every key); a column is the fold of p v.
Weighted naive_weights(const Scores& s, DType t, Stages& st) {
  const replay::InT a{t};
  double m = -INFINITY;
  for (double x : s.t)
    if (x > m) m = x;
  std::vector<double> e_t(s.t.size(), 0.0);
  std::vector<Stage> e(s.t.size());
  double sum_t = 0.0;
  for (std::size_t j = 0; j < s.t.size(); ++j)
    if (s.admissible[j]) sum_t = a.add(sum_t, e_t[j] = exp_t(a, s.t[j], m)), e[j] = st.exp(st.sub(s.st[j], Stages::exact(m)));
  std::vector<Stage> adm;
  for (std::size_t j = 0; j < e.size(); ++j)
    if (s.admissible[j]) adm.push_back(e[j]);
  const double inv_t = a.div(1.0, sum_t);
  const Stage inv = st.div(Stages::exact(1), st.fold(adm));
  Weighted w;
  Weighted::Tile& all = w.tiles.emplace_back();
  for (std::size_t j = 0; j < e.size(); ++j)
    if (s.admissible[j]) all.keys.push_back(j), all.p_t.push_back(a.mul(e_t[j], inv_t)), all.p.push_back(st.mul(e[j], inv));
  return w;
}

// The flash kernel's steps: per tile of 16, the new maximum, alpha, the
// tile's p and their fold r, l = alpha l + r; a column is O = O alpha + the
// tile's p v over the tiles, finally O (1/l).
Weighted flash_weights(const Scores& s, DType t, Stages& st) {
  const replay::InT a{t};
  Weighted w;
  w.flash = true;
  Stage lsum = Stages::exact(0);
  attention::each_tile(s.t, [&](std::size_t t0, std::size_t t1, double m, double m_new) {
    Weighted::Tile& tile = w.tiles.emplace_back();
    tile.alpha = std::isfinite(m) ? st.exp(st.sub(Stages::exact(m), Stages::exact(m_new))) : Stages::exact(0);
    for (std::size_t j = t0; j < t1; ++j) {
      if (!s.admissible[j]) continue;
      tile.keys.push_back(j);
      tile.p_t.push_back(exp_t(a, s.t[j], m_new));
      tile.p.push_back(st.exp(st.sub(s.st[j], Stages::exact(m_new))));
    }
    lsum = st.add(st.mul(tile.alpha, lsum), st.fold(tile.p));
  });
  w.inv = st.div(Stages::exact(1), lsum);
  return w;
}

Stage column_stage(const Weighted& w, const Layout& l, Stages& st, std::size_t col) {
  const auto d = static_cast<std::size_t>(l.d);
  if (!w.flash) {
    const Weighted::Tile& all = w.tiles.front();
    std::vector<Stage> terms;
    for (std::size_t at = 0; at < all.keys.size(); ++at) terms.push_back(term(st, all.p_t[at], all.p[at], l.v[all.keys[at] * d + col]));
    return st.fold(terms);
  }
  Stage o = Stages::exact(0);
  for (const Weighted::Tile& tile : w.tiles) {
    o = st.mul(o, tile.alpha);
    for (std::size_t at = 0; at < tile.keys.size(); ++at) {
      const Stage tm = term(st, tile.p_t[at], tile.p[at], l.v[tile.keys[at] * d + col]);
      o = tile.p_t[at] == 0 ? Stage{o.v + tm.v, o.e + tm.e, o.rms() + tm.rms()} : st.add(o, tm);
    }
  }
  return st.mul(o, w.inv);
}

// Exact: the softmax-weighted sum of V's column in MPFR, of the row's
// exact weights.
Mp weighted_column(const Layout& l, const Scores& s, const attention::ExactWeights& ew, std::size_t col) {
  const auto d = static_cast<std::size_t>(l.d);
  Mp num(0);
  for (std::size_t j = 0; j < s.t.size(); ++j)
    if (s.admissible[j] && std::isfinite(l.v[j * d + col])) num += ew.w[j] * Mp(l.v[j * d + col]);
  return num / ew.sum;
}
Mp weighted_column(const Layout& l, const Mask& mk, const Scores& s, std::size_t col) {
  attention::ExactWeights ew;  // (fresh: Mp values keep the precision they were made at)
  attention::exact_weights(l, mk, s, ew);
  return weighted_column(l, s, ew, col);
}

// What a query row's elements share (its D columns are D elements): the
// scores, their stages, the zero weights and the exact weights, computed
// for its first element and kept for the next (rows::RowKey: the row's
// bits, dtype, precision and parameters). Before, each of a row's D
// elements computed them again: a decode row of 4096 keys and D = 128 did
// 128 times the work. One per kernel (flash's zero weights differ).
struct Cell {
  rows::RowKey key;
  std::optional<Mask> mk;
  Scores s;
  std::optional<rows::Stages> st;  // after the scores: each element's stages go on from a copy
  std::vector<bool> zero;
  attention::ExactWeights ew;
  Weighted w;
};
const Cell& cell_of(const Row& in, const Layout& l, bool flash) {
  // (Four rows of each kernel: flash_matches_naive reads a case's rows
  // after grading did.)
  static thread_local rows::RowSlots<Cell, 4> cells[2];
  bool hit = false;
  Cell& c = cells[flash ? 1 : 0].at(in, hit);
  if (hit) return c;
  const DType t = in.ctx.dtype;
  // The other kernel's cell of the same row: its mask, scores, their
  // stages and the exact weights are this row's too.
  if (const Cell* other = cells[flash ? 0 : 1].find(in)) {
    c.mk = other->mk;
    c.st = other->st;
    c.s = other->s;
    if (!c.s.special) c.ew = other->ew;
  } else {
    c.mk = Mask::of(*in.ctx.params, t);
    c.st.emplace(t);
    c.s = scores(l, *c.mk, t, *c.st);
    if (!c.s.special) attention::exact_weights(l, *c.mk, c.s, c.ew);
  }
  c.zero = c.s.special ? std::vector<bool>() : zero_weights(c.s, t, flash);
  if (c.s.special) return c;
  c.w = flash ? flash_weights(c.s, t, *c.st) : naive_weights(c.s, t, *c.st);
  return c;
}

// The element's exact value with the scale and softcap as given.
Mp given_column(const Row& in) {
  const Mask given = Mask::of(*in.ctx.params, in.ctx.dtype).as_given(*in.ctx.params);
  const Layout l = Layout::of(in.a);
  Stages st(in.ctx.dtype);
  return weighted_column(l, given, scores(l, given, in.ctx.dtype, st), static_cast<std::size_t>(in.i));
}

void attend(const Row& in, Exact& out, bool flash) {
  const DType t = in.ctx.dtype;
  const Layout l = Layout::of(in.a);
  const Cell& cell = cell_of(in, l, flash);
  const Mask& mk = *cell.mk;
  const auto col = static_cast<std::size_t>(in.i);
  Stages st = *cell.st;
  const Scores& s = cell.s;
  bool special = s.special;
  const auto replay_fn = flash ? replay::attention_flash : replay::attention_naive;
  // A non-finite V value in this column under a non-zero weight makes the
  // element special too; under a zero weight the kernel skips it, and so
  // does the exact value here (the reference's definition: PyTorch's 0 inf
  // would be NaN, accepted below as another answer).
  const std::vector<bool>& zero = cell.zero;
  bool skipped_special = false;
  for (std::size_t j = 0; !special && j < s.t.size(); ++j)
    if (s.admissible[j] && !std::isfinite(l.v[j * static_cast<std::size_t>(l.d) + col])) {
      special |= !zero[j];
      skipped_special = true;
    }
  if (special) {
    // The reference's special rows: its own answer, and the other
    // algorithm's (a +inf score zeroes naive's row, drops flash's tile).
    const double own = replay_fn(in), other = (flash ? replay::attention_naive : replay::attention_flash)(in);
    out.value = Mp(own);
    out.replayed = true;
    // Which outputs become inf or NaN, and a row with no admissible key
    // (+0), are the reference's definition, graded in both profiles; a
    // finite output of a row with a non-finite input or score has no bound
    // derived here: the reference profile grades its bits.
    out.unbounded = s.any && std::isfinite(own);
    if (!(other == own || (std::isnan(other) && std::isnan(own)))) out.alternatives.push_back(Mp(other));
    // A row with no admissible key has no weights: the reference's +0,
    // FlashAttention's 0 and PyTorch's softmax of an all -inf row (NaN)
    // are each a correct answer (docs/conformance-audit.md).
    if (!s.any) out.alternatives.insert(out.alternatives.end(), {-Mp(0), Mp(NAN)});
    return;
  }
  out.value = weighted_column(l, s, cell.ew, col);
  if (!(mk.as_given(*in.ctx.params) == mk)) out.other_reading = [&in] { return std::optional(given_column(in)); };
  if (skipped_special) out.alternatives.push_back(Mp(NAN));
  const Stage y = column_stage(cell.w, l, st, col);
  if (is_number(out.value) && std::isfinite(y.e)) rows::set_bound(out, t, y.e, y.rms());
  rows::settle_overflow(in, replay_fn, y.e, st.overflow, out);
}

}  // namespace

void attention_naive(const Row& in, Exact& out) { attend(in, out, false); }
void attention_flash(const Row& in, Exact& out) { attend(in, out, true); }
void attention_paged(const Row& in, Exact& out) {
  const Params naive = replay::paged_as_naive(*in.ctx.params);
  Row as_naive = in;
  as_naive.ctx.params = &naive;
  attend(as_naive, out, false);
  // (as_naive and its parameters end here: the other reading rebuilds them)
  if (out.other_reading)
    out.other_reading = [&in] {
      const Params given = replay::paged_as_naive(*in.ctx.params);
      Row r = in;
      r.ctx.params = &given;
      return std::optional(given_column(r));
    };
}

}  // namespace kc::oracle
