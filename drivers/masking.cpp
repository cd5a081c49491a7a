// Driver "masking": x's dims, each element kept or replaced by a constant
// (reference-semantics.md §13): triu keeps x[..., i, j] where j >= i +
// diagonal, tril where j <= i + diagonal, the rest T::default() (+0, 0u32);
// masked_fill replaces by T(value) where the u8 mask is non-zero.
#include <limits>

#include <fmt/format.h>

#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "generators/values.h"
#include "oracles/rounding.h"

namespace kc::drivers {

namespace {

enum Mode { triu, tril, masked_fill };

// T(value) as the kernel must form it: NumCast for the floats (halves
// through f32), the integer itself for u32 data.
double fill_value(DType t, double v) { return t == DType::u32 ? v : oracle::num_cast(t, v); }

// Fill values worth meeting: signed zeros, infinities, NaN, values that
// overflow or round in the narrower dtypes.
const std::vector<double> kFloatFills{0.0, -0.0, 1.0, -2.5, INFINITY, -INFINITY, NAN, 1e-40, 65519.0, 3.4e38, 1e300, 0.1};
const std::vector<double> kU32Fills{0, 1, 7, 4294967295.0};

// A mask byte from a random one: half zeros, a quarter ones, the rest any byte.
std::uint64_t mask_byte(std::uint8_t b) { return b % 4 == 0 ? b : b % 4 == 1 ? 1 : 0; }

class Masking final : public Movement {
 public:
  std::string_view name() const override { return "masking"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    switch (static_cast<Mode>(mode_of(k))) {
      case triu: return "x's dims; x[..., i, j] where j >= i + diagonal, else +0 (T::default())";
      case tril: return "x's dims; x[..., i, j] where j <= i + diagonal, else +0 (T::default())";
      case masked_fill: return "x's dims; T(value) where mask != 0, else x";
    }
    return "";
  }

  // triu/tril: rank 2-6 (a zero batch dim only where the matrices are
  // empty: else rule batch.empty), diagonals within the matrix and past it
  // both ways, and at the i64 ends; masked_fill: a mask of zeros, ones,
  // 255 and other bytes, fills from kFloatFills / kU32Fills.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    return rc::gen::mapcat(
        rc::gen::tuple(gen::shape(m == masked_fill ? 0 : 2, 6), rc::gen::inRange<std::int64_t>(-12, 13),
                       rc::gen::inRange(0, 10), rc::gen::container<std::vector<std::uint8_t>>(1024, rc::gen::arbitrary<std::uint8_t>())),
        [&k, t, m](const std::tuple<Dims, std::int64_t, int, std::vector<std::uint8_t>>& g) {
          auto [d, diag, pick, bytes] = g;
          Params p;
          gen::Case extra;
          if (m != masked_fill) {
            const std::size_t r = d.size();
            if (d[r - 2] * d[r - 1] > 0)
              for (std::size_t a = 0; a + 2 < r; ++a) d[a] = std::max<std::int64_t>(d[a], 1);
            d = gen::capped(d);
            constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
            const std::int64_t ends[] = {kMax, -kMax - 1, std::int64_t{1} << 40, -(std::int64_t{1} << 40)};
            p.set("diagonal", pick < 4 ? ends[pick] : diag);
          } else {
            const std::vector<double>& fills = t == DType::u32 ? kU32Fills : kFloatFills;
            p.set("value", fills[static_cast<std::size_t>(pick) % fills.size()]);
            std::vector<std::uint64_t> mask(static_cast<std::size_t>(checked_numel(d)));
            for (std::size_t i = 0; i < mask.size(); ++i) {
              mask[i] = mask_byte(bytes[i % bytes.size()]);
            }
            extra.inputs.push_back(gen::tensor_of(DType::u8, d, mask));
          }
          return rc::gen::map(data_case(k, t, d, p), [extra](gen::Case c) {
            for (const Tensor& e : extra.inputs) c.inputs.push_back(e);
            return c;
          });
        });
  }

