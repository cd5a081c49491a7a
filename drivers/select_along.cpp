// Driver "select_along": lines along one dim picked from x by a list of
// source coordinates (reference-semantics.md §15, §16): out[.., j, ..] =
// x[.., src(j), ..] with src(j) = start + j (slice), indices[j]
// (index_select: a parameter; index_select_tensor: a rank-1 u32 tensor,
// operand `index`), or ids[j] on dim 0 of a rank-2 table (embedding).
// Duplicate indices copy; an index past the dim is a typed error.
#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/values.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

enum Mode { slice, index_select, index_select_tensor, embedding };

std::int64_t dim_of(Mode m, const Params& p) { return m == embedding ? 0 : p.integer("dim"); }

// The source coordinates along the dim, one per output coordinate.
std::vector<std::int64_t> picks(Mode m, const gen::Case& c) {
  switch (m) {
    case slice: {
      std::vector<std::int64_t> v(static_cast<std::size_t>(c.params.integer("len")));
      for (std::size_t j = 0; j < v.size(); ++j) v[j] = c.params.integer("start") + static_cast<std::int64_t>(j);
      return v;
    }
    case index_select: return c.params.shape("indices");
    case embedding: return c.params.shape("ids");
    case index_select_tensor: {
      const Tensor& idx = c.inputs.at(1);
      std::vector<std::int64_t> v(static_cast<std::size_t>(idx.numel()));
      for (std::size_t j = 0; j < v.size(); ++j) v[j] = static_cast<std::int64_t>(idx.bits_at(static_cast<std::int64_t>(j)));
      return v;
    }
  }
  return {};
}

// Pick j alone (an element's source: picks() builds the whole list).
std::int64_t pick_at(Mode m, const gen::Case& c, std::int64_t j) {
  const auto at = static_cast<std::size_t>(j);
  switch (m) {
    case slice: return c.params.integer("start") + j;
    case index_select: return c.params.shape("indices").at(at);
    case embedding: return c.params.shape("ids").at(at);
    case index_select_tensor: return static_cast<std::int64_t>(c.inputs.at(1).bits_at(j));
  }
  return 0;
}

Dims out_dims(Mode m, const gen::Case& c) {
  Dims d = c.inputs.at(0).dims();
  std::int64_t count = 0;
  switch (m) {
    case slice: count = c.params.integer("len"); break;
    case index_select: count = static_cast<std::int64_t>(c.params.shape("indices").size()); break;
    case embedding: count = static_cast<std::int64_t>(c.params.shape("ids").size()); break;
    case index_select_tensor: count = c.inputs.at(1).numel(); break;
  }
  d[static_cast<std::size_t>(dim_of(m, c.params))] = count;
  return d;
}

Tensor u32_tensor(const Dims& d, const std::vector<std::int64_t>& v) {
  std::vector<std::uint64_t> bits(v.begin(), v.end());
  return gen::tensor_of(DType::u32, d, bits);
}

// The picks v set into c as its mode holds them (slice: start and len of
// consecutive picks).
void set_picks(Mode m, gen::Case& c, const std::vector<std::int64_t>& v) {
  if (m == slice) c.params.set("start", v.empty() ? 0 : v.front()).set("len", static_cast<std::int64_t>(v.size()));
  if (m == index_select) c.params.set("indices", v);
  if (m == embedding) c.params.set("ids", v);
  if (m == index_select_tensor) c.inputs.at(1) = u32_tensor({static_cast<std::int64_t>(v.size())}, v);
}

// count picks from [0, n): the first and last line among them, the others
// uniform (SplitMix64 from seed), in time linear in count.
std::vector<std::int64_t> drawn_picks(std::int64_t count, std::int64_t n, std::uint64_t seed) {
  const std::vector<std::uint64_t> d = drawn_indices(static_cast<std::size_t>(count), static_cast<std::uint64_t>(n), seed);
  std::vector<std::int64_t> v(d.begin(), d.end());
  if (count > 0) v[0] = 0;
  if (count > 1) v[1] = n - 1;
  return v;
}

class SelectAlong final : public Movement {
 public:
  std::string_view name() const override { return "select_along"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    switch (static_cast<Mode>(mode_of(k))) {
      case slice: return "x's dims with `dim` of size len; out[.., j, ..] = x[.., start + j, ..]";
      case index_select: return "x's dims with `dim` of size len(indices); out[.., j, ..] = x[.., indices[j], ..]";
      case index_select_tensor: return "x's dims with `dim` of size len(index); out[.., j, ..] = x[.., index[j], ..]";
      case embedding: return "[len(ids), D]; out[i, :] = table[ids[i], :]";
    }
    return "";
  }

