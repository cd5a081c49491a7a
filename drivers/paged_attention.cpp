// Driver "paged_attention" (reference-semantics.md §12): q [B, Hq, Sq, D],
// k_cache and v_cache [num_blocks, block_size, Hkv, D], block_table
// [B, max_blocks] u32, context_lens [B] u32, optional ALiBi [Hq]; params
// softmax_scale, block_size, softcap. Output element (b, hq, qp, d) is
// attention over its context: the L = context_lens[b] rows gathered
// through the table (this driver's own index model), query position a =
// max(L - Sq, 0) + qp, keys past a masked; packed as attention_naive's
// (oracles/attention_layout.h) with qi = a. Cases are constructed: a
// random permutation of physical blocks with unused ones, table columns
// past a context unused, contexts shorter than Sq and empty.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "drivers/attention_rows.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

struct Paged {
  std::int64_t b, hq, sq, d, nb, bs, hkv, mb;
};
Paged paged_of(const gen::Case& c) {
  const Dims &q = c.inputs[0].dims(), &kc = c.inputs[1].dims(), &bt = c.inputs[3].dims();
  return {q[0], q[1], q[2], q[3], kc[0], kc[1], kc[2], bt[1]};
}

class PagedAttention final : public AttentionRows {
 public:
  std::string_view name() const override { return "paged_attention"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "q's shape and dtype [B, Hq, Sq, D]: attention over each batch's context through its block table";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (k.inputs.size() != 6) return "expects q, k_cache, v_cache, block_table, context_lens and the optional alibi";
    return expects_input<oracle::Row>(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(
        rc::gen::container<std::vector<std::uint32_t>>(8, rc::gen::arbitrary<std::uint32_t>()),
        [&k, t](const std::vector<std::uint32_t>& r) {
          const std::int64_t b = 1 + r[0] % 2, hkv = 1 + (r[0] >> 4) % 2, groups = 1 + (r[0] >> 8) % 3;
          const std::int64_t sq = 1 + r[1] % 4, d = 1 + (r[1] >> 8) % 6, bs = 1 + (r[1] >> 16) % 4;
          std::vector<std::int64_t> lens;
          std::int64_t need = 0, longest = 0;
          for (std::int64_t i = 0; i < b; ++i) {
            const std::int64_t len = (r[2] >> (8 * i)) % 13;  // 0..12: empty, shorter than Sq, longer
            lens.push_back(len);
            need += (len + bs - 1) / bs;
            longest = std::max(longest, (len + bs - 1) / bs);
          }
          const std::int64_t mb = longest + (r[3] % 2), nb = std::max<std::int64_t>(1, need + r[3] / 2 % 4);
          // Physical blocks: a permutation; each context takes the next ones, the rest unused.
          std::vector<std::int64_t> perm(static_cast<std::size_t>(nb));
          std::iota(perm.begin(), perm.end(), 0);
          std::uint64_t st = r[4] | (static_cast<std::uint64_t>(r[5]) << 32);
          for (std::size_t i = perm.size(); i > 1; --i) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            std::swap(perm[i - 1], perm[static_cast<std::size_t>((st >> 33) % i)]);
          }
          Tensor table(DType::u32, {b, mb}), ctx(DType::u32, {b});
          std::size_t next = 0;
          for (std::int64_t i = 0; i < b; ++i) {
            ctx.set_bits(i, static_cast<std::uint64_t>(lens[static_cast<std::size_t>(i)]));
            for (std::int64_t j = 0; j < mb; ++j) {
              const bool used = j * bs < lens[static_cast<std::size_t>(i)];
              table.set_bits(i * mb + j, static_cast<std::uint64_t>(used ? perm[next++] : perm[static_cast<std::size_t>(j) % perm.size()]));
            }
          }
          Params p;
          const double scales[] = {1.0 / std::sqrt(static_cast<double>(d)), 1.0, 0.25};
          p.set("softmax_scale", scales[r[6] % 3]).set("block_size", bs);
          const double caps[] = {0, 0, 5.0, 0.01};
          p.set("softcap", caps[(r[6] >> 4) % 4]);
          const bool alibi = (r[6] >> 8) % 2 == 0, ordinary = (r[6] >> 12) % 4 != 0;
          const double lo = k.values.lo, hi = k.values.hi;
          const std::int64_t hq = hkv * groups;
          const auto nq = static_cast<std::size_t>(b * hq * sq * d), nc = static_cast<std::size_t>(nb * bs * hkv * d);
          return rc::gen::apply(
              [=](std::vector<std::uint64_t> q, std::vector<std::uint64_t> kc, std::vector<std::uint64_t> vc) {
                if (ordinary)
                  for (auto* vec : {&q, &kc, &vc}) gen::into_range(t, *vec, lo, hi);
                std::vector<Tensor> in{gen::tensor_of(t, {b, hq, sq, d}, q), gen::tensor_of(t, {nb, bs, hkv, d}, kc),
                                       gen::tensor_of(t, {nb, bs, hkv, d}, vc), table, ctx};
                if (alibi) in.push_back(alibi_slopes(t, hq));
                return gen::Case{std::move(in), p, false};
              },
              gen::values_for(t, k.values, nq), gen::values_for(t, k.values, nc), gen::values_for(t, k.values, nc));
        });
  }