  // The special values through: triu with a diagonal below every
  // element's, tril above; masked_fill with a mask of alternating 0 and 1
  // and a NaN fill.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor x = *special_matrix(k, t);
    switch (static_cast<Mode>(mode_of(k))) {
      case triu: return gen::Case{{x}, Params().set("diagonal", -x.dims()[0]), false};
      case tril: return gen::Case{{x}, Params().set("diagonal", std::int64_t{2}), false};
      case masked_fill: {
        std::vector<std::uint64_t> mask(static_cast<std::size_t>(x.numel()));
        for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (i / 2) % 2;
        return gen::Case{{x, gen::tensor_of(DType::u8, x.dims(), mask)}, Params().set("value", NAN), false};
      }
    }
    return {};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs[0];
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    if (r == Rule::rank_min) {  // rank 1, or 0
      c.inputs[0] = gen::zeros(x.dtype(), index % 2 == 0 ? Dims{3 + i} : Dims{});
      return c;
    }
    if (r == Rule::batch_empty) {
      c.inputs[0] = gen::zeros(x.dtype(), {0, 2 + i, 3});
      return c;
    }
    if (r == Rule::shape_mismatch) {  // a mask with a leading axis more, or one element more along the last
      Dims d = x.dims();
      if (index % 2 == 0 || d.empty()) d.insert(d.begin(), 2 + i);
      else d.back() += 1 + i;
      c.inputs[1] = gen::zeros(DType::u8, d);
      return c;
    }
    if (r == Rule::dtype_unsupported && rule.operand == "mask") {
      c.inputs[1] = gen::zeros(index % 2 == 0 ? DType::f32 : DType::u32, x.dims());
      return c;
    }
    if (r == Rule::param_domain && rule.operand == "value") {  // u32 data with a fraction, a negative, 2^32
      const double bad[] = {0.5, -1.0, 4294967296.0};
      c.inputs[0] = gen::zeros(DType::u32, x.dims());
      c.params.set("value", bad[index % 3]);
      return c;
    }
    return std::nullopt;
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    std::vector<gen::Case> out;
    const Tensor& x = c.inputs.at(0);
    for (std::size_t a = 0; a < x.dims().size(); ++a) {
      const std::int64_t d = x.dims()[a];
      if (d < 2) continue;
      for (const auto& [start, len] : {std::pair{std::int64_t{0}, d / 2}, std::pair{d / 2, d - d / 2}}) {
        gen::Case s = c;
        for (auto& in : s.inputs) in = gen::sliced(in, a, start, len);  // (x and its mask together)
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  // The main axis: a row's (x [4, n]: triu and tril at diagonal 1, the
  // causal mask's; masked_fill with a mask of x's dims, value -inf for the
  // floats). A line's parameters left out are drawn as a random case's;
  // the mask's bytes are drawn (half zeros, a quarter ones, the rest any).
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType t, std::int64_t n) const override {
    if (mode_of(k) != masked_fill) return all_given({{4, n}}, Params().set("diagonal", std::int64_t{1}));
    return all_given({{4, n}, {4, n}}, Params().set("value", t == DType::u32 ? 0.0 : -INFINITY));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    return mode_of(k) == masked_fill ? same_dims_error(k, s) : std::string();
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = profile_along_dim(k, s, t, seed);
    c.params = shaped_params(k, s, seed);
    if (mode_of(k) != masked_fill) return c;
    std::vector<std::uint64_t> mask(static_cast<std::size_t>(checked_numel(s.dims.at(1))));
    std::uint64_t state = seed ^ 0x510e527fade682d1ull;
    for (auto& b : mask) b = mask_byte(static_cast<std::uint8_t>(gen::splitmix64(state) >> 56));
    c.inputs.push_back(gen::tensor_of(DType::u8, s.dims[1], mask));
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"triu", triu}, {"tril", tril}, {"masked_fill", masked_fill}};
    return m;
  }
  Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const override {
    const Mode m = static_cast<Mode>(mode_of(k));
    const Tensor& x = c.inputs.at(0);
    if (m == masked_fill)
      return c.inputs.at(1).bits_at(o) != 0 ? Source::constant(fill_value(x.dtype(), c.params.real("value")), "T(value)")
                                            : Source::of(0, o);
    const std::vector<std::int64_t> at = coords_of(x.dims(), o);
    const std::int64_t i = at[at.size() - 2], j = at.back(), diag = c.params.integer("diagonal");
    // (j - i against the diagonal: i + diagonal itself may leave the i64 range)
    const bool keep = m == triu ? j - i >= diag : j - i <= diag;
    return keep ? Source::of(0, o) : Source::constant(0.0, "zero (T::default())");
  }
};

}  // namespace

void register_masking(Registry& r) { r.push_back(std::make_unique<Masking>()); }

}  // namespace kc::drivers
