#include "generators/invalid.h"

#include <string>

namespace kc::gen {

namespace {

Tensor with_bytes(const Tensor& t, DType dtype, Dims dims, std::size_t n_bytes) {
  std::vector<std::byte> bytes(n_bytes);
  const std::size_t keep = std::min(n_bytes, t.byte_size());
  for (std::size_t i = 0; i < keep; ++i) bytes[i] = t.bytes()[i];
  return Tensor::from_bytes_unchecked(dtype, std::move(dims), std::move(bytes));
}

Tensor zeros(DType t, Dims d) { return Tensor(t, std::move(d)); }

// A dims list where axis `i` of `d` is replaced by something neither equal nor 1.
std::optional<Dims> incompatible_with(const Dims& d, std::uint64_t index) {
  for (std::size_t k = 0; k < d.size(); ++k) {
    const std::size_t i = (k + index) % d.size();
    if (d[i] != 1) {
      Dims out = d;
      out[i] = d[i] + 2;
      return out;
    }
  }
  return std::nullopt;
}

// Rules of the binary and reduction families.
std::optional<Case> violate_family(const std::string& r, const std::string& operand, const Case& valid,
                                   std::uint64_t index) {
  Case c = valid;
  const Tensor& x = valid.inputs.front();
  const DType t = x.dtype();
  const auto k = static_cast<std::int64_t>(index);
  if (r == "dtype.mismatch") {
    const DType others[] = {DType::f32, DType::f64, DType::bf16, DType::f16};
    DType o = others[index % 4];
    if (o == t) o = others[(index + 1) % 4];
    c.inputs.at(1) = zeros(o, valid.inputs.at(1).dims());
    return c;
  }
  if (r == "shape.mismatch") {
    Dims d = x.dims();
    if (d.empty() || index % 2) d.push_back(2 + k);
    else d[0] += 1 + k;
    c.inputs.at(1) = zeros(t, d);
    return c;
  }
  if (r == "broadcast.incompatible") {
    c.inputs = {zeros(t, {2 + k}), zeros(t, {3 + k})};
    if (index % 2) c.inputs = {zeros(t, {4, 2 + k}), zeros(t, {5 + k, 1})};
    return c;
  }
  if (r == "dim.out_of_range") {
    c.params.set("dim", std::int64_t{x.rank()} + k);
    return c;
  }
  if (r == "dim.empty") {
    c.inputs = {zeros(t, {2 + k, 0})};
    c.params.set("dim", std::int64_t{1});
    return c;
  }
  const bool backward = operand == "up";
  const bool into_target = operand == "target" && valid.params.has("target") &&
                           std::get<Dims>(*valid.params.find("target")).size() <= x.dims().size() && !backward;
  auto set_target = [&](Dims d) {
    if (backward) c.inputs.at(1) = zeros(t, d);
    else c.params.set("target", d);
  };
  if (r == "target.rank") {
    // reduce_*_to (and backward): a target of higher rank than x; broadcast_to: a source of higher rank.
    if (backward || into_target || x.rank() == 0) {
      Dims d = x.dims();
      d.insert(d.begin(), 2 + k);
      if (!backward && !into_target) {  // broadcast_to of a rank-0 x: give x rank 2, target rank 1
        c.inputs = {zeros(t, {2, 3})};
        d = {3};
      }
      set_target(d);
    } else {
      Dims d(x.dims().begin() + 1, x.dims().end());
      set_target(d);
    }
    return c;
  }
  if (r == "target.incompatible") {
    auto bad = incompatible_with(x.dims(), index);
    if (!bad) {
      c.inputs.front() = zeros(t, {2});
      bad = Dims{4};
    }
    // The same shape breaks both directions: for reduce_*_to a target dim
    // that is neither x's nor 1; for broadcast_to an x dim that is neither
    // the target's nor 1 (the dim raised by 2 is never 1).
    set_target(*bad);
    return c;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule, const Case& valid,
                            std::uint64_t index) {
  Case c = valid;
  const std::string r(rule.rule);
  const Tensor& x = valid.inputs.front();
  if (r == "arity") {
    if (index % 2 == 0) c.inputs.clear();
    else c.inputs.push_back(x);
    return c;
  }
  if (r == "shape.negative_dim") {
    Dims d = x.dims();
    if (d.empty()) d.push_back(1);
    d[index % d.size()] = -1 - static_cast<std::int64_t>(index % 3);
    c.inputs.front() = with_bytes(x, x.dtype(), d, x.byte_size());
    return c;
  }
  if (r == "buffer.size") {
    const std::size_t w = dtype_size(x.dtype());
    const std::size_t need = x.byte_size();
    const std::size_t delta = 1 + index % (2 * w);
    // Alternate a short buffer (when there is anything to cut) and a long one.
    const std::size_t n = (index % 2 == 0 && need >= delta) ? need - delta : need + delta;
    c.inputs.front() = with_bytes(x, x.dtype(), x.dims(), n);
    return c;
  }
  if (r == "dtype.unsupported") {
    std::vector<DType> rejected;
    for (DType t : kAllDTypes)
      if (!k.inputs.front().dtypes.contains(t)) rejected.push_back(t);
    if (rejected.empty()) return std::nullopt;
    const DType t = rejected[index % rejected.size()];
    c.inputs.front() = with_bytes(x, t, x.dims(), static_cast<std::size_t>(x.numel()) * dtype_size(t));
    return c;
  }
  if (auto f = violate_family(r, std::string(rule.operand), valid, index)) return f;
  const std::string param(rule.operand);
  const contract::Param* spec = nullptr;
  for (const auto& p : k.params)
    if (p.name == param) spec = &p;
  if (!spec) return std::nullopt;
  if (r == "param.missing") {
    Params p;
    for (const auto& [name, v] : valid.params.values())
      if (name != param) p.set(name, v);
    c.params = p;
    return c;
  }
  if (r == "param.type") {
    if (spec->kind == contract::ParamKind::integer) c.params.set(param, 1.5 + static_cast<double>(index));
    else c.params.set(param, static_cast<std::int64_t>(index));
    return c;
  }
  if (r == "param.domain" && spec->kind == contract::ParamKind::integer) {
    const auto off = static_cast<std::int64_t>(index / 2);
    c.params.set(param, index % 2 == 0 ? spec->max + 1 + off : spec->min - 1 - off);
    return c;
  }
  return std::nullopt;
}

}  // namespace kc::gen
