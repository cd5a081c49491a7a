// Driver "reorder": the elements of each line along `dim` reordered, the
// dims unchanged (reference-semantics.md §15): flip, out[j] = x[d - 1 - j];
// roll, out[j] = x[(j - s) mod d] with s = ((shift mod d) + d) mod d (a
// positive shift moves elements to higher indices, as torch.roll).
#include <limits>

#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/values.h"
#include "generators/invalid.h"

namespace kc::drivers {

namespace {

enum Mode { flip, roll };

// The source coordinate along the dim of output coordinate j.
std::int64_t source_coord(Mode m, std::int64_t j, std::int64_t d, const Params& p) {
  if (m == flip) return d - 1 - j;
  const std::int64_t s = ((p.integer("shift") % d) + d) % d;
  return ((j - s) % d + d) % d;
}

class Reorder final : public Movement {
 public:
  std::string_view name() const override { return "reorder"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    return mode_of(k) == flip ? "x's dims; out[.., j, ..] = x[.., d - 1 - j, ..] along `dim`"
                              : "x's dims; out[.., j, ..] = x[.., (j - s) mod d, ..] along `dim`, s = shift mod d";
  }

  // A shape of rank >= 1, a dim drawn from its axes; roll's shift small
  // (within +-3 d, both signs, 0) or extreme (+-2^40, the i64 ends; not
  // i64's minimum, whose negation, the round trip's inverse, overflows).
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    return rc::gen::mapcat(rc::gen::tuple(gen::shape(1, 6), rc::gen::arbitrary<std::uint32_t>(),
                                          rc::gen::inRange<std::int64_t>(-200, 201), rc::gen::inRange(0, 8)),
                           [&k, t, m](const std::tuple<Dims, std::uint32_t, std::int64_t, int>& g) {
                             const auto& [d, key, small, pick] = g;
                             Params p;
                             p.set("dim", static_cast<std::int64_t>(key % d.size()));
                             if (m == roll) {
                               constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
                               const std::int64_t extreme[] = {std::int64_t{1} << 40, -(std::int64_t{1} << 40), kMax,
                                                               -kMax};
                               p.set("shift", pick < 4 ? extreme[pick] : small);
                             }
                             return data_case(k, t, d, p);
                           });
  }

  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    Params p;
    p.set("dim", std::int64_t{0});
    if (mode_of(k) == roll) p.set("shift", std::int64_t{1});
    return gen::Case{{*special_matrix(k, t)}, p, false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    if (rule.rule != Rule::dim_out_of_range) return std::nullopt;
    return dim_past_rank(valid, index);
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return halves(c, 0);
  }

  // The main axis: `dim`'s (x [1, n] along dim 1; roll's shift n/3 + 1,
  // no multiple of a block); a line's roll gives its shift.
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    Shaped s = along_dim_tail(n);
    if (mode_of(k) == roll) s.params.set("shift", n / 3 + 1);
    return s;
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (mode_of(k) == roll)
      if (auto e = missing_params(k, s, {"shift"}); !e.empty()) return e;
    return dim_error(k, s);
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return profile_along_dim(k, s, t, seed);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"flip", flip}, {"roll", roll}};
    return m;
  }
  Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const override {
    const Dims& d = c.inputs.at(0).dims();
    const auto dim = static_cast<std::size_t>(c.params.integer("dim"));
    std::vector<std::int64_t> at = coords_of(d, o);
    at[dim] = source_coord(static_cast<Mode>(mode_of(k)), at[dim], d[dim], c.params);
    return Source::of(0, flat_of(d, at));
  }
};

}  // namespace

void register_reorder(Registry& r) { r.push_back(std::make_unique<Reorder>()); }

}  // namespace kc::drivers
