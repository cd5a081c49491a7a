// Driver "shape_view": reshape and the executor's arms that are reshapes
// (Contiguize, Squeeze, Unsqueeze, exec.rs:1103-1160): the output has new
// dims over the same elements in the same flat order, and shares the
// input's storage (zero-copy, the reference profile's layout check).
// Output element o is input element o.
#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/values.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

enum Mode { reshape, contiguize, squeeze, unsqueeze };

// n split into `rank` dims: each prime factor goes to the slot its key
// picks (n = 0: one dim is 0, the others small).
Dims factorized(std::int64_t n, std::size_t rank, const std::vector<std::uint32_t>& keys) {
  if (n != 1) rank = std::max<std::size_t>(rank, 1);  // (rank 0 holds one element)
  Dims d(rank, 1);
  if (rank == 0) return d;
  if (n == 0) {
    for (std::size_t i = 0; i < rank; ++i) d[i] = keys[i] % 4;
    d[keys[0] % rank] = 0;
    return d;
  }
  std::size_t k = 0;
  for (std::int64_t p = 2; n > 1; ++p)
    while (n % p == 0) {
      d[keys[k++ % keys.size()] % rank] *= p;
      n /= p;
    }
  return d;
}

Dims out_dims(Mode m, const gen::Case& c) {
  const Dims& x = c.inputs.at(0).dims();
  Dims d = x;
  switch (m) {
    case reshape: return c.params.shape("shape");
    case contiguize: return x;
    case squeeze: d.erase(d.begin() + c.params.integer("dim")); return d;
    case unsqueeze: d.insert(d.begin() + c.params.integer("dim"), 1); return d;
  }
  return d;
}

