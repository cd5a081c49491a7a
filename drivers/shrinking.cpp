#include "drivers/shrinking.h"

#include <algorithm>
#include <numeric>

#include "generators/shrink.h"

namespace kc::drivers {

namespace {

// Applies `cut` to every member whose aligned dim at frame axis `a` is not 1
// (tensors and shapes alike), `keep_ones` members untouched.
template <class CutTensor, class CutShape>
gen::Case cut_members(const gen::Case& c, const Frame& f, std::size_t a, CutTensor cut_tensor, CutShape cut_shape) {
  gen::Case out = c;
  out.exhaustive = false;
  for (std::size_t i : f.inputs) {
    const Tensor& x = c.inputs[i];
    const std::size_t r = static_cast<std::size_t>(x.rank());
    if (a + r < f.dims.size()) continue;  // the member does not reach this axis
    const std::size_t ax = a + r - f.dims.size();
    out.inputs[i] = cut_tensor(x, ax);
  }
  for (std::string_view name : f.shape_params) {
    Dims d = c.params.shape(std::string(name));
    if (a + d.size() < f.dims.size()) continue;
    const std::size_t ax = a + d.size() - f.dims.size();
    out.params.set(std::string(name), cut_shape(d, ax));
  }
  return out;
}

}  // namespace

std::vector<gen::Case> shrink_candidates(const gen::Case& c, const Frame& f, bool flatten) {
  std::vector<gen::Case> v;
  const std::size_t rank = f.dims.size();
  if (flatten && rank != 1) {
    gen::Case flat = c;
    flat.exhaustive = false;
    for (std::size_t i : f.inputs) flat.inputs[i] = gen::flattened(c.inputs[i]);
    v.push_back(flat);
  }
  if (rank > 1 && f.dims[0] == 1 && f.fixed_axis != std::size_t{0}) {
    gen::Case dropped = cut_members(
        c, f, 0,
        [](const Tensor& x, std::size_t ax) { return x.dims()[ax] == 1 ? gen::without_axis(x, ax) : x; },
        [](Dims d, std::size_t ax) {
          d.erase(d.begin() + static_cast<std::ptrdiff_t>(ax));
          return d;
        });
    if (f.fixed_axis && *f.fixed_axis > 0) dropped.params.set("dim", static_cast<std::int64_t>(*f.fixed_axis - 1));
    v.push_back(dropped);
  }
  std::vector<std::size_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  std::stable_sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return f.dims[a] > f.dims[b]; });
  // Halves first; then, as in delta debugging, the axis cut in 4, 8, ...
  // chunks with one chunk removed, down to single indices, so that a
  // failure needing a few scattered elements still comes down to them.
  auto keep = [&](std::size_t a, std::int64_t start, std::int64_t len) {
    return cut_members(
        c, f, a, [&](const Tensor& x, std::size_t ax) { return x.dims()[ax] == 1 ? x : gen::sliced(x, ax, start, len); },
        [&](Dims d, std::size_t ax) {
          if (d[ax] != 1) d[ax] = len;
          return d;
        });
  };
  auto drop = [&](std::size_t a, std::int64_t start, std::int64_t len, std::int64_t n) {
    return cut_members(
        c, f, a,
        [&](const Tensor& x, std::size_t ax) { return x.dims()[ax] == 1 ? x : gen::without_range(x, ax, start, len); },
        [&](Dims d, std::size_t ax) {
          if (d[ax] != 1) d[ax] = n - len;
          return d;
        });
  };
  for (std::size_t a : axes) {
    const std::int64_t n = f.dims[a];
    if (n < 2) continue;
    v.push_back(keep(a, 0, n / 2));
    v.push_back(keep(a, n / 2, n - n / 2));
  }
  // (Candidates are built eagerly: a long axis gets at most 16 chunks, a
  // short one down to single indices, so a step stays a few dozen cases.)
  for (std::size_t a : axes) {
    const std::int64_t n = f.dims[a];
    const std::int64_t finest = n <= 32 ? n : 16;
    for (std::int64_t chunks = 4; n >= 3 && chunks / 2 < finest; chunks *= 2) {
      const std::int64_t k = std::min(chunks, finest);
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t start = j * n / k, len = (j + 1) * n / k - start;
        if (len > 0 && len < n) v.push_back(drop(a, start, len, n));
      }
    }
  }
  return v;
}

}  // namespace kc::drivers