  // Slices of every start and length (empty ones and whole ones
  // included); index lists of 0-8 entries drawn within the dim, duplicates
  // often (a range of a few values); embedding tables [1-64, 0-16].
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(1, 6), rc::gen::container<std::vector<std::uint32_t>>(10, rc::gen::arbitrary<std::uint32_t>()),
                       rc::gen::inRange<std::int64_t>(1, 65), rc::gen::inRange<std::int64_t>(0, 17)),
        [&k, t, m](const std::tuple<Dims, std::vector<std::uint32_t>, std::int64_t, std::int64_t>& g) {
          auto [d, keys, vocab, width] = g;
          if (m == embedding) d = {vocab, width};
          const auto dim = m == embedding ? std::size_t{0} : keys[0] % d.size();
          const std::int64_t n = d[dim];
          Params p;
          if (m != embedding) p.set("dim", static_cast<std::int64_t>(dim));
          if (m == slice) {
            const std::int64_t start = keys[1] % (n + 1);
            p.set("start", start).set("len", static_cast<std::int64_t>(keys[2] % (n - start + 1)));
          }
          std::vector<std::int64_t> idx;
          if (n > 0) {  // (an empty dim takes only an empty list)
            const std::int64_t span = keys[3] % 2 == 0 ? std::min<std::int64_t>(n, 3) : n;  // few distinct: duplicates
            for (std::size_t j = 0; j < keys[4] % 9; ++j) idx.push_back(keys[5 + j % 5] * (j + 1) % span);
          }
          if (m == index_select) p.set("indices", idx);
          if (m == embedding) p.set("ids", idx);
          return rc::gen::map(data_case(k, t, d, p), [m, idx](gen::Case c) {
            if (m == index_select_tensor) c.inputs.push_back(u32_tensor({static_cast<std::int64_t>(idx.size())}, idx));
            return c;
          });
        });
  }

  // The special values' rows, every one picked (in reverse for the index lists).
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    gen::Case c{{*special_matrix(k, t)}, Params(), false};
    const std::int64_t v = c.inputs[0].dims()[0];
    std::vector<std::int64_t> rev;
    for (std::int64_t j = v; j-- > 0;) rev.push_back(j);
    if (m != embedding) c.params.set("dim", std::int64_t{0});
    if (m == slice) c.params.set("start", std::int64_t{0}).set("len", v);
    if (m == index_select) c.params.set("indices", rev);
    if (m == embedding) c.params.set("ids", rev);
    if (m == index_select_tensor) c.inputs.push_back(u32_tensor({v}, rev));
    return c;
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    gen::Case c = valid;
    const Tensor& x = valid.inputs[0];
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    if (r == Rule::dim_out_of_range) return dim_past_rank(valid, index);
    const std::int64_t n = x.rank() > 0 ? x.dims()[static_cast<std::size_t>(dim_of(m, valid.params))] : 0;
    if (r == Rule::range_out_of_bounds) {  // past the end by 1 + index, by a long len or a start beyond the dim
      if (index % 2 == 0) c.params.set("start", std::int64_t{0}).set("len", n + 1 + i);
      else c.params.set("start", n + 1 + i).set("len", std::int64_t{0});
      return c;
    }
    if (r == Rule::index_out_of_range) {  // one index at the dim's size + index (the others valid)
      std::vector<std::int64_t> idx = picks(m, valid);
      idx.push_back(n + i);
      set_picks(m, c, idx);
      return c;
    }
    if (r == Rule::index_rank) {  // an index of rank 2, or rank 0
      c.inputs[1] = index % 2 == 0 ? gen::zeros(DType::u32, {1, 1 + i}) : gen::zeros(DType::u32, {});
      return c;
    }
    if (r == Rule::dtype_unsupported && rule.operand == "index") {  // a float index tensor
      c.inputs[1] = gen::zeros(index % 2 == 0 ? DType::f32 : DType::f64, valid.inputs[1].dims());
      return c;
    }
    if (r == Rule::rank_exact) {  // a table of rank 1 or 3
      c.inputs[0] = gen::zeros(x.dtype(), index % 2 == 0 ? Dims{4 + i} : Dims{2, 2, 1 + i});
      return c;
    }
    return std::nullopt;
  }

  // Halves of x's axes other than the dim (the picks stay valid); the
  // first or second half of the picks.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    const auto dim = static_cast<std::size_t>(dim_of(m, c.params));
    std::vector<std::size_t> axes;
    for (std::size_t a = 0; a < c.inputs[0].dims().size(); ++a)
      if (a != dim) axes.push_back(a);
    std::vector<gen::Case> out = halves(c, 0, axes);
    const std::vector<std::int64_t> all = picks(m, c);
    // x cut along the dim to the lines the picks read (a prefix of them: the picks stay valid).
    std::int64_t top = -1;
    for (std::int64_t v : all) top = std::max(top, v);
    if (m != slice && top + 1 < c.inputs[0].dims()[dim]) {
      gen::Case s = c;
      s.inputs[0] = gen::sliced(c.inputs[0], dim, 0, top + 1);
      out.insert(out.begin(), std::move(s));
    }
    // The first half of the lines below the lowest pick dropped, the picks renumbered.
    std::int64_t low = top;
    for (std::int64_t v : all) low = std::min(low, v);
    if (m != slice && low >= 2) {
      std::vector<std::int64_t> moved = all;
      for (auto& v : moved) v -= low / 2;
      gen::Case s = c;
      s.inputs[0] = gen::sliced(c.inputs[0], dim, low / 2, c.inputs[0].dims()[dim] - low / 2);
      set_picks(m, s, moved);
      out.insert(out.begin(), std::move(s));
    }
    if (all.size() < 2) return out;
    for (const bool first : {true, false}) {
      const std::size_t h = all.size() / 2;
      const std::vector<std::int64_t> part = first ? std::vector(all.begin(), all.begin() + h)
                                                   : std::vector(all.begin() + h, all.end());
      gen::Case s = c;
      set_picks(m, s, part);
      out.push_back(std::move(s));
    }
    return out;
  }

  // The main axis: the dim the lines are picked along (x [2, n], dim 1;
  // embedding: a table of n rows of 16), every line picked (slice: all but
  // the first), in a scattered order for the index lists.
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    std::vector<std::int64_t> v(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) v[static_cast<std::size_t>(j)] = (j * 7919 + 1) % n;
    Params p;
    if (m == slice) p.set("start", std::int64_t{n > 1}).set("len", n - (n > 1));
    if (m == index_select) p.set("indices", v);
    if (m == embedding) return all_given({{n, 16}}, p.set("ids", v));
    p.set("dim", std::int64_t{1});  // (index_select_tensor's index values are drawn: picked())
    return all_given(m == index_select_tensor ? std::vector<Dims>{{2, n}, {n}} : std::vector<Dims>{{2, n}}, p);
  }
  // A line's picks left out are drawn (dim: the last axis): a slice from
  // start (default 0) to the end; index lists of the dim's size; 512 ids
  // (a prefill's tokens); index's values for its given length. Each pick
  // within the dim.
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = dim_error(k, s); !e.empty()) return e;
    const Mode m = static_cast<Mode>(mode_of(k));
    const gen::Case c = picked(m, s, 0);
    const std::int64_t n = s.dims[0][static_cast<std::size_t>(dim_of(m, c.params))];
    if (m == slice && (c.params.integer("start") < 0 || c.params.integer("len") < 0 || c.params.integer("start") + c.params.integer("len") > n))
      return fmt::format("{}: start {} and len {} pass the dim's {} lines", k.name, c.params.integer("start"), c.params.integer("len"), n);
    for (std::int64_t v : picks(m, c))
      if (v < 0 || v >= n) return fmt::format("{}: pick {} is outside the dim's {} lines", k.name, v, n);
    return {};
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = picked(static_cast<Mode>(mode_of(k)), s, seed);
    c.inputs[0] = gen::tensor_of(t, s.dims[0], uniform_values(t, static_cast<std::size_t>(checked_numel(s.dims[0])), seed));
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {out_dims(static_cast<Mode>(mode_of(k)), c), k.out_dtype(c.inputs.at(0).dtype())};
  }

 private:
  // s's parameters with the picks a line leaves out drawn (shaped_error),
  // x's dims a placeholder's (the values come after the check).
  static gen::Case picked(Mode m, const Shaped& s, std::uint64_t seed) {
    gen::Case c{{Tensor(DType::f32, {}), Tensor(DType::u32, {})}, m == embedding ? s.params : with_dim(s), false};
    if (m != index_select_tensor) c.inputs.pop_back();
    const std::int64_t n = s.dims[0][static_cast<std::size_t>(dim_of(m, c.params))];
    if (m == slice && !c.params.has("start")) c.params.set("start", std::int64_t{0});
    if (m == slice && !c.params.has("len")) c.params.set("len", n - c.params.integer("start"));
    if (m == index_select && !c.params.has("indices")) c.params.set("indices", drawn_picks(n, n, seed));
    if (m == embedding && !c.params.has("ids")) c.params.set("ids", drawn_picks(n > 0 ? 512 : 0, n, seed));
    if (m == index_select_tensor) set_picks(m, c, drawn_picks(n > 0 && s.dims[1].size() == 1 ? s.dims[1][0] : 0, n, seed));
    return c;
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"slice", slice},
                                                   {"index_select", index_select},
                                                   {"index_select_tensor", index_select_tensor},
                                                   {"embedding", embedding}};
    return m;
  }
  Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    const auto dim = static_cast<std::size_t>(dim_of(m, c.params));
    std::vector<std::int64_t> at = coords_of(out_dims(m, c), o);
    at[dim] = pick_at(m, c, at[dim]);
    return Source::of(0, flat_of(c.inputs.at(0).dims(), at));
  }
};

}  // namespace

void register_select_along(Registry& r) { r.push_back(std::make_unique<SelectAlong>()); }

}  // namespace kc::drivers