class ShapeView final : public Movement {
 public:
  std::string_view name() const override { return "shape_view"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    switch (static_cast<Mode>(mode_of(k))) {
      case reshape: return "x's elements in flat order under dims `shape` (same element count), sharing x's storage";
      case contiguize: return "x itself (a view: the same dims and storage)";
      case squeeze: return "x without axis `dim` (of size 1), sharing x's storage";
      case unsqueeze: return "x with a size-1 axis inserted at `dim`, sharing x's storage";
    }
    return "";
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(m == squeeze ? 1 : 0, m == unsqueeze ? 5 : 6), rc::gen::inRange<std::size_t>(0, 7),
                       rc::gen::container<std::vector<std::uint32_t>>(8, rc::gen::arbitrary<std::uint32_t>())),
        [&k, t, m](const std::tuple<Dims, std::size_t, std::vector<std::uint32_t>>& g) {
          auto [d, rank, keys] = g;
          Params p;
          if (m == reshape) p.set("shape", factorized(checked_numel(d), rank, keys));
          if (m == squeeze) {  // a size-1 axis made, not filtered for
            const std::size_t at = keys[0] % d.size();
            d[at] = 1;
            d = gen::capped(d);
            p.set("dim", static_cast<std::int64_t>(at));
          }
          if (m == unsqueeze) p.set("dim", static_cast<std::int64_t>(keys[0] % (d.size() + 1)));
          return data_case(k, t, d, p);
        });
  }

  // The special values through each view: [v, 2] reshaped to [2, v] or [v * 2],
  // squeezed out of [v, 1, 2], given an axis at 1.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    Tensor x = *special_matrix(k, t);
    const std::int64_t v = x.dims()[0];
    Params p;
    switch (static_cast<Mode>(mode_of(k))) {
      case reshape: p.set("shape", Dims{2, v}); break;
      case contiguize: break;
      case squeeze: x = x.reshaped({v, 1, 2}); p.set("dim", std::int64_t{1}); break;
      case unsqueeze: p.set("dim", std::int64_t{1}); break;
    }
    return gen::Case{{x}, p, false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs[0];
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    if (r == Rule::numel_mismatch) {  // a target of one more (or a few more) elements
      c.params.set("shape", Dims{x.numel() + 1 + i});
      return c;
    }
    if (r == Rule::dim_out_of_range) return dim_past_rank(valid, index, mode_of(k) == unsqueeze ? 1 : 0);
    if (r == Rule::dim_not_one) {  // an axis of size 2 + index, of distinct values (the defined result is x)
      c.inputs[0] = gen::zeros(x.dtype(), {3, 2 + i});
      for (std::int64_t j = 0; j < c.inputs[0].numel(); ++j)
        c.inputs[0].set_bits(j, double_to_bits(x.dtype(), static_cast<double>(j + 1)));
      c.params.set("dim", std::int64_t{1});
      return c;
    }
    return std::nullopt;
  }

  // Halves of x's axes (not squeeze's size-1 axis); reshape: the first
  // half of x's elements under a flat target.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Tensor& x = c.inputs.at(0);
    if (mode_of(k) == reshape) {
      if (x.numel() < 2) return {};
      gen::Case s = c;
      s.inputs[0] = gen::sliced(gen::flattened(x), 0, 0, x.numel() / 2);
      s.params.set("shape", Dims{x.numel() / 2});
      return {s};
    }
    std::vector<std::size_t> axes;
    for (std::size_t a = 0; a < x.dims().size(); ++a)
      if (mode_of(k) != squeeze || static_cast<std::int64_t>(a) != c.params.integer("dim")) axes.push_back(a);
    return halves(c, 0, axes);
  }

  // The main axis: a row's (x [2, n]: reshaped to [n, 2]; squeezed out of
  // [2, 1, n]; given an axis at 1). A line gives reshape's shape and
  // squeeze's dim (unsqueeze's: the last place).
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    switch (static_cast<Mode>(mode_of(k))) {
      case reshape: return all_given({{2, n}}, Params().set("shape", Dims{n, 2}));
      case squeeze: return all_given({{2, 1, n}}, Params().set("dim", std::int64_t{1}));
      case unsqueeze: return all_given({{2, n}}, Params().set("dim", std::int64_t{1}));
      case contiguize: break;
    }
    return all_given({{2, n}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    const Dims& d = s.dims.at(0);
    const auto rank = static_cast<std::int64_t>(d.size());
    switch (static_cast<Mode>(mode_of(k))) {
      case reshape:
        if (auto e = missing_params(k, s, {"shape"}); !e.empty()) return e;
        if (checked_numel(s.params.shape("shape")) != checked_numel(d))
          return fmt::format("{}: {} does not hold the {} elements of shape {}", k.name, operand_text(k, s, 0),
                             checked_numel(s.params.shape("shape")), dims_to_string(s.params.shape("shape")));
        return {};
      case squeeze:
        if (!s.params.has("dim") || s.params.integer("dim") >= rank || d[static_cast<std::size_t>(s.params.integer("dim"))] != 1)
          return fmt::format("{}: dim is not given or not an axis of size 1 of {}", k.name, operand_text(k, s, 0));
        return {};
      case unsqueeze:
        if (s.params.has("dim") && s.params.integer("dim") > rank)
          return fmt::format("{}: dim {} is past {}'s rank", k.name, s.params.integer("dim"), operand_text(k, s, 0));
        return {};
      case contiguize: return {};
    }
    return {};
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = profile_along_dim(k, s, t, seed);
    if (mode_of(k) == unsqueeze && !s.params.has("dim")) c.params.set("dim", static_cast<std::int64_t>(s.dims[0].size()));
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {out_dims(static_cast<Mode>(mode_of(k)), c), k.out_dtype(c.inputs.at(0).dtype()), true};
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{
        {"reshape", reshape}, {"contiguize", contiguize}, {"squeeze", squeeze}, {"unsqueeze", unsqueeze}};
    return m;
  }
  Source source(const contract::KernelSpec&, const gen::Case&, std::int64_t o) const override { return Source::of(0, o); }
};

}  // namespace

void register_shape_view(Registry& r) { r.push_back(std::make_unique<ShapeView>()); }

}  // namespace kc::drivers
