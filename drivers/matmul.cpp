// Driver "matmul": a = [...batch, m, k], b = [...batch, k, n], equal ranks
// and batch prefixes; output element (p, i, j) is the dot product of row i
// of a's matrix p and column j of b's, its k pairs given to the entry's Dot
// oracle in the reference's order (kk ascending). Operand b's dtype is the
// entry's second operand's when that is a single dtype (the mixed arm: f32
// activations x bf16 weights), else the case's dtype. An entry with a
// third operand (fused_linear) adds bias[..] broadcast to the output as a
// last, exact product bias x 1: the reference's mm + bias is that fold's
// last step.
#include <algorithm>
#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/folds.h"
#include "drivers/index_maps.h"
#include "drivers/matmul_pairs.h"
#include "drivers/matmul_shape.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

// The dtype of operand b in a case of dtype t.
DType b_dtype(const contract::KernelSpec& k, DType t) {
  const auto list = k.inputs.at(1).dtypes.list();
  return list.size() == 1 ? list.front() : t;
}

bool has_bias(const gen::Case& c) { return c.inputs.size() == 3; }

// A bias for output dims `out`: a suffix of them (mostly the last, [n]),
// each kept or 1, values from the entry's profile.
rc::Gen<gen::Case> with_bias(const contract::KernelSpec& k, DType t, Dims out, rc::Gen<gen::Case> g) {
  return rc::gen::mapcat(
      rc::gen::pair(std::move(g), rc::gen::arbitrary<std::uint32_t>()),
      [&k, t, out](const std::pair<gen::Case, std::uint32_t>& p) {
        const std::uint32_t r = p.second;
        const std::size_t rank = r % 4 == 0 ? 1 : (r >> 2) % (out.size() + 1);
        Dims d(out.end() - static_cast<std::ptrdiff_t>(rank), out.end());
        for (std::size_t i = 0; i < d.size(); ++i)
          if ((r >> (8 + i)) & 1) d[i] = 1;
        return rc::gen::map(gen::values_for(t, k.values, static_cast<std::size_t>(checked_numel(d))),
                            [c = p.first, d, t](const std::vector<std::uint64_t>& v) {
                              gen::Case out_case = c;
                              out_case.inputs.push_back(gen::tensor_of(t, d, v));
                              return out_case;
                            });
      });
}

// Values after TOSA's dot-product data sets: a from the reduction patterns
// (plain draws, a large value and its negation in consecutive kk, mixed
// magnitudes 2^(+-20 j), few distinct values), and b plain or with equal
// consecutive rows, so that a's cancelling pairs cancel as products too
// (a_kk b_kk + (-a_kk) b_kk = 0 exactly, leaving the small terms).
rc::Gen<gen::Case> operands(const contract::KernelSpec& k, DType t, MatmulShape s) {
  const DType tb = b_dtype(k, t);
  const auto na = static_cast<std::size_t>(checked_numel(s.a())), nb = static_cast<std::size_t>(checked_numel(s.b()));
  return rc::gen::apply(
      [t, tb, s](const std::vector<std::uint64_t>& av, std::vector<std::uint64_t> bv, bool paired_rows) {
        if (paired_rows)
          for (std::int64_t p = 0; p < s.batches(); ++p)
            for (std::int64_t kk = 1; kk < s.k; kk += 2)
              for (std::int64_t j = 0; j < s.n; ++j) {
                const auto at = static_cast<std::size_t>((p * s.k + kk) * s.n + j);
                bv[at] = bv[at - static_cast<std::size_t>(s.n)];
              }
        return gen::Case{{gen::tensor_of(t, s.a(), av), gen::tensor_of(tb, s.b(), bv)}, Params(), false};
      },
      gen::reduction_values(t, k.values, na), gen::values_for(tb, k.values, nb), rc::gen::arbitrary<bool>());
}

