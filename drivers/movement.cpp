#include "drivers/movement.h"

#include <fmt/format.h>

#include "drivers/folds.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

std::string Movement::check_entry(const contract::KernelSpec& k) const {
  if (!modes().contains(k.name))
    return fmt::format("driver '{}' has no index model for kernel '{}' (it models {})", name(), k.name, [&] {
      std::string s;
      for (const auto& [n, _] : modes()) s += (s.empty() ? "" : ", ") + std::string(n);
      return s;
    }());
  return expects_input<oracle::Scalar>(k, name());
}

bool Movement::element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const {
  const Source s = source(k, c, o);
  e.out = o;
  e.replayable = false;
  e.shown.resize(1);
  e.names.clear();
  oracle::Scalar in{context_of(k, c)};
  if (s.operand < 0) {
    in.x = s.fill;
    e.in = in;
    e.shown[0] = double_to_bits_exact(in.ctx.out_dtype, s.fill);
    e.where = fmt::format("the fill value: {}", s.fill_name);
    return true;
  }
  const Tensor& x = c.inputs.at(static_cast<std::size_t>(s.operand));
  in.x = x.value_exact_at(s.index);
  e.shown[0] = x.bits_at(s.index);
  in.ctx.signaling_nan = is_signaling_nan(x.dtype(), e.shown[0]);
  e.in = in;
  e.where = fmt::format("{}[{}]", k.inputs.at(static_cast<std::size_t>(s.operand)).name, s.index);
  return true;
}

void Movement::for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                                const std::function<void(const Element&)>& f) const {
  each_element_at(k, c, checked_numel(expected_output(k, c).dims()), f);
}

std::vector<std::int64_t> coords_of(const Dims& d, std::int64_t i) {
  std::vector<std::int64_t> c(d.size());
  for (std::size_t a = d.size(); a-- > 0;) {
    c[a] = d[a] == 0 ? 0 : i % d[a];
    i = d[a] == 0 ? 0 : i / d[a];
  }
  return c;
}

std::int64_t flat_of(const Dims& d, const std::vector<std::int64_t>& coords) {
  std::int64_t i = 0;
  for (std::size_t a = 0; a < d.size(); ++a) i = i * d[a] + coords[a];
  return i;
}

std::optional<Tensor> special_matrix(const contract::KernelSpec& k, DType t) {
  if (!is_float(t)) return std::nullopt;
  const std::vector<std::uint64_t> v = sweep_values(k, t);
  std::vector<std::uint64_t> two;
  for (auto b : v) two.insert(two.end(), {b, b ^ 1});
  return gen::tensor_of(t, {static_cast<std::int64_t>(v.size()), 2}, two);
}

rc::Gen<gen::Case> data_case(const contract::KernelSpec& k, DType t, const Dims& d, Params p) {
  return rc::gen::map(gen::values_for(t, k.values, static_cast<std::size_t>(checked_numel(d))),
                      [t, d, p](const std::vector<std::uint64_t>& v) {
                        return gen::Case{{gen::tensor_of(t, d, v)}, p, false};
                      });
}

gen::Case dim_past_rank(const gen::Case& valid, std::uint64_t index, std::int64_t extra) {
  gen::Case c = valid;
  c.params.set("dim", static_cast<std::int64_t>(valid.inputs.at(0).rank()) + extra + static_cast<std::int64_t>(index));
  return c;
}

std::vector<gen::Case> halves(const gen::Case& c, std::size_t input, std::vector<std::size_t> axes) {
  const Tensor& x = c.inputs.at(input);
  if (axes.empty())
    for (std::size_t a = 0; a < x.dims().size(); ++a) axes.push_back(a);
  std::vector<gen::Case> out;
  for (std::size_t a : axes) {
    const std::int64_t d = x.dims()[a];
    if (d < 2) continue;
    for (const auto& [start, len] : {std::pair{std::int64_t{0}, d / 2}, std::pair{d / 2, d - d / 2}}) {
      gen::Case s = c;
      s.inputs[input] = gen::sliced(x, a, start, len);
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace kc::drivers