  // The main axis: the context, n keys (q [1, 1, 1, 8] at its last
  // position, blocks of 16 in a cache of ceil(n/16) + 1, one unused).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    const std::int64_t nb = (n + 15) / 16 + 1;
    Shaped s = all_given({{1, 1, 1, 8}, {nb, 16, 1, 8}, {nb, 16, 1, 8}, {1, nb - 1}, {1}, {}});
    s.given.back() = false;
    return s;
  }
  // A line's table and context lengths are drawn: each sequence's blocks
  // distinct physical ones (a permutation), its context its table's
  // capacity less its batch index (full, and ragged ends).
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    const Dims &q = s.dims[0], &kc = s.dims[1], &bt = s.dims[3];
    if (s.dims[2] != kc) return fmt::format("{}: {} and {} differ", k.name, operand_text(k, s, 1), operand_text(k, s, 2));
    if (q[3] != kc[3] || kc[2] == 0 || q[1] % kc[2] != 0)
      return fmt::format("{}: {} and {} differ in head dim, or the query heads are no multiple of the KV heads", k.name,
                         operand_text(k, s, 0), operand_text(k, s, 1));
    if (bt[0] != q[0] || s.dims[4] != Dims{q[0]} || bt[0] * bt[1] > kc[0])
      return fmt::format("{}: {} and {} are not one row and one length per sequence of {}, within {} blocks", k.name,
                         operand_text(k, s, 3), operand_text(k, s, 4), operand_text(k, s, 0), kc[0]);
    if (s.params.has("block_size") && s.params.integer("block_size") != kc[1])
      return fmt::format("{}: block_size {} is not the caches' {}", k.name, s.params.integer("block_size"), kc[1]);
    if (s.given[5] && s.dims[5] != Dims{q[1]}) return fmt::format("{}: {} is not one slope a query head", k.name, operand_text(k, s, 5));
    return {};
  }
  // (attention_magnitude, over the cache: as many keys as it holds)
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    // (a sequence's context: at most its table's blocks of block_size slots)
    const std::int64_t keys = c.inputs.at(3).dims().at(1) * c.inputs.at(1).dims().at(1);
    return attention_magnitude(c.inputs.at(0), c.inputs.at(1), c.inputs.at(2), keys,
                               c.inputs.size() > 5 ? &c.inputs[5] : nullptr, c.params);
  }
  // q and the caches uniform on [-1, 1]; scale 1/sqrt(D), no softcap,
  // ALiBi's slopes, where the line leaves them out.
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Dims &kc = s.dims[1], &bt = s.dims[3];
    gen::Case c = uniform_case(s, {t, t, t, DType::u32, DType::u32, t}, seed);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(kc[0]));
    std::iota(perm.begin(), perm.end(), 0);
    std::uint64_t st = seed ^ 0xa54ff53a5f1d36f1ull;
    for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[gen::splitmix64(st) % i]);
    for (std::int64_t j = 0; j < bt[0] * bt[1]; ++j) c.inputs[3].set_bits(j, static_cast<std::uint64_t>(perm[static_cast<std::size_t>(j)]));
    for (std::int64_t b = 0; b < bt[0]; ++b) c.inputs[4].set_bits(b, static_cast<std::uint64_t>(std::max<std::int64_t>(bt[1] * kc[1] - b, 0)));
    Params p;
    p.set("softmax_scale", 1.0 / std::sqrt(static_cast<double>(kc[3]))).set("block_size", kc[1]).set("softcap", 0.0);
    for (const auto& [name, value] : s.params.values()) p.set(name, value);
    c.params = p;
    if (s.given[5]) c.inputs[5] = alibi_slopes(t, s.dims[0][1]);
    return c;
  }

  // The attention driver's statistics case (drivers/attention_rows.h) in
  // the cache: q [1, 4, 32, 8], one context of 48 keys in blocks of 16 of
  // a 4-block cache (Hkv = 2), through the table {2, 0, 3} (block 1
  // unused), scale 1/sqrt(8), its softcap of 2 and ALiBi slopes. The
  // implicit causal offset gives query slot qp the keys 0..16 + qp: 128
  // rows of 17 to 48 keys, one output of each a sample (element_at).
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    const StatisticsValues values(t, seed);
    Tensor table(DType::u32, {1, 3}), ctx(DType::u32, {1});
    for (std::int64_t j = 0; const std::uint64_t blk : {2, 0, 3}) table.set_bits(j++, blk);
    ctx.set_bits(0, 48);
    Params p;
    p.set("softmax_scale", 1.0 / std::sqrt(8.0)).set("block_size", std::int64_t{16}).set("softcap", 2.0);
    return gen::Case{{values.tensor(0, {1, 4, 32, 8}), values.tensor(0x9e3779b97f4a7c15ull, {4, 16, 2, 8}),
                      values.tensor(0x3c6ef372fe94f82aull, {4, 16, 2, 8}), table, ctx, statistics_alibi(t)},
                     p, false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    gen::Case c = valid;
    const DType t = valid.inputs[0].dtype();
    const Paged s = paged_of(valid);
    const Rule r = rule.rule;
    const std::string operand(rule.operand);
    const std::map<std::string, std::size_t> at{{"q", 0}, {"k_cache", 1}, {"v_cache", 2}, {"block_table", 3}, {"context_lens", 4}, {"alibi", 5}};
    const std::size_t i = at.count(operand) ? at.at(operand) : 0;
    auto set = [&](std::size_t k, DType dt, Dims d) { c.inputs.at(k) = gen::zeros(dt, std::move(d)); };
    if (r == Rule::arity) {  // four inputs, or a seventh
      if (index % 2 == 0) c.inputs.resize(4);
      else {
        if (c.inputs.size() < 6) c.inputs.push_back(gen::zeros(t, {s.hq}));
        c.inputs.push_back(gen::zeros(t, {s.hq}));
      }
    } else if (r == Rule::rank_exact) {
      Dims d = valid.inputs[i].dims();
      d.push_back(1);
      set(i, valid.inputs[i].dtype(), d);
    } else if (r == Rule::dtype_unsupported && i >= 3) {
      set(i, t, valid.inputs[i].dims());
    } else if (r == Rule::dtype_mismatch) {
      set(i, t == DType::f32 ? DType::f64 : DType::f32, valid.inputs[i].dims());
    } else if (r == Rule::block_size_mismatch) {
      set(i, t, {s.nb, s.bs + 1, s.hkv, s.d});
    } else if (r == Rule::heads_mismatch) {
      set(2, t, {s.nb, s.bs, s.hkv + 1, s.d});
    } else if (r == Rule::head_dim_mismatch) {
      set(i, t, {s.nb, s.bs, s.hkv, s.d + 1});
    } else if (r == Rule::batch_mismatch) {
      Dims d = valid.inputs[i].dims();
      d[0] += 1;
      set(i, DType::u32, d);
    } else if (r == Rule::gqa_group) {
      set(1, t, {s.nb, s.bs, 2, s.d});
      set(2, t, {s.nb, s.bs, 2, s.d});
      set(0, t, {s.b, 3 + 2 * static_cast<std::int64_t>(index % 2), s.sq, s.d});
      if (c.inputs.size() > 5) c.inputs.pop_back();
    } else if (r == Rule::alibi_shape) {
      const Tensor bad = gen::zeros(t, {s.hq + 1});
      if (c.inputs.size() > 5) c.inputs[5] = bad;
      else c.inputs.push_back(bad);
    } else if (r == Rule::block_table_range) {  // a used entry past num_blocks
      Tensor ctx = c.inputs[4];
      ctx.set_bits(0, static_cast<std::uint64_t>(std::max<std::int64_t>(1, s.bs)));  // context 0 uses its first block
      c.inputs[4] = ctx;
      Tensor table = c.inputs[3];
      table.set_bits(0, static_cast<std::uint64_t>(s.nb + static_cast<std::int64_t>(index)));
      c.inputs[3] = table;
    } else if (r == Rule::context_len_capacity) {  // longer than the table's blocks hold
      Tensor ctx = c.inputs[4];
      ctx.set_bits(0, static_cast<std::uint64_t>(s.mb * s.bs + 1 + static_cast<std::int64_t>(index)));
      c.inputs[4] = ctx;
    } else {
      return std::nullopt;
    }
    return c;
  }

  bool element_at(const contract::KernelSpec& spec, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Paged s = paged_of(c);
    const std::int64_t col = o % s.d, qp = (o / s.d) % s.sq, hq = (o / (s.d * s.sq)) % s.hq, b = o / (s.d * s.sq * s.hq);
    const std::int64_t len = static_cast<std::int64_t>(c.inputs[4].bits_at(b)), a = std::max<std::int64_t>(len - s.sq, 0) + qp;
    const std::int64_t kvh = hq / (s.hq / s.hkv);
    const bool slope = c.inputs.size() > 5;
    oracle::Row& r = input_as<oracle::Row>(e);
    r.ctx = context_of(spec, c);
    e.out = o;
    r.i = static_cast<std::size_t>(col);
    r.fill = oracle::next_fill();
    r.a.assign({static_cast<double>(s.d), static_cast<double>(len), static_cast<double>(a), slope ? 1.0 : 0.0,
                   slope ? c.inputs[5].value_at(hq) : 0.0});
    for (std::int64_t x = 0; x < s.d; ++x) r.a.push_back(c.inputs[0].value_exact_at(o - col + x));
    // Row k of the context: block block_table[b, k / bs], slot k mod bs, head kvh.
    const auto row_at = [&](std::int64_t k) {
      const auto blk = static_cast<std::int64_t>(c.inputs[3].bits_at(b * s.mb + k / s.bs));
      return ((blk * s.bs + k % s.bs) * s.hkv + kvh) * s.d;
    };
    for (int which = 1; which <= 2; ++which)
      for (std::int64_t k = 0; k < len; ++k)
        for (std::int64_t x = 0; x < s.d; ++x) {
          r.a.push_back(c.inputs[static_cast<std::size_t>(which)].value_exact_at(row_at(k) + x));
          const Tensor& src = c.inputs[static_cast<std::size_t>(which)];
          r.ctx.signaling_nan |= is_signaling_nan(src.dtype(), src.bits_at(row_at(k) + x));
        }
    e.shown.assign({c.inputs[0].bits_at(o - col)});
    e.names.clear();
    e.replayable = false;
    e.statistics_sample = col == (o / s.d) % s.d;  // (one per query row, its column moving from row to row)
    e.where_pattern = "batch {}, query head {}, query slot {}, column {}";
    e.where_at = {b, hq, qp, col};
    return true;
  }
};

}  // namespace

void register_paged_attention(Registry& r) { r.push_back(std::make_unique<PagedAttention>()); }

}  // namespace kc::drivers
