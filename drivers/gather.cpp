// Driver "gather": PyTorch's gather (reference-semantics.md §16): the output
// has the u32 index tensor's dims (the same rank as x, no larger than x off
// `dim`), and out[p] = x[p with p[dim] replaced by index[p]].
#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/tensors.h"
#include "generators/values.h"

namespace kc::drivers {

namespace {

Tensor u32_of(const Dims& d, const std::vector<std::uint64_t>& v) { return gen::tensor_of(DType::u32, d, v); }

class Gather final : public Movement {
 public:
  std::string_view name() const override { return "gather"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "index's dims, x's dtype; out[p] = x[p with p[dim] = index[p]]";
  }

  // x of rank 1-4, a dim; the index no larger than x off the dim (0 up to
  // x's size), 0-8 along it; its values within x's dim, often few distinct
  // (repeats); an empty x dim takes an empty index.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(1, 4), rc::gen::container<std::vector<std::uint32_t>>(6, rc::gen::arbitrary<std::uint32_t>()),
                       rc::gen::container<std::vector<std::uint32_t>>(512, rc::gen::arbitrary<std::uint32_t>())),
        [&k, t](const std::tuple<Dims, std::vector<std::uint32_t>, std::vector<std::uint32_t>>& g) {
          const auto& [d, keys, draws] = g;
          const std::size_t dim = keys[0] % d.size();
          Dims di = d;
          for (std::size_t a = 0; a < d.size(); ++a) di[a] = a == dim ? keys[1 + a % 5] % 9 : keys[1 + a % 5] % (d[a] + 1);
          if (d[dim] == 0) di[dim] = 0;
          di = gen::capped(di);
          const std::int64_t span = keys[5] % 2 == 0 ? std::min<std::int64_t>(d[dim], 2) : d[dim];
          std::vector<std::uint64_t> idx(static_cast<std::size_t>(checked_numel(di)));
          for (std::size_t p = 0; p < idx.size(); ++p) idx[p] = span > 0 ? draws[p % draws.size()] * (p / draws.size() + 1) % span : 0;
          return rc::gen::map(data_case(k, t, d, Params().set("dim", static_cast<std::int64_t>(dim))),
                              [di, idx](gen::Case c) {
                                c.inputs.push_back(u32_of(di, idx));
                                return c;
                              });
        });
  }

  // The special values' matrix with its two columns swapped.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor x = *special_matrix(k, t);
    std::vector<std::uint64_t> idx;
    for (std::int64_t r = 0; r < x.dims()[0]; ++r) idx.insert(idx.end(), {1, 0});
    return gen::Case{{x, u32_of(x.dims(), idx)}, Params().set("dim", std::int64_t{1}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor &x = valid.inputs[0], &ix = valid.inputs[1];
    const auto i = static_cast<std::int64_t>(index);
    const auto dim = static_cast<std::size_t>(valid.params.integer("dim"));
    const Rule r = rule.rule;
    if (r == Rule::rank_mismatch) {  // an index of one more axis
      Dims d = ix.dims();
      d.insert(d.begin(), 1 + i);
      c.inputs[1] = gen::zeros(DType::u32, d);
      return c;
    }
    if (r == Rule::dim_out_of_range) return dim_past_rank(valid, index);
    if (r == Rule::index_shape) {  // an index dim off `dim` beyond x's: x [2, 3], index [1, 4 + index], dim 0
      c.inputs = {gen::zeros(x.dtype(), {2, 3}), gen::zeros(DType::u32, {1, 4 + i})};
      c.params.set("dim", std::int64_t{0});
      return c;
    }
    if (r == Rule::index_out_of_range) {  // one index equal to x's dim (+ index): an index of at least one element
      if (ix.numel() == 0 || x.dims()[dim] == 0) {
        c.inputs = {gen::zeros(x.dtype(), {2, 3}), gen::zeros(DType::u32, {2, 3})};
        c.params.set("dim", std::int64_t{1});
      }
      Tensor bad = gen::tensor_of(DType::u32, c.inputs[1].dims(), std::vector<std::uint64_t>(static_cast<std::size_t>(c.inputs[1].numel()), 0));
      const auto d2 = static_cast<std::size_t>(c.params.integer("dim"));
      bad.set_bits(i % bad.numel(), static_cast<std::uint64_t>(c.inputs[0].dims()[d2] + i));
      c.inputs[1] = bad;
      return c;
    }
    if (r == Rule::dtype_unsupported && rule.operand == "index") {
      c.inputs[1] = gen::zeros(index % 2 == 0 ? DType::f32 : DType::f64, ix.dims());
      return c;
    }
    return std::nullopt;
  }

  // Halves of the index's axes (the index stays valid; x stays).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return halves(c, 1);
  }

  // The main axis: `dim`'s (x [2, n], index [2, n] along dim 1); index's
  // values drawn uniformly within x's dim (SplitMix64), x's the profile's.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{2, n}, {2, n}}, Params().set("dim", std::int64_t{1}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = dim_error(k, s); !e.empty()) return e;
    const Dims &x = s.dims.at(0), &ix = s.dims.at(1);
    const auto dim = static_cast<std::size_t>(with_dim(s).integer("dim"));
    bool fits = x.size() == ix.size() && (x[dim] > 0 || ix[dim] == 0);
    for (std::size_t a = 0; fits && a < x.size(); ++a) fits = a == dim || ix[a] <= x[a];
    return fits ? "" : fmt::format("{}: {} is not of {}'s rank, no larger off dim {}", k.name, operand_text(k, s, 1), operand_text(k, s, 0), dim);
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = profile_along_dim(k, s, t, seed);
    const auto n = static_cast<std::uint64_t>(s.dims[0][static_cast<std::size_t>(c.params.integer("dim"))]);
    const std::vector<std::uint64_t> idx = drawn_indices(static_cast<std::size_t>(checked_numel(s.dims[1])), n, seed);
    c.inputs.push_back(u32_of(s.dims[1], idx));
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {c.inputs.at(1).dims(), k.out_dtype(c.inputs.at(0).dtype())};
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"gather", 0}};
    return m;
  }
  Source source(const contract::KernelSpec&, const gen::Case& c, std::int64_t o) const override {
    const Tensor &x = c.inputs.at(0), &ix = c.inputs.at(1);
    std::vector<std::int64_t> at = coords_of(ix.dims(), o);
    at[static_cast<std::size_t>(c.params.integer("dim"))] = static_cast<std::int64_t>(ix.bits_at(o));
    return Source::of(0, flat_of(x.dims(), at));
  }
};

}  // namespace

void register_gather(Registry& r) { r.push_back(std::make_unique<Gather>()); }

}  // namespace kc::drivers
