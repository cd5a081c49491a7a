// Driver "attention" (reference-semantics.md §12): q [B, Hq, Sq, D], k and
// v [B, Hk, Sk, D], optional ALiBi slopes [Hq]; params softmax_scale,
// causal, window_left, window_right (-1: none), softcap (0: none). Output
// element (b, hq, qi, d) depends on q's row, the K and V of KV head hq /
// (Hq / Hk), the slope and the params: packed for the entry's Row oracle
// as oracles/attention_layout.h says. The parameter space is constructed,
// not filtered: GQA groups of 1-3, Sq != Sk (fewer keys than queries
// leaves causal rows with no key, windows that mask everything), Sk past
// one tile of 16, softcaps near 0 and large, ALiBi slopes of both signs.
#include <cmath>

#include <fmt/format.h>

#include "drivers/attention_rows.h"
#include "drivers/shaped.h"
#include "drivers/folds.h"
#include "generators/invalid.h"
#include "generators/tensors.h"
#include "oracles/attention_layout.h"
#include "oracles/det_math.h"

namespace kc::drivers {

namespace {

struct Shape {
  std::int64_t b, hq, hk, sq, sk, d;
};
Shape shape_of(const gen::Case& c) {
  const Dims &q = c.inputs[0].dims(), &k = c.inputs[1].dims();
  return {q[0], q[1], k[1], q[2], k[2], q[3]};
}

}  // namespace

rc::Gen<gen::Case> attention_case(const contract::KernelSpec& k, DType t, bool with_grad) {
  return rc::gen::mapcat(
      rc::gen::container<std::vector<std::uint32_t>>(8, rc::gen::arbitrary<std::uint32_t>()),
      [&k, t, with_grad](const std::vector<std::uint32_t>& r) {
        const std::int64_t b = 1 + r[0] % 2, hk = 1 + (r[0] >> 4) % 2, groups = 1 + (r[0] >> 8) % 3;
        const std::int64_t sq = 1 + r[1] % 6, d = 1 + (r[1] >> 8) % 8;
        const std::int64_t sk = (r[1] >> 16) % 5 == 0 ? 17 + (r[1] >> 20) % 24 : 1 + (r[1] >> 20) % 8;
        const Shape s{b, hk * groups, hk, sq, sk, d};
        Params p;
        const double scales[] = {1.0 / std::sqrt(static_cast<double>(d)), 1.0, 0.125, 4.0};
        p.set("softmax_scale", scales[r[2] % 4]);
        p.set("causal", static_cast<std::int64_t>((r[2] >> 4) % 2));
        p.set("window_left", (r[2] >> 8) % 3 == 0 ? static_cast<std::int64_t>((r[2] >> 12) % 4) : std::int64_t{-1});
        p.set("window_right", (r[2] >> 16) % 3 == 0 ? static_cast<std::int64_t>((r[2] >> 20) % 4) : std::int64_t{-1});
        const double caps[] = {0, 0, 0, 1.0, 5.0, 30.0, 0.01};
        p.set("softcap", caps[r[3] % 7]);
        const bool alibi = (r[3] >> 4) % 2 == 0;
        // Three cases in four: values of the ordinary range only.
        const bool ordinary = (r[3] >> 8) % 4 != 0;
        const double lo = k.values.lo, hi = k.values.hi;
        const auto nq = static_cast<std::size_t>(b * s.hq * sq * d), nk = static_cast<std::size_t>(b * hk * sk * d);
        // The backward's upstream gradient dO (q's shape) is input 3,
        // before the slopes; drawn as the values are.
        const bool tiny_grad = r[5] % 6 == 0;
        auto build = [t, s, p, alibi, ordinary, tiny_grad, lo, hi, seed = r[4]](std::vector<std::vector<std::uint64_t>> bits) {
          if (ordinary)
            for (auto& vec : bits) gen::into_range(t, vec, lo, hi);
          std::vector<Tensor> in{gen::tensor_of(t, {s.b, s.hq, s.sq, s.d}, bits[0]), gen::tensor_of(t, {s.b, s.hk, s.sk, s.d}, bits[1]),
                                 gen::tensor_of(t, {s.b, s.hk, s.sk, s.d}, bits[2])};
          if (bits.size() > 3) {
            Tensor dout = gen::tensor_of(t, {s.b, s.hq, s.sq, s.d}, bits[3]);
            // One backward case in six: an upstream gradient at the bottom
            // of T's range (ordinary values times 4 min_normal), whose
            // gradients underflow to subnormals and zeros on the way.
            if (ordinary && tiny_grad)
              for (std::int64_t i = 0; i < dout.numel(); ++i)
                dout.set_bits(i, double_to_bits(t, round_to_format(dout.value_at(i) * 4 * min_normal(t), t)));
            in.push_back(std::move(dout));
          }
          if (alibi) {
            in.push_back(alibi_slopes(t, s.hq, seed % 2 ? -1.0 : 1.0));  // (the sign flipped on odd seeds)
          }
          return gen::Case{std::move(in), p, false};
        };
        if (with_grad)
          return rc::gen::apply(
              [build](std::vector<std::uint64_t> q, std::vector<std::uint64_t> kv, std::vector<std::uint64_t> v,
                      std::vector<std::uint64_t> dout) { return build({std::move(q), std::move(kv), std::move(v), std::move(dout)}); },
              gen::values_for(t, k.values, nq), gen::values_for(t, k.values, nk), gen::values_for(t, k.values, nk),
              gen::values_for(t, k.values, nq));
        return rc::gen::apply(
            [build](std::vector<std::uint64_t> q, std::vector<std::uint64_t> kv, std::vector<std::uint64_t> v) {
              return build({std::move(q), std::move(kv), std::move(v)});
            },
            gen::values_for(t, k.values, nq), gen::values_for(t, k.values, nk), gen::values_for(t, k.values, nk));
      });
}

StatisticsValues::StatisticsValues(DType t, std::uint64_t seed) : t_(t), seed_(seed) {}
Tensor StatisticsValues::tensor(std::uint64_t salt, const Dims& d) const {
  std::int64_t n = 1;
  for (std::int64_t x : d) n *= x;
  std::vector<std::uint64_t> v = statistics_values(t_, seed_ ^ salt);
  v.resize(static_cast<std::size_t>(n));
  return gen::tensor_of(t_, d, v);
}

// Every stage of the kernel on: a window (row qi sees keys qi - 40 to qi
// + 12: rows of 13 to 45 keys), a softcap of 2 (scores up to about 2.8:
// tanh well off linear), ALiBi slopes of both signs and none (head 0),
// distances up to 47 (ALiBi terms up to 1.5), two query heads per KV head.
gen::Case attention_statistics_case(DType t, std::uint64_t seed, bool with_grad) {
  const StatisticsValues values(t, seed);
  Params p;
  p.set("softmax_scale", 1.0 / std::sqrt(8.0));
  p.set("causal", std::int64_t{0});
  p.set("window_left", std::int64_t{40});
  p.set("window_right", std::int64_t{12});
  p.set("softcap", 2.0);
  gen::Case c{{values.tensor(0, {1, 4, 32, 8}), values.tensor(0x9e3779b97f4a7c15ull, {1, 2, 48, 8}),
               values.tensor(0x3c6ef372fe94f82aull, {1, 2, 48, 8})},
              p, false};
  if (with_grad) c.inputs.push_back(values.tensor(0xdaa66d2c7ddf743full, {1, 4, 32, 8}));
  c.inputs.push_back(statistics_alibi(t));
  return c;
}

Tensor statistics_alibi(DType t) {
  return gen::tensor_of(t, {4}, {double_to_bits(t, 0.0), double_to_bits(t, 1.0 / 64), double_to_bits(t, -1.0 / 32),
                                 double_to_bits(t, 1.0 / 32)});
}

std::optional<gen::Case> attention_violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                         const gen::Case& valid, std::uint64_t index) {
  gen::Case c = valid;
  const DType t = valid.inputs[0].dtype();
  const Shape s = shape_of(valid);
  const Rule r = rule.rule;
  const std::string operand(rule.operand);
  const int at = operand == "q" ? 0 : operand == "k" ? 1 : operand == "v" ? 2 : 3;
  auto with_dims = [&](int i, Dims d) { c.inputs.at(static_cast<std::size_t>(i)) = gen::zeros(t, std::move(d)); };
  if (r == Rule::arity) {  // q and k only, or a fifth input
    if (index % 2 == 0) c.inputs.resize(2);
    else {
      if (c.inputs.size() < 4) c.inputs.push_back(gen::zeros(t, {s.hq}));
      c.inputs.push_back(gen::zeros(t, {s.hq}));
    }
  } else if (r == Rule::dtype_mismatch) {  // the other of f32 and f64 (the arm's dtypes)
    const DType other = t == DType::f32 ? DType::f64 : DType::f32;
    c.inputs.at(static_cast<std::size_t>(at)) = gen::zeros(other, valid.inputs[static_cast<std::size_t>(at)].dims());
  } else if (r == Rule::rank_exact) {
    Dims d = valid.inputs[static_cast<std::size_t>(at)].dims();
    if (index % 2 == 0) d.pop_back();
    else d.push_back(1);
    with_dims(at, d);
  } else if (r == Rule::batch_mismatch) {
    with_dims(at, {s.b + 1, s.hk, s.sk, s.d});
  } else if (r == Rule::heads_mismatch) {
    with_dims(2, {s.b, s.hk + 1, s.sk, s.d});
  } else if (r == Rule::seq_mismatch) {
    with_dims(2, {s.b, s.hk, s.sk + 1, s.d});
  } else if (r == Rule::head_dim_mismatch) {
    with_dims(at, {s.b, s.hk, s.sk, s.d + 1});
    if (at == 1) with_dims(2, {s.b, s.hk, s.sk, s.d + 1});  // (q vs k: k and v agree)
  } else if (r == Rule::gqa_group) {
    with_dims(1, {s.b, 2, s.sk, s.d});
    with_dims(2, {s.b, 2, s.sk, s.d});
    with_dims(0, {s.b, 3 + 2 * static_cast<std::int64_t>(index % 3), s.sq, s.d});
    if (c.inputs.size() > 3) c.inputs.pop_back();
  } else if (r == Rule::alibi_shape) {
    const Dims bad = index % 2 == 0 ? Dims{s.hq + 1} : Dims{1, s.hq};
    if (c.inputs.size() > 3) c.inputs[3] = gen::zeros(t, bad);
    else c.inputs.push_back(gen::zeros(t, bad));
  } else {
    return std::nullopt;
  }
  return c;
}

