#include "generators/invalid.h"

#include <cstdint>
#include <cstring>

#include <string>

namespace kc::gen {

Tensor with_bytes(const Tensor& t, DType dtype, Dims dims, std::size_t n_bytes) {
  std::vector<std::byte> bytes(n_bytes);
  const std::size_t keep = std::min(n_bytes, t.byte_size());
  if (keep > 0) std::memcpy(bytes.data(), t.bytes(), keep);
  return Tensor::from_bytes_unchecked(dtype, std::move(dims), std::move(bytes));
}

Tensor zeros(DType t, Dims d) { return Tensor(t, std::move(d)); }

Dims incompatible_shape(Case& c, std::uint64_t index) {
  const Dims& d = c.inputs.front().dims();
  for (std::size_t k = 0; k < d.size(); ++k) {
    const std::size_t i = (k + index) % d.size();
    if (d[i] != 1) {
      Dims out = d;
      out[i] = d[i] + 2;
      return out;
    }
  }
  c.inputs.front() = zeros(c.inputs.front().dtype(), {2});
  return {4};
}

Dims higher_rank_shape(const Case& c, std::uint64_t index) {
  Dims d = c.inputs.front().dims();
  d.insert(d.begin(), 2 + static_cast<std::int64_t>(index));
  return d;
}

namespace {

// violate_shared's rules on a tensor operand (a negative dim, the buffer's
// size, its dtype); nullopt for the other rules.
std::optional<Case> violate_tensor(const contract::KernelSpec& k, const contract::Precondition& rule, const Case& valid,
                                   std::uint64_t index) {
  Case c = valid;
  const Rule r = rule.rule;
  const Tensor& x = valid.inputs.front();
  // The tensor rules break the operand they name (the first input where
  // the name is not an input's).
  const int named = k.operand_index(rule.operand);
  const std::size_t at = named > 0 && static_cast<std::size_t>(named) < valid.inputs.size() ? static_cast<std::size_t>(named) : 0;
  const Tensor& xo = at < valid.inputs.size() ? valid.inputs[at] : x;
  if (r == Rule::shape_negative_dim) {
    Dims d = xo.dims();
    if (d.empty()) d.push_back(1);
    d[index % d.size()] = -1 - static_cast<std::int64_t>(index % 3);
    c.inputs.at(at) = with_bytes(xo, xo.dtype(), d, xo.byte_size());
    return c;
  }
  if (r == Rule::buffer_size) {
    const std::size_t w = dtype_size(xo.dtype());
    const std::size_t need = xo.byte_size();
    const std::size_t delta = 1 + index % (2 * w);
    // Alternate a short buffer (when there is anything to cut) and a long one.
    const std::size_t n = (index % 2 == 0 && need >= delta) ? need - delta : need + delta;
    c.inputs.at(at) = with_bytes(xo, xo.dtype(), xo.dims(), n);
    return c;
  }
  if (r == Rule::dtype_unsupported) {
    std::vector<DType> rejected;
    for (DType t : kAllDTypes)
      if (!k.inputs.at(at).dtypes.contains(t)) rejected.push_back(t);
    if (rejected.empty()) return std::nullopt;
    const DType t = rejected[index % rejected.size()];
    c.inputs.at(at) = with_bytes(xo, t, xo.dims(), static_cast<std::size_t>(xo.numel()) * dtype_size(t));
    return c;
  }
  if (r == Rule::dtype_mismatch) {  // the named operand gets another float dtype than the first
    const int at = k.operand_index(rule.operand);
    if (at <= 0 || static_cast<std::size_t>(at) >= valid.inputs.size()) return std::nullopt;
    const std::vector<DType> others = kFloatSet.list();
    DType o = others[index % others.size()];
    if (o == x.dtype()) o = others[(index + 1) % others.size()];
    c.inputs[static_cast<std::size_t>(at)] = zeros(o, valid.inputs[static_cast<std::size_t>(at)].dims());
    return c;
  }
  return std::nullopt;
}

// violate_shared's rules on a parameter (missing, of the wrong type, out
// of its domain); nullopt for the other rules.
std::optional<Case> violate_param(const contract::KernelSpec& k, const contract::Precondition& rule, const Case& valid,
                                  std::uint64_t index) {
  Case c = valid;
  const Rule r = rule.rule;
  const contract::Param* spec = k.param(rule.operand);
  if (!spec) return std::nullopt;
  const std::string param(rule.operand);
  if (r == Rule::param_missing) {
    Params p;
    for (const auto& [name, v] : valid.params.values())
      if (name != param) p.set(name, v);
    c.params = p;
    return c;
  }
  if (r == Rule::param_type) {
    if (spec->kind == contract::ParamKind::integer) c.params.set(param, 1.5 + static_cast<double>(index));
    else c.params.set(param, static_cast<std::int64_t>(index));
    return c;
  }
  if (r == Rule::param_domain && spec->kind == contract::ParamKind::integer) {
    // Alternate past either end; a side left open (INT64_MAX or INT64_MIN:
    // no bound there) has nothing past it, so only the bounded side is used.
    const bool above_open = spec->max > INT64_MAX - 1024, below_open = spec->min < INT64_MIN + 1024;
    if (above_open && below_open) return std::nullopt;
    const bool above = below_open || (!above_open && index % 2 == 0);
    const auto off = static_cast<std::int64_t>((index / 2) % 1024);
    c.params.set(param, above ? spec->max + 1 + off : spec->min - 1 - off);
    return c;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Case> violate_shared(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const Case& valid, std::uint64_t index) {
  Case c = valid;
  const Rule r = rule.rule;
  const Tensor& x = valid.inputs.front();
  if (r == Rule::arity) {
    if (index % 2 == 0) c.inputs.clear();
    else c.inputs.push_back(x);
    return c;
  }
  if (r == Rule::shape_negative_dim && k.param(rule.operand) && k.param(rule.operand)->kind == contract::ParamKind::shape) {
    // A shape parameter (a target, an index list) with a negative entry.
    std::vector<std::int64_t> v = valid.params.has(std::string(rule.operand)) ? valid.params.shape(std::string(rule.operand))
                                                                               : std::vector<std::int64_t>{};
    v.push_back(-1 - static_cast<std::int64_t>(index % 3));
    c.params.set(std::string(rule.operand), v);
    return c;
  }
  // (a rule of neither kind, or one with nothing to break, is nullopt from both)
  if (std::optional<Case> t = violate_tensor(k, rule, valid, index)) return t;
  return violate_param(k, rule, valid, index);
}

}  // namespace kc::gen
