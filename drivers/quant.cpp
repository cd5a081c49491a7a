// Drivers of the quantized weights (reference-semantics.md §18,
// quant-formats.md): "dequantize" (dequantize_blocks: u32 words of ggml
// blocks -> f32 [n, k], every value bit for bit against the spec side's
// model, oracles/quant_model.h) and "qmatmul" (f32 a [M, K] times the
// dequantized [N, K] weight transposed: each output a dot product of K
// terms, graded by the dot oracle). Params: quant_type (ggml code 2, 8 or
// 12), k, n. The weight bytes are generated block by block: scale halves
// of moderate size mostly, any 16-bit pattern and the special halves
// (zeros, subnormals, infinities, NaN) besides, quant bytes uniform.
// The sweeps grade the dequantization exhaustively: every one of the 65536
// halves as Q4_0's and Q8_0's d, as Q4_K's d and dmin (dmin a permutation
// of d), and every (scale, min) pair of Q4_K's 6-bit fields.
#include <bit>

#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/folds.h"
#include "drivers/quant_weights.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/tensors.h"
#include "generators/values.h"
#include "oracles/quant_model.h"

namespace kc::drivers {

namespace {

namespace qm = oracle::quant;

struct QuantShape {
  std::int64_t type, n, k;
  qm::Format f;
  std::int64_t per_row() const { return k / f.elements; }
};
QuantShape shape_of(const gen::Case& c) {
  const std::int64_t type = c.params.integer("quant_type");
  return {type, c.params.integer("n"), c.params.integer("k"), *qm::format_of(type)};
}

// The weight's byte stream: the u32 words' little-endian bytes, which on a
// little-endian host are the words' memory itself (qm::bytes_of copies
// them where a copy per case is cheap; an element reads a few bytes).
static_assert(std::endian::native == std::endian::little, "the weight's bytes are read in place");
const std::uint8_t* stream_of(const Tensor& w) { return reinterpret_cast<const std::uint8_t*>(w.bytes()); }

// The rules of the weight and its params (both drivers): an unknown quant
// type, k not a block multiple, a word too few or too many.
std::optional<gen::Case> violate_weight(const contract::Precondition& rule, const gen::Case& valid, std::uint64_t index) {
  gen::Case c = valid;
  const QuantShape s = shape_of(valid);
  Tensor& w = c.inputs.back();
  if (rule.rule == Rule::quant_type_unsupported) {
    // No ggml type has these ids (4 and 5 were Q4_2 and Q4_3, removed): a
    // kernel that supports other ggml types (Q4_1, Q5_K, ...) must still
    // reject them. (Its results in those types are not graded: kconform has
    // their formats' oracles for Q4_0, Q8_0 and Q4_K only.)
    const std::int64_t others[] = {-1, 4, 5, 42, 1000, 65535, INT32_MAX};
    c.params.set("quant_type", others[index % 7]);
    return c;
  }
  if (rule.rule == Rule::k_block_multiple) {
    c.params.set("k", s.k + 1 + static_cast<std::int64_t>(index % 7));
    return c;
  }
  if (rule.rule == Rule::bytes_mismatch) {
    const std::int64_t words = std::max<std::int64_t>(0, w.numel() + (index % 2 == 0 ? -1 : 1));
    Tensor bad(DType::u32, {words});
    for (std::int64_t i = 0; i < words && i < w.numel(); ++i) bad.set_bits(i, w.bits_at(i));
    w = bad;
    return c;
  }
  return std::nullopt;
}

std::string quant_entry_check(const contract::KernelSpec& k) {
  for (std::string_view p : {"quant_type", "k", "n"})
    if (auto e = expects_param(k, p, contract::ParamKind::integer); !e.empty()) return e;
  return "";
}

// ---- dequantize_blocks ----------------------------------------------------

class Dequantize final : public Driver {
 public:
  std::string_view name() const override { return "dequantize"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "f32 [n, k]: row r is the values of blocks r k/epb .. (r + 1) k/epb - 1";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 1); !e.empty()) return e;
    if (auto e = quant_entry_check(k); !e.empty()) return e;
    return expects_input<oracle::Scalar>(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec&, DType) const override {
    return rc::gen::mapcat(rc::gen::container<std::vector<std::uint32_t>>(3, rc::gen::arbitrary<std::uint32_t>()),
                           [](const std::vector<std::uint32_t>& r) {
                             const Drawn d = draw_shape(r);
                             return rc::gen::map(weight_bytes(d.type, d.n, d.k), [d](const std::vector<std::uint8_t>& b) {
                               return gen::Case{{words_of(b)}, weight_params(d), false};
                             });
                           });
  }

