// Driver "accumulate": functional index_add and scatter_add
// (reference-semantics.md §16): the output is a copy of base, then each src
// element is added into its target, in src's flat order; output element o
// folds base[o] and its contributions, in that order, given to the entry's
// Terms oracle (k = 1 + contributions terms, each output its own bound).
//   index_add:   src element at c goes to c with c[dim] = index[c[dim]] (rank-1 index, src[dim] = len(index));
//   scatter_add: src element p goes to p with p[dim] = index[p] (index of src's dims, src no larger than base off dim).
#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "generators/values.h"

namespace kc::drivers {

namespace {

enum Mode { index_add, scatter_add };
const std::map<std::string_view, int> kModes{{"index_add", index_add}, {"scatter_add", scatter_add}};

Tensor u32_of(const Dims& d, const std::vector<std::uint64_t>& v) { return gen::tensor_of(DType::u32, d, v); }

// The output element (flat in base) each src element adds into.
std::int64_t target_of(Mode m, const gen::Case& c, std::int64_t p) {
  const Tensor &base = c.inputs[0], &index = c.inputs[1], &src = c.inputs[2];
  const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
  std::vector<std::int64_t> at = coords_of(src.dims(), p);
  at[dim] = static_cast<std::int64_t>(index.bits_at(m == index_add ? at[dim] : p));
  return flat_of(base.dims(), at);
}

class Accumulate final : public Driver {
 public:
  std::string_view name() const override { return "accumulate"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    return mode(k) == index_add ? "base's dims; base, then src[.., i, ..] added into [.., index[i], ..] in src's flat order"
                                : "base's dims; base, then src[p] added into p with p[dim] = index[p] in src's flat order";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (!kModes.contains(k.name)) return fmt::format("driver 'accumulate' has no index model for kernel '{}'", k.name);
    if (auto e = expects_inputs(k, 3); !e.empty()) return e;
    if (auto e = expects_param(k, "dim", contract::ParamKind::integer); !e.empty()) return e;
    return expects_input<oracle::Terms>(k, name());
  }

