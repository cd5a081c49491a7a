#include "engine/sample.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "generators/case.h"

namespace kc::engine {

namespace {

enum Stratum : int { kEdge = 0, kBoundary = 1, kRandom = 2 };

struct Picker {
  const Dims& d;
  std::int64_t base;  // the part's first flat index
  std::uint64_t& state;
  std::vector<std::pair<std::int64_t, int>>& out;

  std::int64_t draw(std::int64_t n) { return n <= 1 ? 0 : static_cast<std::int64_t>(gen::splitmix64(state) % static_cast<std::uint64_t>(n)); }
  // Row-major flat index of coordinates c.
  std::int64_t flat(const Dims& c) const {
    std::int64_t f = 0;
    for (std::size_t a = 0; a < d.size(); ++a) f = f * d[a] + c[a];
    return f;
  }
  void add(const Dims& c, Stratum s) { out.emplace_back(base + flat(c), s); }
  Dims random_coords() {
    Dims c(d.size());
    for (std::size_t a = 0; a < d.size(); ++a) c[a] = draw(d[a]);
    return c;
  }
};

// At most `cap` of 0 .. n-1, evenly spaced, both ends kept.
std::vector<std::int64_t> thinned(std::int64_t n, std::int64_t cap) {
  std::vector<std::int64_t> v;
  if (n <= cap) {
    for (std::int64_t i = 0; i < n; ++i) v.push_back(i);
    return v;
  }
  for (std::int64_t j = 0; j < cap; ++j) v.push_back(cap == 1 ? 0 : j * (n - 1) / (cap - 1));
  return v;
}

// The first and last row and column: rows along the last axis, the
// leading coordinates (as one) first or last.
void edges(Picker& p, std::int64_t cap) {
  const Dims& d = p.d;
  const std::size_t r = d.size();
  const std::int64_t cols = d[r - 1], rows = checked_numel(d) / std::max<std::int64_t>(cols, 1);
  auto at = [&](std::int64_t row, std::int64_t col) { p.out.emplace_back(p.base + row * cols + col, kEdge); };
  for (std::int64_t row : {std::int64_t{0}, rows - 1})
    for (std::int64_t col : thinned(cols, cap)) at(row, col);
  for (std::int64_t col : {std::int64_t{0}, cols - 1})
    for (std::int64_t row : thinned(rows, cap)) at(row, col);
}

// Along each axis, the multiples of 16 and one past them, by descending
// power of two, up to `cap` per axis.
void boundaries(Picker& p, std::int64_t cap) {
  for (std::size_t a = 0; a < p.d.size(); ++a) {
    std::vector<std::int64_t> pos;
    for (std::int64_t m = 16; m < p.d[a]; m += 16) pos.push_back(m);
    std::stable_sort(pos.begin(), pos.end(), [](std::int64_t x, std::int64_t y) {
      return std::countr_zero(static_cast<std::uint64_t>(x)) > std::countr_zero(static_cast<std::uint64_t>(y));
    });
    std::int64_t taken = 0;
    for (std::int64_t m : pos)
      for (std::int64_t q : {m, m + 1}) {
        if (q >= p.d[a] || taken >= cap) continue;
        Dims c = p.random_coords();
        c[a] = q;
        p.add(c, kBoundary);
        ++taken;
      }
  }
}

}  // namespace

Sample stratified_sample(const drivers::Expectation& want, std::int64_t budget, std::uint64_t seed) {
  std::vector<std::pair<std::int64_t, int>> picked;
  std::uint64_t state = seed;
  Sample s;
  std::int64_t base = 0;
  const auto parts = static_cast<std::int64_t>(want.parts.size());
  for (const auto& part : want.parts) {
    const std::int64_t n = checked_numel(part.dims), share = std::max<std::int64_t>(budget / parts, 16);
    Picker p{part.dims, base, state, picked};
    if (n > 0 && part.dims.empty()) picked.emplace_back(base, kEdge);
    if (n > 0 && !part.dims.empty()) {
      edges(p, share / 16);
      boundaries(p, share / 4 / static_cast<std::int64_t>(part.dims.size()));
      const std::int64_t r = share / 4;
      for (std::int64_t i = 0; i < r; ++i) picked.emplace_back(base + p.draw(n), kRandom);
      s.draws = s.draws == 0 ? r : std::min(s.draws, r);
    }
    base += n;
  }
  std::sort(picked.begin(), picked.end());
  for (std::size_t i = 0; i < picked.size(); ++i) {
    if (i > 0 && picked[i].first == picked[i - 1].first) continue;
    s.indices.push_back(picked[i].first);
    (picked[i].second == kEdge ? s.edges : picked[i].second == kBoundary ? s.boundaries : s.random) += 1;
  }
  return s;
}

}  // namespace kc::engine