  // 0: Q4_0, 1: Q8_0, every half as d (block r's d = r); 2: Q4_K, every
  // (scale, min) pair of the 6-bit fields (8 sub-blocks a super-block, 512
  // super-blocks), d = 1 and dmin = 1/2 so that each value shows its pair;
  // 3..: Q4_K, the halves h = 16 r + i of slice i (r < 4096) as d and as
  // dmin (dmin = 40503 h mod 2^16, a permutation: every half once as d and
  // once as dmin). A Q4_K block is 256 values, so the 16 slices are 16.7
  // million graded values, each compared with the model's exact value
  // without MPFR (fast::identity): about 5 s, every run.
  static constexpr int kQ4kSlices = 16;
  int sweep_count(const contract::KernelSpec&, DType, int) const override { return 3 + kQ4kSlices; }
  gen::Case sweep_case(const contract::KernelSpec&, DType, std::uint64_t seed, int index) const override {
    const std::int64_t type = index == 0 ? 2 : index == 1 ? 8 : 12;
    const qm::Format f = *qm::format_of(type);
    const std::int64_t n = index == 2 ? 512 : index < 2 ? 65536 : 65536 / kQ4kSlices;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n * f.bytes));
    std::uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(index + 1));
    for (auto& b : bytes) b = static_cast<std::uint8_t>(gen::splitmix64(s) >> 56);
    for (std::int64_t r = 0; r < n; ++r) {
      std::uint8_t* blk = bytes.data() + r * f.bytes;
      const auto put = [&](int at, std::uint16_t h) { blk[at] = static_cast<std::uint8_t>(h), blk[at + 1] = static_cast<std::uint8_t>(h >> 8); };
      if (index != 2) {
        const std::int64_t h = index < 2 ? r : kQ4kSlices * r + (index - 3);
        put(0, static_cast<std::uint16_t>(h));
        if (type == 12) put(2, static_cast<std::uint16_t>((h * 40503) & 0xFFFF));
        continue;
      }
      put(0, 0x3C00), put(2, 0x3800);
      std::uint8_t* scales = blk + 4;
      int sc[8], mn[8];
      for (int j = 0; j < 8; ++j) {
        const int pair = static_cast<int>(r) * 8 + j;  // 0 .. 4095
        sc[j] = pair % 64, mn[j] = pair / 64;
      }
      // get_scale_min_k4's packing, inverted.
      for (int j = 0; j < 4; ++j) {
        scales[j] = static_cast<std::uint8_t>(sc[j] | ((sc[j + 4] >> 4) << 6));
        scales[j + 4] = static_cast<std::uint8_t>(mn[j] | ((mn[j + 4] >> 4) << 6));
        scales[j + 8] = static_cast<std::uint8_t>((sc[j + 4] & 0xF) | ((mn[j + 4] & 0xF) << 4));
      }
    }
    return gen::Case{{words_of(bytes)}, weight_params({type, n, f.elements}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    return violate_weight(rule, valid, index);
  }

  // The main axis: k, a row's values (tail_weight: two rows, the type
  // cycling with the size); a line gives quant_type, k, n and w's words.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t size) const override {
    const Drawn d = tail_weight(size, 2);
    return all_given({{weight_words(d)}}, weight_params(d));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    return weight_error(k.name, s.params, s.dims.at(0).at(0));
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType, std::uint64_t seed, const Shaped& s) const override {
    const Drawn d = drawn_of(s.params);
    return gen::Case{{shaped_weight(d, seed)}, s.params, false};
  }

  // Halves of the rows (the words of whole rows; Q4_0 and Q8_0 keep an
  // even block count).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const QuantShape s = shape_of(c);
    std::vector<gen::Case> out;
    const std::int64_t row_bytes = s.per_row() * s.f.bytes;
    for (std::int64_t keep = 1; keep < s.n; ++keep) {
      if ((keep * row_bytes) % 4 != 0) continue;
      for (const bool tail : {false, true}) {
        const std::vector<std::uint8_t> all = qm::bytes_of(c.inputs[0]);
        const auto from = static_cast<std::ptrdiff_t>(tail ? (s.n - keep) * row_bytes : 0);
        const std::vector<std::uint8_t> part(all.begin() + from, all.begin() + from + keep * row_bytes);
        out.push_back(gen::Case{{words_of(part)}, weight_params({s.type, keep, s.k}), false});
      }
      break;  // the smallest whole-word cut
    }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec&, const gen::Case& c) const override {
    const QuantShape s = shape_of(c);
    return {{s.n, s.k}, DType::f32};
  }
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    // (The shape read once a case, not once an element: its parameters
    // are looked up by name.)
    const QuantShape s = shape_of(c);
    const oracle::Context ctx = context_of(k, c);
    Element e;
    for (std::int64_t o = 0; o < s.n * s.k; ++o) {
      fill(ctx, s, stream_of(c.inputs[0]), o, e);
      f(e);
    }
  }
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    fill(context_of(k, c), shape_of(c), stream_of(c.inputs[0]), o, e);
    return true;
  }

 private:
  static void fill(const oracle::Context& ctx, const QuantShape& s, const std::uint8_t* bytes, std::int64_t o,
                   Element& e) {
    const std::int64_t r = o / s.k, col = o % s.k, block = r * s.per_row() + col / s.f.elements;
    const int j = static_cast<int>(col % s.f.elements);
    const std::uint8_t* blk = bytes + block * s.f.bytes;
    const qm::Parts p = qm::parts_of(s.type, blk, j);
    e.out = o;
    e.in = oracle::Scalar{ctx, static_cast<double>(qm::value_of(s.type, blk, j))};
    static const std::vector<std::string_view> k_names{"d", "q"}, k4_names{"d", "dmin", "scale", "min", "q"};
    // (assign: an element is refilled in place, its vectors' storage reused)
    const auto code = static_cast<std::uint64_t>(p.code);
    if (s.type == 12) {
      e.names.assign(k4_names.begin(), k4_names.end());
      e.shown.assign({p.d, p.dmin, static_cast<std::uint64_t>(p.scale), static_cast<std::uint64_t>(p.min), code});
      e.shown_values.assign({f16_to_f32(f16{p.d}), f16_to_f32(f16{p.dmin}), 1.0 * p.scale, 1.0 * p.min, 1.0 * p.code});
    } else {
      e.names.assign(k_names.begin(), k_names.end());
      e.shown.assign({p.d, code});
      e.shown_values.assign({f16_to_f32(f16{p.d}), 1.0 * p.code});
    }
    e.replayable = false;
    e.where_pattern = "row {}, block {}, value {}";
    e.where_at = {r, col / s.f.elements, j};
  }
};