  // base of rank 1-4 and a dim; index_add: src = base's dims with 0-16
  // along dim and an index list of that length; scatter_add: src no larger
  // than base off dim (0 up to base's size), 0-8 along it, an index of its
  // dims. Index values within base's dim, often few distinct (duplicates
  // accumulate); the reductions' values for base and src (cancellation).
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = mode(k);
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(1, 4), rc::gen::container<std::vector<std::uint32_t>>(6, rc::gen::arbitrary<std::uint32_t>()),
                       rc::gen::container<std::vector<std::uint32_t>>(512, rc::gen::arbitrary<std::uint32_t>())),
        [&k, t, m](const std::tuple<Dims, std::vector<std::uint32_t>, std::vector<std::uint32_t>>& g) {
          const auto& [d0, keys, draws] = g;
          Dims d = d0;
          const std::size_t dim = keys[0] % d.size();
          Dims ds = d;
          for (std::size_t a = 0; a < d.size(); ++a)
            ds[a] = a == dim ? keys[1 + a % 5] % (m == index_add ? 17 : 9)
                             : (m == index_add ? d[a] : keys[1 + a % 5] % (d[a] + 1));
          if (d[dim] == 0) ds[dim] = 0;
          ds = gen::capped(ds);
          if (m == index_add)  // (base keeps src's dims off dim, capped or not)
            for (std::size_t a = 0; a < d.size(); ++a)
              if (a != dim) d[a] = ds[a];
          const Dims di = m == index_add ? Dims{ds[dim]} : ds;
          const std::int64_t span = keys[5] % 2 == 0 ? std::min<std::int64_t>(d[dim], 2) : d[dim];
          std::vector<std::uint64_t> idx(static_cast<std::size_t>(checked_numel(di)));
          for (std::size_t p = 0; p < idx.size(); ++p) idx[p] = span > 0 ? draws[p % draws.size()] * (p / draws.size() + 1) % span : 0;
          const auto nb = static_cast<std::size_t>(checked_numel(d)), ns = static_cast<std::size_t>(checked_numel(ds));
          return rc::gen::map(rc::gen::pair(gen::reduction_values(t, k.values, nb), gen::reduction_values(t, k.values, ns)),
                              [t, d, ds, di, idx, dim](const std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>>& v) {
                                return gen::Case{{gen::tensor_of(t, d, v.first), u32_of(di, idx), gen::tensor_of(t, ds, v.second)},
                                                 Params().set("dim", static_cast<std::int64_t>(dim)), false};
                              });
        });
  }

  // Every ordered pair (a, b) of the special values and thresholds: base
  // holds a, src adds b at the same place.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor pairs = all_pairs(t, sweep_values(k, t));
    const std::int64_t n = pairs.dims()[0];
    Tensor a(t, {n, 1}), b(t, {n, 1});
    for (std::int64_t r = 0; r < n; ++r) a.set_bits(r, pairs.bits_at(2 * r)), b.set_bits(r, pairs.bits_at(2 * r + 1));
    return gen::Case{{a, mode(k) == index_add ? u32_of({1}, {0}) : u32_of({n, 1}, std::vector<std::uint64_t>(static_cast<std::size_t>(n), 0)), b},
                     Params().set("dim", std::int64_t{1}), false};
  }

  // 128 outputs of 49 terms each: base 0 and 48 contributions uniform on [-1, 1].
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) const override {
    const Tensor index = mode(k) == index_add ? u32_of({48}, std::vector<std::uint64_t>(48, 0))
                                              : u32_of({128, 48}, std::vector<std::uint64_t>(128 * 48, 0));
    return gen::Case{{Tensor(t, {128, 1}), index, gen::tensor_of(t, {128, 48}, statistics_values(t, seed))},
                     Params().set("dim", std::int64_t{1}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    const Mode m = mode(k);
    gen::Case c = valid;
    const Tensor &base = valid.inputs[0], &ix = valid.inputs[1], &src = valid.inputs[2];
    const auto i = static_cast<std::int64_t>(index);
    const DType t = base.dtype();
    const Rule r = rule.rule;
    const std::string operand(rule.operand);
    // A fresh valid frame for the rules that need room: base [3, 4], dim 1.
    auto frame = [&] {
      c.inputs = {gen::zeros(t, {3, 4}), m == index_add ? u32_of({2}, {1, 1}) : u32_of({3, 2}, std::vector<std::uint64_t>(6, 1)),
                  gen::zeros(t, {3, 2})};
      c.params.set("dim", std::int64_t{1});
    };
    if (r == Rule::rank_mismatch) {  // src with a leading axis more
      Dims d = src.dims();
      d.insert(d.begin(), 1);
      c.inputs[2] = gen::zeros(t, d);
      if (m == scatter_add) c.inputs[1] = gen::zeros(DType::u32, d);
      return c;
    }
    if (r == Rule::dim_out_of_range) return dim_past_rank(valid, index);
    if (r == Rule::index_rank) {  // index_add: an index of rank 2
      c.inputs[1] = gen::zeros(DType::u32, {1, ix.numel()});
      return c;
    }
    if (r == Rule::shape_mismatch) {
      frame();
      if (m == index_add && index % 2 == 0) c.inputs[2] = gen::zeros(t, {3, 3 + i});   // src[dim] != len(index)
      else if (m == index_add) c.inputs[2] = gen::zeros(t, {4 + i, 2});                 // a non-dim dim differs
      else if (operand == "index") c.inputs[1] = gen::zeros(DType::u32, {3, 3 + i});    // index dims != src dims
      else c.inputs[2] = gen::zeros(t, {4 + i, 2}), c.inputs[1] = gen::zeros(DType::u32, {4 + i, 2});  // src beyond base off dim
      return c;
    }
    if (r == Rule::index_out_of_range) {
      frame();
      Tensor bad = c.inputs[1];
      bad.set_bits(i % bad.numel(), static_cast<std::uint64_t>(4 + i));
      c.inputs[1] = bad;
      return c;
    }
    if (r == Rule::dtype_unsupported && operand == "index") {
      c.inputs[1] = gen::zeros(index % 2 == 0 ? DType::f32 : DType::f64, ix.dims());
      return c;
    }
    if (r == Rule::dtype_unsupported && operand == "base") {  // u32 data (the exec's fallback panic), or u8
      c.inputs[0] = gen::zeros(index % 2 == 0 ? DType::u32 : DType::u8, base.dims());
      c.inputs[2] = gen::zeros(index % 2 == 0 ? DType::u32 : DType::u8, src.dims());
      return c;
    }
    if (r == Rule::dtype_mismatch) {  // src of another float dtype than base
      const DType other = t == DType::f32 ? DType::f64 : DType::f32;
      c.inputs[2] = gen::zeros(index % 2 == 0 ? other : (t == DType::bf16 ? DType::f16 : DType::bf16), src.dims());
      return c;
    }
    return std::nullopt;
  }

  // scatter_add: halves of src (and its index) along each axis; index_add:
  // halves of src along dim (and of the index list), and of base and src
  // together along another axis.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<gen::Case> out;
    // First, base cut to the least that holds src and the indices.
    {
      std::int64_t top = -1;
      for (std::int64_t p = 0; p < c.inputs[1].numel(); ++p) top = std::max(top, static_cast<std::int64_t>(c.inputs[1].bits_at(p)));
      gen::Case s = c;
      for (std::size_t a = 0; a < c.inputs[0].dims().size(); ++a) {
        const std::int64_t need = a == dim ? top + 1 : c.inputs[2].dims()[a];
        if (need < s.inputs[0].dims()[a]) s.inputs[0] = gen::sliced(s.inputs[0], a, 0, need);
      }
      if (s.inputs[0].numel() < c.inputs[0].numel()) out.push_back(std::move(s));
    }
    const Tensor& src = c.inputs[2];
    for (std::size_t a = 0; a < src.dims().size(); ++a) {
      const std::int64_t d = src.dims()[a];
      if (d < 2 || (mode(k) == index_add && a != dim && c.inputs[0].dims()[a] != d)) continue;
      for (const auto& [start, len] : {std::pair{std::int64_t{0}, d / 2}, std::pair{d / 2, d - d / 2}}) {
        gen::Case s = c;
        s.inputs[2] = gen::sliced(src, a, start, len);
        if (mode(k) == scatter_add) s.inputs[1] = gen::sliced(c.inputs[1], a, start, len);
        else if (a == dim) s.inputs[1] = gen::sliced(c.inputs[1], 0, start, len);
        else s.inputs[0] = gen::sliced(c.inputs[0], a, start, len);
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  // The main axis: src's along `dim`, the one folded (base [2, 4], src
  // [2, n], each output gathering about n/4 terms); base and src uniform on
  // [-1, 1], the index drawn uniformly within base's dim.
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return all_given({{2, 4}, mode(k) == index_add ? Dims{n} : Dims{2, n}, {2, n}}, Params().set("dim", std::int64_t{1}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = dim_error(k, s); !e.empty()) return e;
    const Dims &base = s.dims.at(0), &index = s.dims.at(1), &src = s.dims.at(2);
    const auto dim = static_cast<std::size_t>(with_dim(s).integer("dim"));
    const bool add = mode(k) == index_add;
    bool fits = base.size() == src.size() && (base[dim] > 0 || src[dim] == 0) && (add ? index == Dims{src[dim]} : index == src);
    for (std::size_t a = 0; fits && a < base.size(); ++a) fits = a == dim || (add ? src[a] == base[a] : src[a] <= base[a]);
    if (fits) return {};
    return fmt::format("{}: {}, {} and {} do not fit ({})", k.name, operand_text(k, s, 0), operand_text(k, s, 1), operand_text(k, s, 2),
                       add ? "index [src's dim], src base's dims off dim" : "index src's dims, src no larger than base off dim");
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Params p = with_dim(s);
    const auto n = static_cast<std::uint64_t>(s.dims[0][static_cast<std::size_t>(p.integer("dim"))]);
    const std::vector<std::uint64_t> idx = drawn_indices(static_cast<std::size_t>(checked_numel(s.dims[1])), n, seed);
    const auto values = [&](std::size_t i) {
      return gen::tensor_of(t, s.dims[i], uniform_values(t, static_cast<std::size_t>(checked_numel(s.dims[i])), seed + i));
    };
    return gen::Case{{values(0), u32_of(s.dims[1], idx), values(2)}, p, false};
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  // Each output's contributions, found once per case in src's flat order.
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor &base = c.inputs.at(0), &src = c.inputs.at(2);
    std::vector<std::vector<std::int64_t>> from(static_cast<std::size_t>(base.numel()));
    for (std::int64_t p = 0; p < src.numel(); ++p) from[static_cast<std::size_t>(target_of(mode(k), c, p))].push_back(p);
    for (std::int64_t o = 0; o < base.numel(); ++o) {
      const auto& list = from[static_cast<std::size_t>(o)];
      Element e;
      e.out = o;
      oracle::Terms in{context_of(k, c), {base.value_exact_at(o)}};
      e.shown.push_back(base.bits_at(o));
      in.ctx.signaling_nan = is_signaling_nan(base.dtype(), base.bits_at(o));
      for (std::int64_t p : list) {
        in.terms.push_back(src.value_exact_at(p));
        if (e.shown.size() < 4) e.shown.push_back(src.bits_at(p));
        in.ctx.signaling_nan |= is_signaling_nan(src.dtype(), src.bits_at(p));
      }
      e.in = std::move(in);
      e.where = fmt::format("base[{}] and {} src element{} added into it", o, list.size(), list.size() == 1 ? "" : "s");
      f(e);
    }
  }


 private:
  static Mode mode(const contract::KernelSpec& k) { return static_cast<Mode>(kModes.at(k.name)); }
};

}  // namespace

void register_accumulate(Registry& r) { r.push_back(std::make_unique<Accumulate>()); }

}  // namespace kc::drivers
