// Driver "concat": a then b along `dim` (reference-semantics.md §15): equal
// ranks and equal dims off `dim`; out[.., j, ..] = a[.., j, ..] for j <
// a.shape[dim], else b[.., j - a.shape[dim], ..].
#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/values.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class Concat final : public Movement {
 public:
  std::string_view name() const override { return "concat"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "a's dims with `dim` of size a.shape[dim] + b.shape[dim]; a's lines along dim, then b's";
  }

  // A frame of rank >= 1, a dim, and each operand's own size along it (0-8:
  // empty parts included); b's values from the same profile.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(1, 5), rc::gen::arbitrary<std::uint32_t>(), rc::gen::inRange<std::int64_t>(0, 9),
                       rc::gen::inRange<std::int64_t>(0, 9)),
        [&k, t](const std::tuple<Dims, std::uint32_t, std::int64_t, std::int64_t>& g) {
          const auto& [frame, key, na, nb] = g;
          const std::size_t dim = key % frame.size();
          Dims f = frame;  // (the larger part within the element budget, the other dims shared)
          f[dim] = std::max<std::int64_t>({na, nb, 1});
          f = gen::capped(f);
          Dims da = f, db = f;
          da[dim] = std::min(na, f[dim]), db[dim] = std::min(nb, f[dim]);
          const auto sb = static_cast<std::size_t>(checked_numel(db));
          return rc::gen::map(rc::gen::pair(data_case(k, t, da, Params().set("dim", static_cast<std::int64_t>(dim))),
                                            gen::values_for(t, k.values, sb)),
                              [t, db](const std::pair<gen::Case, std::vector<std::uint64_t>>& p) {
                                gen::Case c = p.first;
                                c.inputs.push_back(gen::tensor_of(t, db, p.second));
                                return c;
                              });
        });
  }

  // The special values as a and as b, side by side along dim 1.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor m = *special_matrix(k, t);
    return gen::Case{{m, m}, Params().set("dim", std::int64_t{1}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor &a = valid.inputs[0], &b = valid.inputs[1];
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    if (r == Rule::arity) {  // one input, or three
      if (index % 2 == 0) c.inputs.pop_back();
      else c.inputs.push_back(b);
      return c;
    }
    if (r == Rule::rank_mismatch) {  // b with a leading axis more
      Dims d = b.dims();
      d.insert(d.begin(), 1 + i);
      c.inputs[1] = gen::zeros(b.dtype(), d);
      return c;
    }
    if (r == Rule::dim_out_of_range) return dim_past_rank(valid, index);
    if (r == Rule::shape_mismatch) {  // an axis off `dim` one (or more) longer in b; rank 2 at least
      const std::int64_t dim = valid.params.integer("dim");
      if (a.rank() < 2) {
        c.inputs = {gen::zeros(a.dtype(), {2, 3}), gen::zeros(a.dtype(), {2, 3})};
        c.params.set("dim", std::int64_t{0});
      }
      Dims d = c.inputs[1].dims();
      const std::size_t off = a.rank() < 2 ? 1 : (static_cast<std::size_t>(dim) + 1) % d.size();
      d[off] += 1 + i;
      c.inputs[1] = gen::zeros(c.inputs[1].dtype(), d);
      return c;
    }
    return std::nullopt;
  }

  // Both operands halved along an axis off `dim`; either halved along `dim`.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<gen::Case> out;
    for (std::size_t a = 0; a < c.inputs[0].dims().size(); ++a) {
      const std::int64_t d = c.inputs[0].dims()[a];
      if (a == dim || d < 2) continue;
      for (const auto& [start, len] : {std::pair{std::int64_t{0}, d / 2}, std::pair{d / 2, d - d / 2}}) {
        gen::Case s = c;
        for (auto& x : s.inputs) x = gen::sliced(x, a, start, len);
        out.push_back(std::move(s));
      }
    }
    for (std::size_t in = 0; in < 2; ++in)
      for (auto& s : halves(c, in, {dim})) out.push_back(std::move(s));
    return out;
  }

  // The main axis: `dim`'s (a [2, n] then b [2, n/2 + 1] along dim 1: b
  // starts off any block boundary of the output); values the profile's.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{2, n}, {2, n / 2 + 1}}, Params().set("dim", std::int64_t{1}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = dim_error(k, s); !e.empty()) return e;
    const Dims &a = s.dims.at(0), &b = s.dims.at(1);
    const auto dim = static_cast<std::size_t>(with_dim(s).integer("dim"));
    bool same = a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i) same = i == dim || a[i] == b[i];
    return same ? "" : fmt::format("{}: {} and {} differ off dim {}", k.name, operand_text(k, s, 0), operand_text(k, s, 1), dim);
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = profile_along_dim(k, s, t, seed);
    const Dims& b = s.dims[1];
    c.inputs.push_back(gen::tensor_of(t, b, shaped_values(t, k.values, static_cast<std::size_t>(checked_numel(b)), seed + 1)));
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    Dims d = c.inputs.at(0).dims();
    d[static_cast<std::size_t>(c.params.integer("dim"))] += c.inputs.at(1).dims()[static_cast<std::size_t>(c.params.integer("dim"))];
    return {d, k.out_dtype(c.inputs.at(0).dtype())};
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"concat", 0}};
    return m;
  }
  Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const override {
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<std::int64_t> at = coords_of(expected_output(k, c).dims(), o);
    const std::int64_t na = c.inputs[0].dims()[dim];
    if (at[dim] < na) return Source::of(0, flat_of(c.inputs[0].dims(), at));
    at[dim] -= na;
    return Source::of(1, flat_of(c.inputs[1].dims(), at));
  }
};

}  // namespace

void register_concat(Registry& r) { r.push_back(std::make_unique<Concat>()); }

}  // namespace kc::drivers
