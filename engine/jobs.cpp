#include "engine/jobs.h"

#include <cmath>

#include <fmt/format.h>

#include "kernels/shape_math.h"

namespace kc::engine {

namespace {

using contract::Family;

bool is_reduce_all(const contract::KernelSpec& k) { return k.family == Family::reduction && k.params.empty(); }
bool has_param(const contract::KernelSpec& k, std::string_view n) {
  for (const auto& p : k.params)
    if (p.name == n) return true;
  return false;
}

// Cells of a reduction: for each output cell, the input flat indices in increasing order.
std::vector<std::vector<std::int64_t>> cells_of(const Tensor& x, const Dims& out, const std::function<std::int64_t(std::int64_t)>& cell) {
  std::vector<std::vector<std::int64_t>> cells(static_cast<std::size_t>(checked_numel(out)));
  for (std::int64_t i = 0; i < x.numel(); ++i) cells[static_cast<std::size_t>(cell(i))].push_back(i);
  return cells;
}

// Written here rather than shared with kernels/reduce.cpp on purpose: the
// grading side derives which source elements feed each target cell on its
// own, so an index bug in the kernel cannot hide behind the same code.
std::function<std::int64_t(std::int64_t)> target_cell(const Dims& src, const Dims& target) {
  const Dims ss = kern::row_major_strides(src), ts = kern::row_major_strides(target);
  Dims aligned(src.size(), 0);
  for (std::size_t j = 0; j < target.size(); ++j)
    if (target[j] != 1) aligned[src.size() - target.size() + j] = ts[j];
  return [ss, src, aligned](std::int64_t i) {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < src.size(); ++k) o += ((i / ss[k]) % src[k]) * aligned[k];
    return o;
  };
}

Job slice_job(const Tensor& x, std::int64_t o, const std::vector<std::int64_t>& idx, const std::string& what) {
  Job j;
  j.out = o;
  for (std::int64_t i : idx) j.args.push_back(x.value_at(i));
  for (std::size_t s = 0; s < idx.size() && s < 4; ++s) j.shown.push_back(x.bits_at(idx[s]));
  j.where = fmt::format("{} elements ({})", idx.size(), what);
  return j;
}

}  // namespace

bool is_signaling_nan(DType t, std::uint64_t bits) {
  if (!is_float(t) || !std::isnan(bits_to_double(t, bits))) return false;
  const FloatFormat f = float_format(t);
  return ((bits >> (f.precision - 2)) & 1u) == 0;  // quiet bit clear
}

Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) {
  const Tensor& x = c.inputs.at(0);
  const DType out_t = k.out_dtype(x.dtype());
  switch (k.output) {
    case contract::OutputRule::same_shape_same_dtype:
    case contract::OutputRule::same_shape_cast:
    case contract::OutputRule::input_shape: return {x.dims(), out_t};
    case contract::OutputRule::broadcast_shape:
      return {*kern::broadcast_shape(x.dims(), c.inputs.at(1).dims()), out_t};
    case contract::OutputRule::scalar: return {{}, out_t};
    case contract::OutputRule::dim_removed: {
      Dims d = x.dims();
      d.erase(d.begin() + std::get<std::int64_t>(*c.params.find("dim")));
      return {d, out_t};
    }
    case contract::OutputRule::target_shape: {
      const Dims& t = std::get<Dims>(*c.params.find("target"));
      const bool zero_copy = k.layout == contract::Layout::zero_copy_when_pure_padding && is_pure_padding(x.dims(), t);
      return {t, out_t, zero_copy};
    }
  }
  return {x.dims(), out_t};
}

void for_each_job(const contract::KernelSpec& k, const gen::Case& c, const std::function<void(const Job&)>& f) {
  const Tensor& x = c.inputs.at(0);
  switch (k.family) {
    case Family::unary:
    case Family::cast:
      for (std::int64_t i = 0; i < x.numel(); ++i)
        f(Job{i, {x.value_at(i)}, {x.bits_at(i)}, fmt::format("x[{}]", i), true});
      return;
    case Family::binary:
    case Family::broadcast: {
      const Tensor& b = c.inputs.at(1);
      const Dims out = *kern::broadcast_shape(x.dims(), b.dims());
      const kern::BroadcastIndex ia(x.dims(), out), ib(b.dims(), out);
      for (std::int64_t o = 0; o < checked_numel(out); ++o) {
        const std::int64_t i = ia(o), j = ib(o);
        Job job{o, {x.value_at(i), b.value_at(j)}, {x.bits_at(i), b.bits_at(j)}, fmt::format("a[{}], b[{}]", i, j), true};
        job.signaling_nan = is_signaling_nan(x.dtype(), job.shown[0]) || is_signaling_nan(b.dtype(), job.shown[1]);
        f(job);
      }
      return;
    }
    case Family::reduction:
    case Family::reduce_to: break;
  }
  if (is_reduce_all(k)) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(x.numel()));
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    f(slice_job(x, 0, all, "all of x"));
    return;
  }
  if (has_param(k, "dim")) {
    const auto dim = static_cast<std::size_t>(std::get<std::int64_t>(*c.params.find("dim")));
    std::int64_t inner = 1;
    for (std::size_t d = dim + 1; d < x.dims().size(); ++d) inner *= x.dims()[d];
    const std::int64_t len = x.dims()[dim];
    Dims out = x.dims();
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(dim));
    for (std::int64_t o = 0; o < checked_numel(out); ++o) {
      std::vector<std::int64_t> idx;
      const std::int64_t base = (o / inner) * inner * len + o % inner;
      for (std::int64_t kk = 0; kk < len; ++kk) idx.push_back(base + kk * inner);
      f(slice_job(x, o, idx, fmt::format("along dim {} of output cell {}", dim, o)));
    }
    return;
  }
  if (k.name == "broadcast_to") {
    const Dims& t = std::get<Dims>(*c.params.find("target"));
    const kern::BroadcastIndex src(x.dims(), t);
    for (std::int64_t o = 0; o < checked_numel(t); ++o)
      f(Job{o, {x.value_at(src(o))}, {x.bits_at(src(o))}, fmt::format("x[{}]", src(o)), false});
    return;
  }
  const bool backward = c.inputs.size() == 2;
  const Dims target = backward ? c.inputs[1].dims() : std::get<Dims>(*c.params.find("target"));
  const auto cell = target_cell(x.dims(), target);
  const auto cells = cells_of(x, target, cell);
  if (!backward) {
    for (std::size_t o = 0; o < cells.size(); ++o)
      f(slice_job(x, static_cast<std::int64_t>(o), cells[o], fmt::format("of target cell {}", o)));
    return;
  }
  const Tensor& up = c.inputs[1];
  for (std::int64_t i = 0; i < x.numel(); ++i) {
    const auto cc = static_cast<std::size_t>(cell(i));
    Job j = slice_job(x, i, cells[cc], fmt::format("of cell {}", cc));
    j.args.insert(j.args.begin(), {x.value_at(i), up.value_at(static_cast<std::int64_t>(cc))});
    j.shown.insert(j.shown.begin(), {x.bits_at(i), up.bits_at(static_cast<std::int64_t>(cc))});
    j.where = fmt::format("x[{}], up[{}] and the {}", i, cc, j.where);
    f(j);
  }
}

}  // namespace kc::engine
