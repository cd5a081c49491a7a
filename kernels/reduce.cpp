// Every fold starts at its identity (+0, -inf, +inf) and combines elements in
// increasing flat index, in T, replacing on strict > / < (NaN ignored, the
// first of equals kept): reference-semantics.md §0.1, §0.4.
#include "kernels/reduce.h"

#include <cmath>
#include <limits>

#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

template <class T> T identity(Fold f) {
  if (f == Fold::max) return cst<T>(-INFINITY);
  if (f == Fold::min) return cst<T>(INFINITY);
  return cst<T>(0.0);
}

template <class T> T combine(Fold f, T acc, T v) {
  switch (f) {
    case Fold::sum: case Fold::mean: return acc + v;
    case Fold::max: return v > acc ? v : acc;
    case Fold::min: return v < acc ? v : acc;
  }
  return acc;
}

template <class F>
void by_dtype(DType t, F f) {
  switch (t) {
    case DType::f32: f.template operator()<float>(); break;
    case DType::f64: f.template operator()<double>(); break;
    case DType::bf16: f.template operator()<bf16>(); break;
    case DType::f16: f.template operator()<f16>(); break;
    default: break;
  }
}

// Walk the source in flat order and fold each element into its output cell.
template <class T, class CellOf>
void fold_into(Fold f, const Tensor& x, Tensor& y, CellOf cell_of) {
  auto xs = x.as<T>();
  auto ys = y.as_mutable<T>();
  for (auto& v : ys) v = identity<T>(f);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    auto& acc = ys[static_cast<std::size_t>(cell_of(static_cast<std::int64_t>(i)))];
    acc = combine(f, acc, xs[i]);
  }
}

// mean: divide each cell by T(n) (n rounded into T, §0.3).
template <class T>
void divide_by(Tensor& y, std::int64_t n) {
  const T d = cst<T>(static_cast<double>(n));
  for (auto& v : y.as_mutable<T>()) v = v / d;
}

Dims without(const Dims& d, std::size_t dim) {
  Dims out = d;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(dim));
  return out;
}

// Flat input index -> flat output index with `dim` removed.
struct DropDim {
  std::int64_t inner, len;
  std::int64_t operator()(std::int64_t i) const { return (i / (inner * len)) * inner + i % inner; }
};
DropDim drop_dim(const Dims& d, std::size_t dim) {
  std::int64_t inner = 1;
  for (std::size_t k = dim + 1; k < d.size(); ++k) inner *= d[k];
  return {inner, d[dim]};
}

// Flat source index -> flat target cell (target right-aligned, size-1 dims collapse).
struct ToTarget {
  Dims src_strides, src_dims, tgt_strides_aligned;
  std::int64_t operator()(std::int64_t i) const {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < src_dims.size(); ++k) o += ((i / src_strides[k]) % src_dims[k]) * tgt_strides_aligned[k];
    return o;
  }
};
ToTarget to_target(const Dims& src, const Dims& target) {
  ToTarget t{row_major_strides(src), src, Dims(src.size(), 0)};
  const Dims ts = row_major_strides(target);
  for (std::size_t j = 0; j < target.size(); ++j) {
    const std::size_t k = src.size() - target.size() + j;
    if (target[j] != 1) t.tgt_strides_aligned[k] = ts[j];
  }
  return t;
}

}  // namespace

Tensor reduce_all(Fold f, const Tensor& x) {
  Tensor y(x.dtype(), {});
  by_dtype(x.dtype(), [&]<class T>() {
    fold_into<T>(f, x, y, [](std::int64_t) { return 0; });
    if (f == Fold::mean) {
      if (x.numel() == 0) y.as_mutable<T>()[0] = cst<T>(NAN);
      else divide_by<T>(y, x.numel());
    }
  });
  return y;
}

Tensor reduce_dim(Fold f, const Tensor& x, std::size_t dim) {
  Tensor y(x.dtype(), without(x.dims(), dim));
  const DropDim cell = drop_dim(x.dims(), dim);
  by_dtype(x.dtype(), [&]<class T>() {
    fold_into<T>(f, x, y, cell);
    if (f == Fold::mean) divide_by<T>(y, x.dims()[dim]);  // 0/0 = NaN for an empty axis
  });
  return y;
}

Tensor arg_dim(bool is_max, const Tensor& x, std::size_t dim) {
  Tensor y(DType::u32, without(x.dims(), dim));
  const DropDim cell = drop_dim(x.dims(), dim);
  const std::int64_t len = x.dims()[dim], inner = cell.inner;
  by_dtype(x.dtype(), [&]<class T>() {
    auto xs = x.as<T>();
    auto ys = y.as_mutable<std::uint32_t>();
    for (std::int64_t o = 0; o < y.numel(); ++o) {
      const std::int64_t base = (o / inner) * inner * len + o % inner;
      // The best value starts as the first element (not +-inf): a NaN there wins.
      T best = xs[static_cast<std::size_t>(base)];
      std::uint32_t at = 0;
      for (std::int64_t k = 1; k < len; ++k) {
        const T v = xs[static_cast<std::size_t>(base + k * inner)];
        if (is_max ? v > best : v < best) {
          best = v;
          at = static_cast<std::uint32_t>(k);
        }
      }
      ys[static_cast<std::size_t>(o)] = at;
    }
  });
  return y;
}

Tensor reduce_to(Fold f, const Tensor& x, const Dims& target) {
  Tensor y(x.dtype(), target);
  const ToTarget cell = to_target(x.dims(), target);
  by_dtype(x.dtype(), [&]<class T>() { fold_into<T>(f, x, y, cell); });
  return y;
}

Tensor reduce_max_to_backward(const Tensor& x, const Tensor& up) {
  const Dims& target = up.dims();
  const Tensor y = reduce_to(Fold::max, x, target);
  const ToTarget cell = to_target(x.dims(), target);
  Tensor grad(x.dtype(), x.dims());
  by_dtype(x.dtype(), [&]<class T>() {
    auto xs = x.as<T>();
    auto ys = y.as<T>();
    auto us = up.as<T>();
    // mask (1 where x equals its cell's max; NaN never matches), count in T
    std::vector<T> mask(xs.size()), count(ys.size(), cst<T>(0.0));
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const auto c = static_cast<std::size_t>(cell(static_cast<std::int64_t>(i)));
      mask[i] = xs[i] == ys[c] ? cst<T>(1.0) : cst<T>(0.0);
      count[c] = count[c] + mask[i];
    }
    std::vector<T> s(ys.size());
    for (std::size_t c = 0; c < ys.size(); ++c) {
      const T safe = count[c] < cst<T>(1.0) ? cst<T>(1.0) : count[c];
      s[c] = us[c] / safe;
    }
    auto gs = grad.as_mutable<T>();
    for (std::size_t i = 0; i < xs.size(); ++i)
      gs[i] = s[static_cast<std::size_t>(cell(static_cast<std::int64_t>(i)))] * mask[i];  // s*0 is NaN for s inf/NaN
  });
  return grad;
}

Tensor broadcast_to(const Tensor& x, const Dims& target) {
  if (is_pure_padding(x.dims(), target)) return x.broadcast_padded(target);  // shares the input's storage
  Tensor y(x.dtype(), target);
  const BroadcastIndex src(x.dims(), target);
  for (std::int64_t o = 0; o < y.numel(); ++o) y.set_bits(o, x.bits_at(src(o)));
  return y;
}

}  // namespace kc::kern
