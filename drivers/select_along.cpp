// Driver "select_along": lines along one dim picked from x by a list of
// source coordinates (reference-semantics.md §15, §16): out[.., j, ..] =
// x[.., src(j), ..] with src(j) = start + j (slice), indices[j]
// (index_select: a parameter; index_select_tensor: a rank-1 u32 tensor,
// operand `index`), or ids[j] on dim 0 of a rank-2 table (embedding).
// Duplicate indices copy; an index past the dim is a typed error.
#include <fmt/format.h>

#include "drivers/movement.h"
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

Dims out_dims(Mode m, const gen::Case& c) {
  Dims d = c.inputs.at(0).dims();
  d[static_cast<std::size_t>(dim_of(m, c.params))] = static_cast<std::int64_t>(picks(m, c).size());
  return d;
}

Tensor u32_tensor(const Dims& d, const std::vector<std::int64_t>& v) {
  std::vector<std::uint64_t> bits(v.begin(), v.end());
  return gen::tensor_of(DType::u32, d, bits);
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
      if (m == index_select) c.params.set("indices", idx);
      if (m == embedding) c.params.set("ids", idx);
      if (m == index_select_tensor) c.inputs[1] = u32_tensor({static_cast<std::int64_t>(idx.size())}, idx);
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
      if (m == index_select) s.params.set("indices", moved);
      if (m == embedding) s.params.set("ids", moved);
      if (m == index_select_tensor) s.inputs[1] = u32_tensor({static_cast<std::int64_t>(moved.size())}, moved);
      out.insert(out.begin(), std::move(s));
    }
    if (all.size() < 2) return out;
    for (const bool first : {true, false}) {
      const std::size_t h = all.size() / 2;
      const std::vector<std::int64_t> part = first ? std::vector(all.begin(), all.begin() + h)
                                                   : std::vector(all.begin() + h, all.end());
      gen::Case s = c;
      if (m == slice) s.params.set("start", part.front()).set("len", static_cast<std::int64_t>(part.size()));
      if (m == index_select) s.params.set("indices", part);
      if (m == embedding) s.params.set("ids", part);
      if (m == index_select_tensor) s.inputs[1] = u32_tensor({static_cast<std::int64_t>(part.size())}, part);
      out.push_back(std::move(s));
    }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {out_dims(static_cast<Mode>(mode_of(k)), c), k.out_dtype(c.inputs.at(0).dtype())};
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
    at[dim] = picks(m, c)[static_cast<std::size_t>(at[dim])];
    return Source::of(0, flat_of(c.inputs.at(0).dims(), at));
  }
};

}  // namespace

void register_select_along(Registry& r) { r.push_back(std::make_unique<SelectAlong>()); }

}  // namespace kc::drivers
