// Driver "reduce_backward": the backward of a reduce-to-shape. Inputs x and
// an upstream gradient `up` whose shape is the reduction's target; one
// output element per x element, depending on x_i, up at i's cell, and the
// whole cell (reduce_max_to_backward: which elements tie for the maximum).
#include <fmt/format.h>

#include "drivers/shrinking.h"
#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "drivers/index_maps.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class ReduceBackward final : public Driver {
 public:
  std::string_view name() const override { return "reduce_backward"; }
  std::string output_rule(const contract::KernelSpec&) const override { return "one output of x's shape, same dtype"; }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 2); !e.empty()) return e;
    return expects_input<oracle::CellElement>(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(gen::shape(k.inputs[0].min_rank, 6), [&k, t](Dims d) {
      auto xs = gen::reduction_values(t, k.values, static_cast<std::size_t>(checked_numel(d)));
      return rc::gen::mapcat(gen::compatible_sub_shape(d), [t, d, xs, &k](Dims target) {
        const auto nt = static_cast<std::size_t>(checked_numel(target));
        return rc::gen::apply(
            [t, d, target](const std::vector<std::uint64_t>& v, const std::vector<std::uint64_t>& up) {
              return gen::Case{{gen::tensor_of(t, d, v), gen::tensor_of(t, target, up)}, {}, false};
            },
            xs, gen::values_for(t, k.values, nt));
      });
    });
  }

  // Every ordered pair of the special values and thresholds as a cell, its
  // upstream value cycling through them too.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const auto v = sweep_values(k, t);
    Tensor x = all_pairs(t, v);
    Tensor up(t, {x.dims()[0], 1});
    for (std::int64_t i = 0; i < up.numel(); ++i) up.set_bits(i, v[static_cast<std::size_t>(i) % v.size()]);
    return gen::Case{{std::move(x), std::move(up)}, {}, false};
  }

  // `up` of higher rank than x; a dim of `up` that is neither x's nor 1.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const DType t = valid.inputs.front().dtype();
    if (rule.rule == Rule::target_rank) c.inputs.at(1) = gen::zeros(t, gen::higher_rank_shape(c, index));
    else if (rule.rule == Rule::target_incompatible) c.inputs.at(1) = gen::zeros(t, gen::incompatible_shape(c, index));
    else return std::nullopt;
    return c;
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0, 1}}, false);
  }

  // The main axis: the folded one (x [n, 2], up [2]: each output routes
  // its cell of n elements' gradient); x and up uniform on [-1, 1].
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{n, 2}, {2}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    const std::string e = target_error(s.dims.at(0), s.dims.at(1));
    return e.empty() ? e : fmt::format("{}: {}: {}", k.name, operand_text(k, s, 1), e);
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_case(s, {t, t}, seed);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  // The element: x_i, up_c, the cell's elements in source order, and the
  // cell's maximum and its ties. Each cell's element (its values, maximum,
  // shown bits, words, its Row-like fill) is built once, at its first
  // member, and kept: a member sets only x, up and what names it (a cell of
  // n elements copied per member made a cell n^2 copies). Elements come in
  // x's order.
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    const Tensor& up = c.inputs.at(1);
    const Cells cells = cells_of(x.dims(), up.dims());
    std::vector<std::optional<Element>> cell_elements(cells.members.size());
    std::vector<std::string> cell_where(cells.members.size());
    for (std::int64_t i = 0, n = x.numel(); i < n; ++i) {
      const auto cc = static_cast<std::size_t>(cells.cell_of[static_cast<std::size_t>(i)]);
      if (!cell_elements[cc]) cell_elements[cc] = cell_element_of(k, c, cells.members[cc], cc, cell_where[cc]);
      Element& e = *cell_elements[cc];
      oracle::CellElement& in = std::get<oracle::CellElement>(e.in);
      in.x = x.value_exact_at(i);
      in.up = up.value_exact_at(static_cast<std::int64_t>(cc));
      e.out = i;
      e.shown[0] = x.bits_at(i);
      e.shown[1] = up.bits_at(static_cast<std::int64_t>(cc));
      e.where = fmt::format("x[{}], up[{}] and the {}", i, cc, cell_where[cc]);
      f(e);
    }
  }

 private:
  // The cell, its maximum and its ties by exact comparisons of the doubles
  // (every dtype embeds exactly): NaN > y is false, so a NaN is skipped by
  // the maximum, as the MPFR comparison skipped it.
  static void cell_maximum(const std::vector<double>& cell, oracle::CellElement& in) {
    in.cell = cell;
    in.cell_max = -INFINITY;
    for (double v : cell)
      if (v > in.cell_max) in.cell_max = v;
    in.ties = 0;
    for (double v : cell) in.ties += v == in.cell_max;
  }
  // Cell cc's element, its x and up still to be set: shown = x's bits, up's,
  // then the cell's; `where` gets the cell's description.
  Element cell_element_of(const contract::KernelSpec& k, const gen::Case& c, const std::vector<std::int64_t>& members,
                          std::size_t cc, std::string& where) const {
    const Tensor& x = c.inputs.at(0);
    const Tensor& up = c.inputs.at(1);
    const Element base = cell_element(context_of(k, c), x, 0, members, fmt::format("of cell {}", cc));
    oracle::CellElement in;
    in.ctx = base.input<oracle::Terms>().ctx;
    in.ctx.signaling_nan |= is_signaling_nan(up.dtype(), up.bits_at(static_cast<std::int64_t>(cc)));
    cell_maximum(base.input<oracle::Terms>().terms, in);
    in.fill = oracle::next_fill();
    Element e;
    e.in = std::move(in);
    e.shown.assign({0, 0});
    e.shown.insert(e.shown.end(), base.shown.begin(), base.shown.end());
    where = base.where;
    return e;
  }
};

}  // namespace

void register_reduce_backward(Registry& r) { r.push_back(std::make_unique<ReduceBackward>()); }

}  // namespace kc::drivers