namespace {

// q, k, v, (dO,) slopes: the slopes are the entry's last operand, dO
// (the backward's) input 3.
bool takes_grad(const contract::KernelSpec& k) { return k.inputs.size() == 5; }

}  // namespace

Tensor alibi_slopes(DType t, std::int64_t hq, double sign) {
  Tensor sl(t, {hq});
  for (std::int64_t h = 0; h < hq; ++h)
    sl.set_bits(h, double_to_bits(t, round_to_format(sign * oracle::det::exp2(-8.0 * static_cast<double>(h + 1) / static_cast<double>(hq)), t)));
  return sl;
}

Shaped attention_tail(const contract::KernelSpec& k, std::int64_t n) {
  std::vector<Dims> d{{1, 1, 2, 8}, {1, 1, n, 8}, {1, 1, n, 8}};
  if (takes_grad(k)) d.push_back({1, 1, 2, 8});
  d.push_back({});
  Shaped s = all_given(std::move(d));
  s.given.back() = false;
  return s;
}

std::string attention_shape_error(const contract::KernelSpec& k, const Shaped& s) {
  const Dims &q = s.dims[0], &kk = s.dims[1], &v = s.dims[2];
  const std::size_t slopes = s.dims.size() - 1;
  if (kk != v) return fmt::format("{} and {} differ (k and v are of one shape)", operand_text(k, s, 1), operand_text(k, s, 2));
  if (q[0] != kk[0] || q[3] != kk[3])
    return fmt::format("{} and {} differ in their batch or head dim", operand_text(k, s, 0), operand_text(k, s, 1));
  if (kk[1] == 0 || q[1] % kk[1] != 0)
    return fmt::format("{}'s {} query heads are no multiple of {}'s {} KV heads", k.inputs[0].name, q[1], k.inputs[1].name, kk[1]);
  if (takes_grad(k) && s.dims[3] != q) return fmt::format("{} is not of q's shape {}", operand_text(k, s, 3), dims_to_string(q));
  if (s.given[slopes] && s.dims[slopes] != Dims{q[1]})
    return fmt::format("{} is not one slope per query head ([{}])", operand_text(k, s, slopes), q[1]);
  return {};
}