class Matmul final : public Driver {
 public:
  std::string_view name() const override { return "matmul"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one output [...batch, m, n] of a's dtype: a = [...batch, m, k] times b = [...batch, k, n] (plus the "
           "bias broadcast to it, where the entry has one)";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, k.inputs.size() == 3 ? 3 : 2); !e.empty()) return e;  // a, b (and a bias)
    return expects_input<oracle::Dot>(k, name());
  }

  // Rank from the entry (matmul_2d: 2), up to two batch dims of 1-3; m and
  // n 0-8; k 0-64, mostly small, so that long folds and empty ones (k = 0:
  // +0) both occur; each operand within the generators' element limit.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const int lo = std::max(2, k.inputs[0].min_rank), hi = std::min(4, k.inputs[0].max_rank);
    return rc::gen::mapcat(
        rc::gen::tuple(rc::gen::inRange(lo, hi + 1), rc::gen::inRange<std::int64_t>(1, 4),
                       rc::gen::inRange<std::int64_t>(1, 4), rc::gen::inRange<std::int64_t>(0, 9),
                       rc::gen::inRange<std::int64_t>(0, 9), rc::gen::inRange<std::int64_t>(0, 65),
                       rc::gen::inRange(0, 3)),
        [&k, t](const std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int>& d) {
          const auto& [rank, b0, b1, m, n, k_long, short_k] = d;
          MatmulShape s{{}, m, short_k > 0 ? k_long % 9 : k_long, n};
          if (rank >= 3) s.batch.push_back(b0);
          if (rank >= 4) s.batch.push_back(b1);
          while (checked_numel(s.a()) > gen::kMaxElements || checked_numel(s.b()) > gen::kMaxElements) s.k /= 2;
          return k.inputs.size() == 3 ? with_bias(k, t, s.out(), operands(k, t, s)) : operands(k, t, s);
        });
  }

  // k = 1: every product of two special values (and thresholds), a [v, 1]
  // times b [1, v]; k = 2: every ordered pair of them as a row of a times a
  // column of ones, so that every result class (an overflowing sum, a
  // subnormal one, NaN) is reached on every seed, as the folds' sweep does.
  // With a bias: a bias of +0 in both, and a third sweep adding every
  // ordered pair (v, w) as the matmul's v x 1 plus the bias w.
  int sweep_count(const contract::KernelSpec& k, DType t, int) const override {
    return is_float(t) ? (k.inputs.size() == 3 ? 3 : 2) : 0;
  }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int index) const override {
    const std::vector<std::uint64_t> v = sweep_values(k, t);
    const DType tb = b_dtype(k, t);
    const auto n = static_cast<std::int64_t>(v.size());
    const std::uint64_t one = double_to_bits(tb, 1.0);
    const Tensor zero_bias = gen::zeros(t, {1});
    gen::Case c;
    if (index == 0) {
      std::vector<std::uint64_t> bv = sweep_values(k, tb);
      c = gen::Case{{gen::tensor_of(t, {n, 1}, v), gen::tensor_of(tb, {1, static_cast<std::int64_t>(bv.size())}, bv)},
                    Params(), false};
    } else if (index == 1) {
      c = gen::Case{{all_pairs(t, v), gen::tensor_of(tb, {2, 1}, {one, one})}, Params(), false};
    } else {  // [n^2, 1] x [1, 1] + bias [n^2, 1]: the pairs' columns
      const Tensor pairs = all_pairs(t, v);
      const std::int64_t rows = pairs.dims()[0];
      Tensor a(t, {rows, 1}), bias(t, {rows, 1});
      for (std::int64_t r = 0; r < rows; ++r) a.set_bits(r, pairs.bits_at(2 * r)), bias.set_bits(r, pairs.bits_at(2 * r + 1));
      return gen::Case{{a, gen::tensor_of(tb, {1, 1}, {one}), bias}, Params(), false};
    }
    if (k.inputs.size() == 3) c.inputs.push_back(zero_bias);
    return c;
  }

  // 128 x 48 times 48 x 4: 512 dot products of 48 terms, values uniform on
  // [-1, 1] (the folds' statistics values; b from another seed).
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) const override {
    const DType tb = b_dtype(k, t);
    std::vector<std::uint64_t> bv = statistics_values(tb, seed ^ 0x9e3779b97f4a7c15ull);
    bv.resize(48 * 4);
    gen::Case c{{gen::tensor_of(t, {128, 48}, statistics_values(t, seed)), gen::tensor_of(tb, {48, 4}, bv)}, Params(),
                false};
    if (k.inputs.size() == 3) {  // a bias [4] of the statistics values too
      std::vector<std::uint64_t> biases = statistics_values(t, seed ^ 0x3c6ef372fe94f82aull);
      biases.resize(4);
      c.inputs.push_back(gen::tensor_of(t, {4}, biases));
    }
    return c;
  }

  // The main axis: k, the contracted one: [2, k] times [k, 3] (a bias
  // [3]); values uniform on [-1, 1] (a layer's: a dropped part of a sum
  // stands out of the bound).
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return all_given(k.inputs.size() == 3 ? std::vector<Dims>{{2, n}, {n, 3}, {3}} : std::vector<Dims>{{2, n}, {n, 3}});
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override { return matmul_shape_error(k, s); }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_case(s, {t, b_dtype(k, t), t}, seed);
  }

  // An output folds a's row and b's column, K products, plus the bias.
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    return products_magnitude(c, shape_of(c).k);
  }

  // `--input A,B` (`A,B,BIAS` with a bias): the 1 x 1 times 1 x 1 case
  // (the product alone, plus a bias [1]).
  std::optional<gen::Case> element_case(const contract::KernelSpec& k, DType t, std::span<const std::uint64_t> bits,
                                        const Params& p) const override {
    if (bits.size() != k.inputs.size()) return std::nullopt;
    gen::Case c{{gen::tensor_of(t, {1, 1}, {bits[0]}), gen::tensor_of(b_dtype(k, t), {1, 1}, {bits[1]})}, p, false};
    if (bits.size() == 3) c.inputs.push_back(gen::tensor_of(t, {1}, {bits[2]}));
    return c;
  }

  // With a bias: a matmul rule's call takes a rank-0 bias, which
  // broadcasts to any product, so that the call breaks that rule alone (a
  // correct kernel may check the bias first: keeping the valid case's bias
  // broke shape.broadcast too where the rule changed the product's shape);
  // b or the bias in the other dtype; a bias of [n + 2 + index] or of
  // rank(out) + 1.
  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    if (k.inputs.size() != 3) return matmul_violation(k, rule, valid, index);
    const Rule r = rule.rule;
    if (r == Rule::dtype_mismatch) {  // b or the bias in the other of f32 and f64 (the halves are dtype.unsupported)
      gen::Case c = valid;
      const std::size_t at = rule.operand == "b" ? 1 : 2;
      c.inputs[at] = gen::zeros(valid.inputs[0].dtype() == DType::f32 ? DType::f64 : DType::f32, valid.inputs[at].dims());
      return c;
    }
    if (r == Rule::shape_broadcast) {
      gen::Case c = valid;
      const Dims out = shape_of(valid).out();
      const DType t = valid.inputs[0].dtype();
      c.inputs[2] = index % 2 == 0 ? gen::zeros(t, {out.back() + 2 + static_cast<std::int64_t>(index)})
                                   : gen::zeros(t, Dims(out.size() + 1, 1));
      return c;
    }
    auto c = matmul_violation(k, rule, valid, index);
    if (c && c->inputs.size() == 2) c->inputs.push_back(valid.inputs[2]);
    if (c) c->inputs[2] = gen::zeros(valid.inputs[2].dtype(), {});
    return c;
  }

  std::optional<gen::Case> matmul_violation(const contract::KernelSpec& k, const contract::Precondition& rule,
                                            const gen::Case& valid, std::uint64_t index) const {
    gen::Case c = valid;
    const MatmulShape s = shape_of(valid);
    const DType ta = valid.inputs[0].dtype(), tb = valid.inputs[1].dtype();
    const auto i = static_cast<std::int64_t>(index);
    const Rule r = rule.rule;
    if (r == Rule::rank_min || r == Rule::rank_exact) {  // a (or b) of rank 1, or rank 3 for matmul_2d
      Dims d = r == Rule::rank_min ? Dims{2 + i} : Dims{1, 2, 2 + i};
      c.inputs[rule.operand == "a" ? 0 : 1] = gen::zeros(rule.operand == "a" ? ta : tb, d);
      return c;
    }
    if (r == Rule::rank_mismatch) {  // b with one more leading dim
      Dims d = s.b();
      d.insert(d.begin(), 2 + i);
      c.inputs[1] = gen::zeros(tb, d);
      return c;
    }
    if (r == Rule::batch_mismatch) {  // rank 3 (or more) with b's first batch dim off by 1 + index
      MatmulShape t2 = s;
      if (t2.batch.empty()) t2.batch.push_back(2);
      Dims db = t2.b();
      db[0] += 1 + i;
      c.inputs = {gen::zeros(ta, t2.a()), gen::zeros(tb, db)};
      return c;
    }
    if (r == Rule::inner_mismatch) {
      MatmulShape t2 = s;
      Dims db = t2.b();
      db[db.size() - 2] = s.k + 1 + i;
      c.inputs[1] = gen::zeros(tb, db);
      return c;
    }
    if (r == Rule::batch_empty) {  // [0, m, k] x [0, k, n] with m, n > 0
      const MatmulShape t2{{0}, 2 + i, 3, 2};
      c.inputs = {gen::zeros(ta, t2.a()), gen::zeros(tb, t2.b())};
      return c;
    }
    if (r == Rule::dtype_mismatch) {  // b of a float dtype no arm pairs with a's
      std::vector<DType> bad;
      for (DType o : kFloatSet.list())
        if (o != ta && !(ta == DType::f32 && o == DType::bf16)) bad.push_back(o);
      // The mixed arm: an f32 b (an f64 or f16 b is outside its dtypes: dtype.unsupported).
      if (k.inputs[1].dtypes.list().size() == 1 && ta == DType::f32) bad = {DType::f32};
      if (bad.empty()) return std::nullopt;
      c.inputs[1] = gen::zeros(bad[index % bad.size()], s.b());
      return c;
    }
    return std::nullopt;
  }

  // Halves of m (a's rows), of n (b's columns), of k (both), and the first
  // matrix of a batch alone.
  // A bias is cut with the output axis it is aligned to (where it is not 1).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const MatmulShape s = shape_of(c);
    const std::size_t r = s.batch.size();
    std::vector<gen::Case> out;
    auto cut_bias = [&](gen::Case& d, std::size_t out_axis, std::int64_t start, std::int64_t len) {
      if (!has_bias(c)) return;
      const Dims& bd = c.inputs[2].dims();
      const std::size_t lead = r + 2 - bd.size();
      if (out_axis >= lead && bd[out_axis - lead] != 1) d.inputs[2] = gen::sliced(d.inputs[2], out_axis - lead, start, len);
    };
    auto cut = [&](std::size_t input, std::size_t axis, std::size_t out_axis, std::int64_t len) {
      for (std::int64_t start : {std::int64_t{0}, len}) {
        gen::Case d = c;
        d.inputs[input] = gen::sliced(c.inputs[input], axis, start, len);
        cut_bias(d, out_axis, start, len);
        out.push_back(std::move(d));
      }
    };
    if (s.batches() > 1) {
      gen::Case d = c;
      for (std::size_t in = 0; in < 2; ++in)
        for (std::size_t ax = 0; ax < r; ++ax) d.inputs[in] = gen::sliced(d.inputs[in], ax, 0, 1);
      for (std::size_t ax = 0; ax < r; ++ax) cut_bias(d, ax, 0, 1);
      out.push_back(std::move(d));
    }
    if (s.m > 1) cut(0, r, r, s.m / 2);
    if (s.n > 1) cut(1, r + 1, r + 1, s.n / 2);
    if (s.k > 1)
      for (std::int64_t start : {std::int64_t{0}, s.k / 2}) {
        gen::Case d = c;
        d.inputs[0] = gen::sliced(c.inputs[0], r + 1, start, start == 0 ? s.k / 2 : s.k - s.k / 2);
        d.inputs[1] = gen::sliced(c.inputs[1], r, start, start == 0 ? s.k / 2 : s.k - s.k / 2);
        out.push_back(std::move(d));
      }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {shape_of(c).out(), k.out_dtype(c.inputs.at(0).dtype())};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, checked_numel(shape_of(c).out()), f);
  }

  // Output o = (p, i, j) reads a[p, i, kk] and b[p, kk, j] for kk < k,
  // unflattened here from the output's shape.
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Tensor& a = c.inputs.at(0);
    const Tensor& b = c.inputs.at(1);
    const MatmulShape s = shape_of(c);
    // (two divisions, not three: each tens of cycles, per output)
    const std::int64_t row = o / s.n, j = o - row * s.n, p = row / s.m, i = row - p * s.m;
    oracle::Dot& in = input_as<oracle::Dot>(e);
    in.ctx = context_of(k, c);
    e.out = o;
    in.pairs.resize(static_cast<std::size_t>(2 * s.k));
    e.shown.clear();
    const ElementReader ra(a), rb(b);
    // (the pairs through a local pointer and flag, NaNs re-read exactly
    // apart: through e's members and value_exact's out-parameters, every
    // term stored the flag and reloaded, a fifth of a matmul output's
    // oracle cost; bench/exact_sum_bench.cpp)
    double* const args = in.pairs.data();
    const std::int64_t a0 = (p * s.m + i) * s.k, b0 = p * s.k * s.n + j;
    bool any_nan = false;
    if (a.dtype() == DType::f32 && b.dtype() == DType::f32) {
      any_nan = f32_pairs(a.bytes() + 4 * a0, b.bytes() + 4 * b0, s.n, s.k, args);
    } else {
      for (std::int64_t kk = 0; kk < s.k; ++kk) {
        const double va = ra.value(a0 + kk), vb = rb.value(b0 + kk * s.n);
        args[2 * kk] = va, args[2 * kk + 1] = vb;
        any_nan |= va != va || vb != vb;
      }
    }
    if (any_nan)
      for (std::int64_t kk = 0; kk < s.k; ++kk) {
        bool sa, sb;
        args[2 * kk] = ra.value_exact(a0 + kk, sa);
        args[2 * kk + 1] = rb.value_exact(b0 + kk * s.n, sb);
        in.ctx.signaling_nan |= sa || sb;
      }
    for (std::int64_t kk = 0; kk < std::min<std::int64_t>(s.k, 2); ++kk)
      e.shown.insert(e.shown.end(), {ra.bits(a0 + kk), rb.bits(b0 + kk * s.n)});
    const bool bias = has_bias(c), one = s.k == 1;
    if (bias) {  // the last, exact product bias x 1
      const Tensor& bt = c.inputs[2];
      const std::int64_t ib = source_of(bt.dims(), s.out(), o);
      bool sb;
      const ElementReader rbias(bt);
      in.pairs.insert(in.pairs.end(), {rbias.value_exact(ib, sb), 1.0});
      in.ctx.signaling_nan |= sb;
      if (one) e.shown.push_back(rbias.bits(ib));
    }
    e.names = !one ? std::vector<std::string_view>{}
              : bias ? std::vector<std::string_view>{"a", "b", "bias"}
                     : std::vector<std::string_view>{"a", "b"};
    e.replayable = one;
    // (formatted only when shown: Element::where_pattern)
    e.where_pattern = one ? nullptr
                      : bias ? (s.batch.empty() ? "{} products and the bias (row {} of a, column {} of b)"
                                                : "{} products and the bias (row {} of a, column {} of b, matrix {})")
                      : s.batch.empty() ? "{} products (row {} of a, column {} of b)"
                                        : "{} products (row {} of a, column {} of b, matrix {})";
    e.where_at = {s.k, i, j, p};
    return true;
  }

};

}  // namespace

void register_matmul(Registry& r) { r.push_back(std::make_unique<Matmul>()); }

}  // namespace kc::drivers
