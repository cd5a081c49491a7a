#include "generators/shrink.h"

namespace kc::gen {

namespace {

// The slices i of `axis` with keep(i), in order: the copy both shrinks share.
template <class Keep>
Tensor kept_along(const Tensor& x, std::size_t axis, std::int64_t kept, Keep keep) {
  Dims d = x.dims();
  std::int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < axis; ++k) outer *= d[k];
  for (std::size_t k = axis + 1; k < d.size(); ++k) inner *= d[k];
  const std::int64_t n = d[axis];
  d[axis] = kept;
  Tensor y(x.dtype(), d);
  std::int64_t o = 0;
  for (std::int64_t a = 0; a < outer; ++a)
    for (std::int64_t i = 0; i < n; ++i)
      if (keep(i))
        for (std::int64_t b = 0; b < inner; ++b) y.set_bits(o++, x.bits_at((a * n + i) * inner + b));
  return y;
}

}  // namespace

Tensor sliced(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len) {
  return kept_along(x, axis, len, [&](std::int64_t i) { return i >= start && i < start + len; });
}

Tensor without_range(const Tensor& x, std::size_t axis, std::int64_t start, std::int64_t len) {
  return kept_along(x, axis, x.dims()[axis] - len, [&](std::int64_t i) { return i < start || i >= start + len; });
}

Tensor flattened(const Tensor& x) {
  Tensor y(x.dtype(), {x.numel()});
  for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, x.bits_at(i));
  return y;
}

Tensor without_axis(const Tensor& x, std::size_t axis) {
  Dims d = x.dims();
  d.erase(d.begin() + static_cast<std::ptrdiff_t>(axis));
  Tensor y(x.dtype(), d);
  for (std::int64_t i = 0; i < x.numel(); ++i) y.set_bits(i, x.bits_at(i));
  return y;
}

}  // namespace kc::gen
