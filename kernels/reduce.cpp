// Reductions, reduce-to-shape and broadcast_to of the reference
// (ops.rs:341-505, 854-1130; reference-semantics.md §5-§7), and their exec
// arms. Every fold starts at its identity (+0, -inf, +inf) and combines elements in
// increasing flat index, in T, replacing on strict > / < (NaN ignored, the
// first of equals kept): reference-semantics.md §0.1, §0.4.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/arms.h"
#include "kernels/scalar.h"
#include "kernels/shape_math.h"

namespace kc::kern {

namespace {

enum class Fold : std::uint8_t { sum, max, min, mean };

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

Tensor reduce_all(Fold f, const Tensor& x) {
  Tensor y(x.dtype(), {});
  by_dtype(x.dtype(), [&]<class T>() {
    fold_into<T>(f, x, y, [](std::int64_t) { return 0; });
    // Empty: 0 / T(0) at run time, x86's default NaN (sign bit set), as the reference's division gives.
    if (f == Fold::mean) divide_by<T>(y, x.numel());
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

// Exec arms. The reference panics on a bad dim or target
// (reference-semantics.md §6, §7); the port raises typed errors instead,
// with the rule in the contract.
std::size_t checked_dim(std::string_view op, const Tensor& x, const Params& p) {
  const std::int64_t d = p.integer("dim");
  if (d >= x.rank())
    throw KernelError(std::string(op), "dim", Rule::dim_out_of_range,
                      fmt::format("dim {} out of bounds for shape {}", d, dims_to_string(x.dims())));
  return static_cast<std::size_t>(d);
}

void check_target_into(std::string_view op, std::string_view operand, const Dims& source, const Dims& target) {
  if (target.size() > source.size())
    throw KernelError(std::string(op), std::string(operand), Rule::target_rank,
                      fmt::format("target rank {} exceeds source rank {}", target.size(), source.size()));
  if (auto why = target_incompatible(source, target))
    throw KernelError(std::string(op), std::string(operand), Rule::target_incompatible, *why);
}

Arm arm(std::string_view op, int arity, std::vector<ParamDecl> params,
        std::function<std::vector<Tensor>(std::span<const Tensor>, const Params&)> f,
        std::vector<std::string_view> operands = {}) {
  return Arm{.op = op, .dtypes = kFloatSet, .arity = arity, .params = std::move(params), .eval = std::move(f),
             .operands = std::move(operands)};
}

}  // namespace

void register_reduce(Arms& table) {
  const ParamDecl dim{"dim", ParamKind::integer, 0, INT32_MAX};
  const ParamDecl target{"target", ParamKind::shape};
  const std::pair<const char*, Fold> all[] = {{"sum_all", Fold::sum}, {"max_all", Fold::max},
                                              {"min_all", Fold::min}, {"mean_all", Fold::mean}};
  for (const auto& [name, f] : all)
    table.push_back(arm(name, 1, {}, [f = f](std::span<const Tensor> in, const Params&) {
      return std::vector<Tensor>{reduce_all(f, in[0])};
    }));
  const std::pair<const char*, Fold> dims[] = {{"sum_dim", Fold::sum}, {"max_dim", Fold::max},
                                               {"min_dim", Fold::min}, {"mean_dim", Fold::mean}};
  for (const auto& [name, f] : dims)
    table.push_back(arm(name, 1, {dim}, [f = f, name = name](std::span<const Tensor> in, const Params& p) {
      return std::vector<Tensor>{reduce_dim(f, in[0], checked_dim(name, in[0], p))};
    }));
  for (const bool is_max : {true, false}) {
    const char* name = is_max ? "argmax_dim" : "argmin_dim";
    table.push_back(arm(name, 1, {dim}, [is_max, name](std::span<const Tensor> in, const Params& p) {
      const std::size_t d = checked_dim(name, in[0], p);
      Dims out = in[0].dims();
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
      if (in[0].dims()[d] == 0 && checked_numel(out) > 0)
        throw KernelError(name, "x", Rule::dim_empty, fmt::format("the reduced axis {} has size 0 (no index to return)", d));
      return std::vector<Tensor>{arg_dim(is_max, in[0], d)};
    }));
  }
  for (const auto& [name, f] : {std::pair{"reduce_sum_to", Fold::sum}, std::pair{"reduce_max_to", Fold::max}})
    table.push_back(arm(name, 1, {target}, [f = f, name = name](std::span<const Tensor> in, const Params& p) {
      const Dims& t = p.shape("target");
      check_target_into(name, "target", in[0].dims(), t);
      return std::vector<Tensor>{reduce_to(f, in[0], t)};
    }));
  table.push_back(arm("reduce_max_to_backward", 2, {}, [](std::span<const Tensor> in, const Params&) {
    check_target_into("reduce_max_to_backward", "up", in[0].dims(), in[1].dims());
    return std::vector<Tensor>{reduce_max_to_backward(in[0], in[1])};
  }, {"x", "up"}));
  table.push_back(arm("broadcast_to", 1, {target}, [](std::span<const Tensor> in, const Params& p) {
    const Dims& t = p.shape("target");
    const Dims& s = in[0].dims();
    if (s.size() > t.size())
      throw KernelError("broadcast_to", "target", Rule::target_rank,
                        fmt::format("source rank {} exceeds target rank {}", s.size(), t.size()));
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::size_t j = t.size() - s.size() + i;
      if (s[i] != t[j] && s[i] != 1)
        throw KernelError("broadcast_to", "target", Rule::target_incompatible,
                          fmt::format("source dim {} ({}) cannot broadcast to target dim {} ({})", i, s[i], j, t[j]));
    }
    return std::vector<Tensor>{broadcast_to(in[0], t)};
  }));
}

}  // namespace kc::kern