// ---- qmatmul ----------------------------------------------------------------

class Qmatmul final : public Driver {
 public:
  std::string_view name() const override { return "qmatmul"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "f32 [M, n]: out[m, j] = +0 + a[m, 0] w[j, 0] + ... in f32, w the dequantized [n, k]";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 2); !e.empty()) return e;
    if (auto e = quant_entry_check(k); !e.empty()) return e;
    return expects_input<oracle::Dot>(k, name());
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(rc::gen::container<std::vector<std::uint32_t>>(4, rc::gen::arbitrary<std::uint32_t>()),
                           [&k, t](const std::vector<std::uint32_t>& r) {
                             const Drawn d = draw_shape(r);
                             const std::int64_t m = 1 + r[3] % 4;
                             // Three cases in four: a's values all of the ordinary range (the
                             // profile's draws mapped into it), so that no huge or special
                             // term hides a wrong weight under its share of the bound.
                             const bool ordinary = (r[3] >> 8) % 4 != 0;
                             const double lo = k.values.lo, hi = k.values.hi;
                             return rc::gen::apply(
                                 [d, m, t, ordinary, lo, hi](std::vector<std::uint64_t> a, const std::vector<std::uint8_t>& b) {
                                   if (ordinary) gen::into_range(t, a, lo, hi);
                                   return gen::Case{{gen::tensor_of(t, {m, d.k}, a), words_of(b)},
                                                    weight_params(d), false};
                                 },
                                 gen::values_for(t, k.values, static_cast<std::size_t>(m * d.k)),
                                 weight_bytes(d.type, d.n, d.k));
                           });
  }

  // Rows of a of one value each, f32's special values and powers of two
  // from 2^-149 to 2^127, against a Q8_0 weight of two rows: quant bytes 1
  // under d = 2^-24 (the smallest subnormal half) and under d = 1, so that
  // the sums v 32 2^-24 and v 32 reach subnormal, near-underflow, normal,
  // near-overflow and infinite results.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return t == DType::f32 ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec&, DType t, std::uint64_t, int) const override {
    std::vector<std::uint64_t> row_values = gen::special_bits(t);
    for (int e = -149; e <= 127; ++e) row_values.push_back(double_to_bits(t, std::ldexp(1.0, e)));
    const auto rows = static_cast<std::int64_t>(row_values.size());
    std::vector<std::uint64_t> a;
    for (std::uint64_t v : row_values) a.insert(a.end(), 32, v);
    const qm::Format f = *qm::format_of(8);
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(2 * f.bytes), 1);
    bytes[0] = 0x01, bytes[1] = 0x00;                  // d = 2^-24
    bytes[f.bytes] = 0x00, bytes[f.bytes + 1] = 0x3C;  // d = 1
    return gen::Case{{gen::tensor_of(t, {rows, 32}, a), words_of(bytes)}, weight_params({8, 2, 32}), false};
  }

  // a [48, 128] of the statistics values (uniform on [-1, 1]) and a Q8_0
  // weight [16, 128] of random bytes and scales in [2^-8, 2^-7): 768 dot
  // products of 128 terms, values of both signs and similar sizes.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    const qm::Format f = *qm::format_of(8);
    const std::int64_t n = 16, k = 128;
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(n * (k / f.elements) * f.bytes));
    std::uint64_t s = seed;
    for (auto& b : bytes) b = static_cast<std::uint8_t>(gen::splitmix64(s) >> 56);
    for (std::size_t b = 0; b < bytes.size(); b += static_cast<std::size_t>(f.bytes)) {
      const auto h = static_cast<std::uint16_t>((7 << 10) | (gen::splitmix64(s) >> 54));  // 2^-8 (1 + m/1024)
      bytes[b] = static_cast<std::uint8_t>(h), bytes[b + 1] = static_cast<std::uint8_t>(h >> 8);
    }
    const std::vector<std::uint64_t> a = statistics_values(t, seed);  // 128 x 48 = 48 x 128
    return gen::Case{{gen::tensor_of(t, {48, k}, a), words_of(bytes)}, weight_params({8, n, k}), false};
  }

  // Weight rules as dequantize's; rank.exact: a of rank 3; shape.inner:
  // a's last dim one or more past k (the weight still matching k).
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    if (auto c = violate_weight(rule, valid, index)) return c;
    gen::Case c = valid;
    const Dims& a = valid.inputs[0].dims();
    if (rule.rule == Rule::rank_exact) {
      c.inputs[0] = gen::zeros(DType::f32, {1 + static_cast<std::int64_t>(index % 2), a[0], a[1]});
      return c;
    }
    if (rule.rule == Rule::shape_inner) {
      c.inputs[0] = gen::zeros(DType::f32, {a[0], a[1] + 1 + static_cast<std::int64_t>(index % 5)});
      return c;
    }
    return std::nullopt;
  }

  // The main axis: K (a [1, K] times a weight of 8 rows, tail_weight's
  // type and K); a line gives quant_type, k, n and w's words, a [M, k].
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t size) const override {
    const Drawn d = tail_weight(size, 8);
    return all_given({{1, d.k}, {weight_words(d)}}, weight_params(d));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (std::string e = weight_error(k.name, s.params, s.dims.at(1).at(0)); !e.empty()) return e;
    if (s.dims[0][1] != s.params.integer("k"))
      return fmt::format("{}: {} has {} columns, the weight k = {}", k.name, operand_text(k, s, 0), s.dims[0][1], s.params.integer("k"));
    return {};
  }
  // a uniform on [-1, 1] (a layer's activations), the weight shaped_weight's.
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Dims& a = s.dims[0];
    return gen::Case{{gen::tensor_of(t, a, uniform_values(t, static_cast<std::size_t>(checked_numel(a)), seed)),
                      shaped_weight(drawn_of(s.params), seed + 1)}, s.params, false};
  }

  // Fewer rows of a.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    std::vector<gen::Case> out;
    const Dims& a = c.inputs[0].dims();
    for (std::int64_t row = 0; a[0] > 1 && row < a[0]; ++row) {
      gen::Case s = c;
      Tensor one(DType::f32, {1, a[1]});
      for (std::int64_t kk = 0; kk < a[1]; ++kk) one.set_bits(kk, c.inputs[0].bits_at(row * a[1] + kk));
      s.inputs[0] = one;
      out.push_back(std::move(s));
    }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec&, const gen::Case& c) const override {
    return {{c.inputs[0].dims()[0], shape_of(c).n}, DType::f32};
  }
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, c.inputs[0].dims()[0] * shape_of(c).n, f);
  }
  // The pairs: a[m, 0], w[j, 0], a[m, 1], w[j, 1], ... (the model's values).
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const QuantShape s = shape_of(c);
    const std::uint8_t* bytes = stream_of(c.inputs[1]);
    const std::int64_t m = o / s.n, j = o % s.n;
    oracle::Dot& in = input_as<oracle::Dot>(e);
    in.ctx = context_of(k, c);
    in.pairs.clear();
    e.out = o;
    e.shown.clear();
    for (std::int64_t kk = 0; kk < s.k; ++kk) {
      const std::uint8_t* blk = bytes + (j * s.per_row() + kk / s.f.elements) * s.f.bytes;
      const float w = qm::value_of(s.type, blk, static_cast<int>(kk % s.f.elements));
      in.pairs.push_back(c.inputs[0].value_exact_at(m * s.k + kk));
      in.pairs.push_back(w);
      in.ctx.signaling_nan |= is_signaling_nan(DType::f32, c.inputs[0].bits_at(m * s.k + kk));
      if (kk < 2) e.shown.push_back(c.inputs[0].bits_at(m * s.k + kk)), e.shown.push_back(double_to_bits(DType::f32, w));
    }
    e.names = {};
    e.replayable = false;
    e.where_pattern = "a row {} . dequantized w row {} ({} terms)";
    e.where_at = {m, j, s.k};
    return true;
  }
};

}  // namespace

void register_quant(Registry& r) {
  r.push_back(std::make_unique<Dequantize>());
  r.push_back(std::make_unique<Qmatmul>());
}

}  // namespace kc::drivers
