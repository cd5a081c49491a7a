// Driver "matmul": a = [...batch, m, k], b = [...batch, k, n], equal ranks
// and batch prefixes; output element (p, i, j) is the dot product of row i
// of a's matrix p and column j of b's, its k pairs given to the entry's Dot
// oracle in the reference's order (kk ascending). Operand b's dtype is the
// entry's second operand's when that is a single dtype (the mixed arm: f32
// activations x bf16 weights), else the case's dtype.
#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/folds.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "oracles/exact.h"

namespace kc::drivers {

namespace {

struct MatmulShape {
  Dims batch;
  std::int64_t m = 0, k = 0, n = 0;
  std::int64_t batches() const { return checked_numel(batch); }
  Dims a() const { return with(m, k); }
  Dims b() const { return with(k, n); }
  Dims out() const { return with(m, n); }
  Dims with(std::int64_t r, std::int64_t c) const {
    Dims d = batch;
    d.push_back(r);
    d.push_back(c);
    return d;
  }
};

MatmulShape shape_of(const gen::Case& c) {
  const Dims& a = c.inputs.at(0).dims();
  const Dims& b = c.inputs.at(1).dims();
  const std::size_t r = a.size();
  return {Dims(a.begin(), a.end() - 2), a[r - 2], a[r - 1], b[r - 1]};
}

// The dtype of operand b in a case of dtype t.
DType b_dtype(const contract::KernelSpec& k, DType t) {
  const auto list = k.inputs.at(1).dtypes.list();
  return list.size() == 1 ? list.front() : t;
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
    return "one output [...batch, m, n] of a's dtype: a = [...batch, m, k] times b = [...batch, k, n]";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 2); !e.empty()) return e;
    return expects_oracle<oracle::Dot>(k, name());
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
          return operands(k, t, s);
        });
  }

  // k = 1: every product of two special values (and thresholds), a [v, 1]
  // times b [1, v]; k = 2: every ordered pair of them as a row of a times a
  // column of ones, so that every result class (an overflowing sum, a
  // subnormal one, NaN) is reached on every seed, as the folds' sweep does.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 2 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int index) const override {
    const std::vector<std::uint64_t> v = sweep_values(k, t);
    const DType tb = b_dtype(k, t);
    const auto n = static_cast<std::int64_t>(v.size());
    const std::uint64_t one = double_to_bits(tb, 1.0);
    if (index == 0) {
      std::vector<std::uint64_t> bv = sweep_values(k, tb);
      return gen::Case{{gen::tensor_of(t, {n, 1}, v),
                        gen::tensor_of(tb, {1, static_cast<std::int64_t>(bv.size())}, bv)}, Params(), false};
    }
    return gen::Case{{all_pairs(t, v), gen::tensor_of(tb, {2, 1}, {one, one})}, Params(), false};
  }

  // 128 x 48 times 48 x 4: 512 dot products of 48 terms, values uniform on
  // [-1, 1] (the folds' statistics values; b from another seed).
  std::optional<gen::Case> statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) const override {
    const DType tb = b_dtype(k, t);
    std::vector<std::uint64_t> bv = statistics_values(tb, seed ^ 0x9e3779b97f4a7c15ull);
    bv.resize(48 * 4);
    return gen::Case{{gen::tensor_of(t, {128, 48}, statistics_values(t, seed)), gen::tensor_of(tb, {48, 4}, bv)},
                     Params(), false};
  }

  // `--input A,B`: the 1 x 1 times 1 x 1 case (the product alone).
  std::optional<gen::Case> element_case(const contract::KernelSpec& k, DType t, std::span<const std::uint64_t> bits,
                                        const Params& p) const override {
    if (bits.size() != 2) return std::nullopt;
    return gen::Case{{gen::tensor_of(t, {1, 1}, {bits[0]}), gen::tensor_of(b_dtype(k, t), {1, 1}, {bits[1]})}, p, false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const MatmulShape s = shape_of(valid);
    const DType ta = valid.inputs[0].dtype(), tb = valid.inputs[1].dtype();
    const auto i = static_cast<std::int64_t>(index);
    const std::string r(rule.rule);
    if (r == "rank.min" || r == "rank.exact") {  // a (or b) of rank 1, or rank 3 for matmul_2d
      Dims d = r == "rank.min" ? Dims{2 + i} : Dims{1, 2, 2 + i};
      c.inputs[rule.operand == "a" ? 0 : 1] = gen::zeros(rule.operand == "a" ? ta : tb, d);
      return c;
    }
    if (r == "rank.mismatch") {  // b with one more leading dim
      Dims d = s.b();
      d.insert(d.begin(), 2 + i);
      c.inputs[1] = gen::zeros(tb, d);
      return c;
    }
    if (r == "batch.mismatch") {  // rank 3 (or more) with b's first batch dim off by 1 + index
      MatmulShape t2 = s;
      if (t2.batch.empty()) t2.batch.push_back(2);
      Dims db = t2.b();
      db[0] += 1 + i;
      c.inputs = {gen::zeros(ta, t2.a()), gen::zeros(tb, db)};
      return c;
    }
    if (r == "inner.mismatch") {
      MatmulShape t2 = s;
      Dims db = t2.b();
      db[db.size() - 2] = s.k + 1 + i;
      c.inputs[1] = gen::zeros(tb, db);
      return c;
    }
    if (r == "batch.empty") {  // [0, m, k] x [0, k, n] with m, n > 0
      const MatmulShape t2{{0}, 2 + i, 3, 2};
      c.inputs = {gen::zeros(ta, t2.a()), gen::zeros(tb, t2.b())};
      return c;
    }
    if (r == "dtype.mismatch") {  // b of a float dtype no arm pairs with a's
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
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const MatmulShape s = shape_of(c);
    const std::size_t r = s.batch.size();
    std::vector<gen::Case> out;
    auto cut = [&](std::size_t input, std::size_t axis, std::int64_t len) {
      for (std::int64_t start : {std::int64_t{0}, len}) {
        gen::Case d = c;
        d.inputs[input] = gen::sliced(c.inputs[input], axis, start, len);
        out.push_back(std::move(d));
      }
    };
    if (s.batches() > 1) {
      gen::Case d = c;
      for (std::size_t in = 0; in < 2; ++in)
        for (std::size_t ax = 0; ax < r; ++ax) d.inputs[in] = gen::sliced(d.inputs[in], ax, 0, 1);
      out.push_back(std::move(d));
    }
    if (s.m > 1) cut(0, r, s.m / 2);
    if (s.n > 1) cut(1, r + 1, s.n / 2);
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
  bool element_at(const contract::KernelSpec&, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Tensor& a = c.inputs.at(0);
    const Tensor& b = c.inputs.at(1);
    const MatmulShape s = shape_of(c);
    const std::int64_t j = o % s.n, i = (o / s.n) % s.m, p = o / (s.n * s.m);
    e.out = o;
    e.args.resize(static_cast<std::size_t>(2 * s.k));
    e.shown.clear();
    e.signaling_nan = false;
    const ElementReader ra(a), rb(b);
    for (std::int64_t kk = 0; kk < s.k; ++kk) {
      const std::int64_t ia = (p * s.m + i) * s.k + kk, ib = (p * s.k + kk) * s.n + j;
      bool sa, sb;
      e.args[static_cast<std::size_t>(2 * kk)] = ra.value_exact(ia, sa);
      e.args[static_cast<std::size_t>(2 * kk + 1)] = rb.value_exact(ib, sb);
      e.signaling_nan |= sa || sb;
      if (kk < 2) e.shown.insert(e.shown.end(), {ra.bits(ia), rb.bits(ib)});
    }
    const bool one = s.k == 1;
    e.names = one ? std::vector<std::string_view>{"a", "b"} : std::vector<std::string_view>{};
    e.replayable = one;
    // (formatted only when shown: Element::where_pattern)
    e.where_pattern = one                ? nullptr
                      : s.batch.empty() ? "{} products (row {} of a, column {} of b)"
                                        : "{} products (row {} of a, column {} of b, matrix {})";
    e.where_at = {s.k, i, j, p};
    return true;
  }

  void evaluate(const contract::KernelSpec& k, const oracle::Context& ctx, const Element& e,
                oracle::Exact& out) const override {
    k.oracle.as<oracle::Dot>()(oracle::Dot{ctx, e.args}, out);
  }
};

}  // namespace

void register_matmul(Registry& r) { r.push_back(std::make_unique<Matmul>()); }

}  // namespace kc::drivers
