// Driver "rope": rotary position embedding (reference-semantics.md §11),
// half-split: x [..., S, D], cos and sin [S, D], h = D/2, s the row's
// position; output (.., s, i) is a rotation (oracles/input.h Rotation):
//   i <  h: x[i] cos[s, i] - x[i + h] sin[s, i]          (the difference)
//   i >= h: x[i] cos[s, i] + x[i - h] sin[s, i]          (the sum)
// with (x_a, c, x_b, s) as the kernel reads them; the oracle is a two-term
// dot product with -x_b for the difference (exact), the replay the
// difference itself (oracles/replay.h: it keeps its operands' NaN as they are).
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "oracles/det_math.h"

namespace kc::drivers {

namespace {

struct RopeShape {
  Dims lead;  // the leading dims (broadcast over)
  std::int64_t seq, d;
  std::int64_t h() const { return d / 2; }
};
RopeShape shape_of(const gen::Case& c) {
  const Dims& x = c.inputs.at(0).dims();
  return {Dims(x.begin(), x.end() - 2), x[x.size() - 2], x.back()};
}

// HF's tables: position s, inv_freq_j = 10000^(-2j/D), the angles s
// inv_freq duplicated over both halves (cat(freqs, freqs)), cos and sin
// rounded into T (pow, cos and sin from oracles/det_math.h: libm's differ
// by CPU, and these are the case's inputs).
// One head dim's cos and sin of the angles p inv_freq_i (p < the
// positions asked so far, i < D/2), in double, kept for the next table of
// that D: each is an MPFR evaluation (oracles/det_math.h), and the tails
// ask for S = 1 .. 8193 in each of four dtypes (a fifth of the tails' time
// before). The same values whoever asks first: a table's bits do not
// depend on the order of the cases.
struct AngleTable {
  std::int64_t d = 0, positions = 0;
  std::vector<double> inv_freq, cos, sin;  // [position][i]
};
const AngleTable& angles(std::int64_t seq, std::int64_t d) {
  static thread_local std::vector<AngleTable> kept;
  AngleTable* a = nullptr;
  for (AngleTable& k : kept)
    if (k.d == d) a = &k;
  if (!a) {
    a = &kept.emplace_back();
    a->d = d;
    for (std::int64_t i = 0; i < d / 2; ++i)
      a->inv_freq.push_back(oracle::det::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(d)));
  }
  for (; a->positions < seq; ++a->positions)
    for (const double f : a->inv_freq) {
      const double angle = static_cast<double>(a->positions) * f;
      a->cos.push_back(oracle::det::cos(angle));
      a->sin.push_back(oracle::det::sin(angle));
    }
  return *a;
}

std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> hf_tables(DType t, std::int64_t seq, std::int64_t d) {
  // (Each half's angles once, the high half a copy: a shaped case's
  // tables are [S, D], built in time linear in them.)
  const std::int64_t h = d / 2;
  const AngleTable& a = angles(seq, d);
  std::vector<std::uint64_t> c(static_cast<std::size_t>(seq * d)), s(c.size());
  for (std::int64_t p = 0; p < seq; ++p)
    for (std::int64_t i = 0; i < h; ++i) {
      const auto at = static_cast<std::size_t>(p * d + i), high = at + static_cast<std::size_t>(h);
      const auto angle = static_cast<std::size_t>(p * h + i);
      c[at] = c[high] = double_to_bits(t, round_to_format(a.cos[angle], t));
      s[at] = s[high] = double_to_bits(t, round_to_format(a.sin[angle], t));
    }
  return {c, s};
}

const std::vector<std::string_view> kLowNames{"x[i]", "cos[s, i]", "x[i + h]", "sin[s, i]"};
const std::vector<std::string_view> kHighNames{"x[i]", "cos[s, i]", "x[i - h]", "sin[s, i]"};

class Rope final : public Driver {
 public:
  std::string_view name() const override { return "rope"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "x's shape and dtype: out[.., s, i] = x[i] cos[s, i] - x[i + h] sin[s, i] for i < h = D/2, "
           "x[i] cos[s, i] + x[i - h] sin[s, i] above";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 3); !e.empty()) return e;
    return expects_input<oracle::Rotation>(k, name());
  }

  // x [lead..., S, D]: 0-2 leading dims of 1-3, S 1-8, D even 2-16; x from
  // the entry's profile, the tables half the time HF's (duplicated halves,
  // |values| <= 1) and half the time arbitrary values of the profile (each
  // column its own, so that reading the wrong column or half shows).
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(
        rc::gen::container<std::vector<std::uint32_t>>(6, rc::gen::arbitrary<std::uint32_t>()),
        [&k, t](const std::vector<std::uint32_t>& r) {
          Dims dx;
          for (std::uint32_t a = 0; a < r[0] % 3; ++a) dx.push_back(1 + (r[1] >> (4 * a)) % 3);
          const std::int64_t seq = 1 + r[2] % 8, d = 2 * (1 + r[3] % 8);
          dx.insert(dx.end(), {seq, d});
          const bool hf = r[4] % 2 == 0;
          const auto nx = static_cast<std::size_t>(checked_numel(dx)), nt = static_cast<std::size_t>(seq * d);
          return rc::gen::map(
              rc::gen::tuple(gen::values_for(t, k.values, nx), gen::values_for(t, k.values, nt), gen::values_for(t, k.values, nt)),
              [t, dx, seq, d, hf](const std::tuple<std::vector<std::uint64_t>, std::vector<std::uint64_t>, std::vector<std::uint64_t>>& v) {
                auto [c, s] = hf ? hf_tables(t, seq, d) : std::pair{std::get<1>(v), std::get<2>(v)};
                return gen::Case{{gen::tensor_of(t, dx, std::get<0>(v)), gen::tensor_of(t, {seq, d}, c), gen::tensor_of(t, {seq, d}, s)},
                                 Params(), false};
              });
        });
  }

  // x [48, 128] and both tables of the statistics values (uniform on
  // [-1, 1], each its own seed): 6144 outputs, each two rounded products
  // and one rounded sum of its own.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return gen::Case{{gen::tensor_of(t, {48, 128}, statistics_values(t, seed)),
                      gen::tensor_of(t, {48, 128}, statistics_values(t, seed ^ 0x9e3779b97f4a7c15ull)),
                      gen::tensor_of(t, {48, 128}, statistics_values(t, seed ^ 0x3c6ef372fe94f82aull))},
                     Params(), false};
  }

  // Every ordered pair (a, b) of the special values and thresholds as one
  // row of D = 2: x = (a, b), cos = (b, a), sin = (a, b), so out = (a b -
  // b a, b a + a b): the products and their sums and differences of every
  // special pair (NaN order, inf - inf, signed zeros).
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor pairs = all_pairs(t, sweep_values(k, t));  // [n^2, 2]: (a, b)
    const std::int64_t rows = pairs.dims()[0];
    Tensor swapped(t, {rows, 2});
    for (std::int64_t r = 0; r < rows; ++r) swapped.set_bits(2 * r, pairs.bits_at(2 * r + 1)), swapped.set_bits(2 * r + 1, pairs.bits_at(2 * r));
    return gen::Case{{pairs, swapped, pairs}, Params(), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    gen::Case c = valid;
    const DType t = valid.inputs[0].dtype();
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    const std::string operand(rule.operand);
    auto frame = [&](const Dims& x, const Dims& table) {
      c.inputs = {gen::zeros(t, x), gen::zeros(t, table), gen::zeros(t, table)};
      c.params = Params();
    };
    if (r == Rule::rank_min) {  // x of rank 1 (or 0)
      frame(index % 2 == 0 ? Dims{4} : Dims{}, {1, 4});
      return c;
    }
    if (r == Rule::head_dim_odd) {  // D odd, the tables matching
      frame({2, 3 + 2 * i}, {2, 3 + 2 * i});
      return c;
    }
    if (r == Rule::shape_mismatch) {  // the named table one longer, one row more, or of rank 3
      frame({2, 3, 4}, {3, 4});
      const Dims bad = index % 3 == 0 ? Dims{3, 5 + 2 * i} : index % 3 == 1 ? Dims{4 + i, 4} : Dims{1, 3, 4};
      c.inputs[operand == "cos" ? 1 : 2] = gen::zeros(t, bad);
      return c;
    }
    return std::nullopt;
  }

  // The main axis: the positions S (x [1, n, 8], the tables [n, 8]: a
  // kernel's loop over positions, each row a rotation of 4 pairs; the
  // problem lines have the models' D = 128, and HF's tables cost an MPFR
  // cosine and sine a position and pair).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{1, n, 8}, {n, 8}, {n, 8}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    const Dims& x = s.dims.at(0);
    const Dims table{x[x.size() - 2], x.back()};
    if (x.back() % 2 != 0) return fmt::format("rope: {} has an odd head dim {} (rope.head_dim_odd)", operand_text(k, s, 0), x.back());
    for (std::size_t i : {std::size_t{1}, std::size_t{2}})
      if (s.dims[i] != table)
        return fmt::format("rope: {} is not [S, D] = {} of {}", operand_text(k, s, i), dims_to_string(table), operand_text(k, s, 0));
    return {};
  }
  // x uniform on [-4, 4] (a query's or key's activations), the tables
  // HF's (hf_tables: the rotation every model runs).
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Dims& x = s.dims[0];
    auto [c, sn] = hf_tables(t, x[x.size() - 2], x.back());
    return gen::Case{{gen::tensor_of(t, x, uniform_values(t, static_cast<std::size_t>(checked_numel(x)), seed, -4, 4)),
                      gen::tensor_of(t, s.dims[1], c), gen::tensor_of(t, s.dims[2], sn)},
                     Params(), false};
  }

  // The leading dims cut to one, then halves of the positions (x's rows
  // and the tables' together).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const RopeShape sh = shape_of(c);
    std::vector<gen::Case> out;
    for (std::size_t a = 0; a < sh.lead.size(); ++a)
      if (sh.lead[a] > 1) {
        gen::Case s = c;
        s.inputs[0] = gen::sliced(c.inputs[0], a, 0, 1);
        out.push_back(std::move(s));
      }
    if (sh.seq > 1)
      for (const bool second : {false, true}) {
        gen::Case s = c;
        const std::int64_t half = sh.seq / 2, start = second ? half : 0, len = second ? sh.seq - half : half;
        s.inputs[0] = gen::sliced(c.inputs[0], sh.lead.size(), start, len);
        for (std::size_t tab : {std::size_t{1}, std::size_t{2}}) s.inputs[tab] = gen::sliced(c.inputs[tab], 0, start, len);
        out.push_back(std::move(s));
      }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, c.inputs.at(0).numel(), f);
  }

  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const RopeShape sh = shape_of(c);
    const std::int64_t i = o % sh.d, s = (o / sh.d) % sh.seq, row = o - i;
    const bool low = i < sh.h();
    const std::int64_t other = row + (low ? i + sh.h() : i - sh.h()), at = s * sh.d + i;
    const Tensor &x = c.inputs[0], &ct = c.inputs[1], &st = c.inputs[2];
    oracle::Rotation in{context_of(k, c), x.value_exact_at(o), ct.value_exact_at(at), x.value_exact_at(other),
                        st.value_exact_at(at), !low};
    e.out = o;
    e.shown = {x.bits_at(o), ct.bits_at(at), x.bits_at(other), st.bits_at(at)};
    e.names = low ? kLowNames : kHighNames;
    for (std::size_t a = 0; a < 4; ++a) {
      const Tensor& src = a == 1 ? ct : a == 3 ? st : x;
      in.ctx.signaling_nan |= is_signaling_nan(src.dtype(), e.shown[a]);
    }
    e.in = in;
    e.replayable = false;  // (x has two elements per output: --case replays it)
    e.where_pattern = "x[{}], position {}, column {}";
    e.where_at = {o, s, i};
    return true;
  }

};

}  // namespace

void register_rope(Registry& r) { r.push_back(std::make_unique<Rope>()); }

}  // namespace kc::drivers