gen::Case attention_shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) {
  gen::Case c = uniform_case(s, std::vector<DType>(s.dims.size(), t), seed);
  Params p;
  p.set("softmax_scale", 1.0 / std::sqrt(static_cast<double>(s.dims[0][3])));
  p.set("causal", std::int64_t{0}).set("window_left", std::int64_t{-1}).set("window_right", std::int64_t{-1});
  p.set("softcap", 0.0);
  for (const auto& [name, value] : s.params.values()) p.set(name, value);
  c.params = p;
  if (s.given.back()) c.inputs.back() = alibi_slopes(t, s.dims[0][1]);
  return c;
}

namespace {

class Attention final : public AttentionRows {
 public:
  std::string_view name() const override { return "attention"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "q's shape and dtype [B, Hq, Sq, D]: out[b, hq, qi] = the softmax-weighted sum of v's rows";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (k.inputs.size() != 4) return "expects q, k, v and the optional alibi";
    return expects_input<oracle::Row>(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return attention_case(k, t, false);
  }
  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    return attention_violate(k, rule, valid, index);
  }

  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return attention_statistics_case(t, seed, false);
  }

  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return attention_tail(k, n);
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override { return attention_shape_error(k, s); }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return attention_shaped_case(k, t, seed, s);
  }

  // (attention_magnitude)
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    const Tensor& k = c.inputs.at(1);  // [B, Hkv, Sk, D]: Sk keys a row
    return attention_magnitude(c.inputs.at(0), k, c.inputs.at(2), k.dims().at(2), c.inputs.size() > 3 ? &c.inputs[3] : nullptr,
                               c.params);
  }

  // A cell's values are copied once for its D outputs (a 4096-key cell
  // is a million values).
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    Element e;
    for (std::int64_t o = 0; o < c.inputs.at(0).numel(); ++o) next_element(k, c, o, e), f(e);
  }
  void for_each_listed(const contract::KernelSpec& k, const gen::Case& c, std::span<const std::int64_t> out,
                       const std::function<void(const Element&)>& f) const override {
    Element e;
    for (std::int64_t o : out) next_element(k, c, o, e), f(e);
  }
  // e made output o's: moved along its cell where it holds o's cell's values.
  void next_element(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const {
    const Shape s = shape_of(c);
    if (!std::holds_alternative<oracle::Row>(e.in) || e.shown.empty() || o / s.d != e.out / s.d || o < e.out) {
      element_at(k, c, o, e);
      return;
    }
    const std::int64_t col = o % s.d, hq = (o / (s.d * s.sq)) % s.hq, b = o / (s.d * s.sq * s.hq);
    const std::int64_t kv_at = (b * s.hk + hq / (s.hq / s.hk)) * s.sk * s.d;
    std::get<oracle::Row>(e.in).i = static_cast<std::size_t>(col);
    e.out = o;
    if (s.sk > 0) e.shown[2] = c.inputs[2].bits_at(kv_at + col);
    e.statistics_sample = col == (o / s.d) % s.d;
    e.where_at[3] = col;
  }

  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Shape s = shape_of(c);
    const std::int64_t col = o % s.d, qi = (o / s.d) % s.sq, hq = (o / (s.d * s.sq)) % s.hq, b = o / (s.d * s.sq * s.hq);
    const std::int64_t kvh = hq / (s.hq / s.hk), kv_at = (b * s.hk + kvh) * s.sk * s.d, q_at = o - col;
    const bool slope = c.inputs.size() > 3;
    oracle::Row& r = input_as<oracle::Row>(e);
    r.ctx = context_of(k, c);
    e.out = o;
    r.fill = oracle::next_fill();
    r.i = static_cast<std::size_t>(col);
    r.a.assign({static_cast<double>(s.d), static_cast<double>(s.sk), static_cast<double>(qi), slope ? 1.0 : 0.0,
                   slope ? c.inputs[3].value_at(hq) : 0.0});
    const auto take = [&](const Tensor& x, std::int64_t from, std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i) {
        r.a.push_back(x.value_exact_at(from + i));
        r.ctx.signaling_nan |= is_signaling_nan(x.dtype(), x.bits_at(from + i));
      }
    };
    take(c.inputs[0], q_at, s.d);
    take(c.inputs[1], kv_at, s.sk * s.d);
    take(c.inputs[2], kv_at, s.sk * s.d);
    e.shown.assign({c.inputs[0].bits_at(q_at)});
    if (s.sk > 0) e.shown.insert(e.shown.end(), {c.inputs[1].bits_at(kv_at), c.inputs[2].bits_at(kv_at + col)});
    e.names.clear();
    e.replayable = false;
    e.statistics_sample = col == (o / s.d) % s.d;  // (one per query row, its column moving from row to row)
    e.where_pattern = "batch {}, query head {}, query {}, column {}";
    e.where_at = {b, hq, qi, col};
    return true;
  }
};

}  // namespace

void register_attention(Registry& r) { r.push_back(std::make_unique<Attention>()); }

}  // namespace kc::drivers
