// How an attention output element's inputs travel (drivers/attention.cpp
// packs them, the oracle and the replay unpack them): the element's args
// are [D, Sk, qi, has_slope, slope, q row (D), K (Sk x D), V (Sk x D)] of
// its (batch, query head), K and V those of the query head's KV head; the
// element's form is its column d. The params: softmax_scale, causal,
// window_left, window_right (-1: none), softcap (0: none).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/params.h"
#include "oracles/replay.h"

namespace kc::oracle::attention {

struct Layout {
  std::int64_t d = 0, sk = 0, qi = 0;
  bool has_slope = false;
  double slope = 0;
  std::span<const double> q, k, v;
  static Layout of(std::span<const double> args) {
    Layout l;
    l.d = static_cast<std::int64_t>(args[0]), l.sk = static_cast<std::int64_t>(args[1]), l.qi = static_cast<std::int64_t>(args[2]);
    l.has_slope = args[3] != 0, l.slope = args[4];
    const auto d = static_cast<std::size_t>(l.d), sk = static_cast<std::size_t>(l.sk);
    l.q = args.subspan(5, d), l.k = args.subspan(5 + d, sk * d), l.v = args.subspan(5 + d + sk * d, sk * d);
    return l;
  }
};
inline constexpr std::size_t kHeader = 5;

// attention_flash_backward's elements (drivers/attention_backward.cpp):
// the args of every output element of one (batch, KV head) are that cell's
//   [G, Sq, Sk, D, has_slope, slope (G), Q (G x Sq x D), dO (G x Sq x D),
//    K (Sk x D), V (Sk x D)]
// with G = Hq / Hk query heads; the element's form is its place in the
// cell's outputs: dQ (G x Sq x D), then dK (Sk x D), then dV (Sk x D).
struct Cell {
  std::int64_t g = 0, sq = 0, sk = 0, d = 0;
  bool has_slope = false;
  std::span<const double> slopes, q, dout, k, v;
  static Cell of(std::span<const double> args) {
    Cell c;
    c.g = static_cast<std::int64_t>(args[0]), c.sq = static_cast<std::int64_t>(args[1]);
    c.sk = static_cast<std::int64_t>(args[2]), c.d = static_cast<std::int64_t>(args[3]);
    c.has_slope = args[4] != 0;
    const auto g = static_cast<std::size_t>(c.g), rows = g * static_cast<std::size_t>(c.sq * c.d),
               keys = static_cast<std::size_t>(c.sk * c.d);
    c.slopes = args.subspan(5, g);
    c.q = args.subspan(5 + g, rows), c.dout = args.subspan(5 + g + rows, rows);
    c.k = args.subspan(5 + g + 2 * rows, keys), c.v = args.subspan(5 + g + 2 * rows + keys, keys);
    return c;
  }
  std::size_t dq_count() const { return static_cast<std::size_t>(g * sq * d); }
  std::size_t outputs() const { return dq_count() + 2 * static_cast<std::size_t>(sk * d); }
  // Query row qi of head gi as the forward's element sees it (v: V).
  Layout row(std::int64_t gi, std::int64_t qi) const {
    Layout l;
    l.d = d, l.sk = sk, l.qi = qi, l.has_slope = has_slope;
    l.slope = has_slope ? slopes[static_cast<std::size_t>(gi)] : 0.0;
    l.q = q.subspan(static_cast<std::size_t>((gi * sq + qi) * d), static_cast<std::size_t>(d)), l.k = k, l.v = v;
    return l;
  }
  std::span<const double> dout_row(std::int64_t gi, std::int64_t qi) const {
    return dout.subspan(static_cast<std::size_t>((gi * sq + qi) * d), static_cast<std::size_t>(d));
  }
};

struct Mask {
  bool causal = false;
  std::int64_t left = -1, right = -1;
  double scale = 0, softcap = 0;  // T(f32(softmax_scale)), T(f32(softcap)) (0: none), widened
  // The f32 parameters enter T by T::from(f32) (§12, §0.3): exact for f32
  // and f64, one more rounding for the halves.
  static Mask of(const Params& p, DType t) {
    return {p.integer("causal") != 0, p.integer("window_left"), p.integer("window_right"),
            replay::narrow(t, static_cast<float>(p.real("softmax_scale"))),
            replay::narrow(t, static_cast<float>(p.real("softcap")))};
  }
  // The same positions with the scale and softcap as the call gives them
  // (an f64 kernel's, or PyTorch's opmath for the halves): the definition's
  // other reading (Exact::other_reading).
  Mask as_given(const Params& p) const {
    Mask m = *this;
    m.scale = p.real("softmax_scale");
    m.softcap = p.real("softcap");
    return m;
  }
  bool operator==(const Mask&) const = default;
  // position_admissible, in its order (top-left causal, no Sq/Sk offset).
  bool admissible(std::int64_t qi, std::int64_t kj) const {
    if (causal && kj > qi) return false;
    if (left >= 0 && kj + left < qi) return false;
    if (right >= 0 && kj > qi + right) return false;
    return true;
  }
};

// The tiles of 16 keys attention_flash walks (BC = 16), each with the
// running maximum before it and the new one (the strict-> maximum of the
// tile's scores, if larger); a tile whose new maximum is not finite is
// skipped, as the kernel skips it: f(first, end, m, m_new).
template <class F>
void each_tile(const std::vector<double>& scores, F f) {
  double m = -INFINITY;
  for (std::size_t t0 = 0; t0 < scores.size(); t0 += 16) {
    const std::size_t t1 = std::min(scores.size(), t0 + 16);
    double tile_max = -INFINITY;
    for (std::size_t j = t0; j < t1; ++j)
      if (scores[j] > tile_max) tile_max = scores[j];
    const double m_new = tile_max > m ? tile_max : m;
    if (!std::isfinite(m_new)) continue;
    f(t0, t1, m, m_new);
    m = m_new;
  }
}

}  // namespace kc::oracle::attention
