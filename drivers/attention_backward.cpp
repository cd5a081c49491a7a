// Driver "attention_backward" (attention_flash_backward; reference-
// semantics.md §12): q [B, Hq, Sq, D], k and v [B, Hk, Sk, D], the
// upstream gradient do_grad [B, Hq, Sq, D] and the optional ALiBi slopes
// [Hq]; the attention driver's params and parameter space (drivers/
// attention.cpp), with dO drawn as the values are. Three outputs (the
// entry's, drivers/driver.h Expectation::parts): dQ (q's shape),
// then dK and dV (k's shape, summed over the query heads of each KV head).
// Every output of a (batch, KV head) cell depends on the whole cell (its
// G = Hq / Hk query heads' q and dO rows, its K and V): each element
// carries the cell, packed as oracles/attention_layout.h Cell says, with
// its place among the cell's outputs as its form.
#include <fmt/format.h>

#include "drivers/attention_rows.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

struct Shape {
  std::int64_t b, hq, hk, sq, sk, d;
  std::int64_t groups() const { return hq / hk; }
  std::int64_t nq() const { return b * hq * sq * d; }
  std::int64_t nk() const { return b * hk * sk * d; }
};
Shape shape_of(const gen::Case& c) {
  const Dims &q = c.inputs[0].dims(), &k = c.inputs[1].dims();
  return {q[0], q[1], k[1], q[2], k[2], q[3]};
}

class AttentionBackward final : public AttentionRows {
 public:
  std::string_view name() const override { return "attention_backward"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "three outputs (dQ, dK, dV): q's shape [B, Hq, Sq, D], then k's and v's [B, Hk, Sk, D], q's dtype";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (k.inputs.size() != 5 || k.inputs[3].name != "do_grad") return "expects q, k, v, do_grad and the optional alibi";
    if (k.outputs.size() != 3) return "returns three outputs (dQ, dK, dV)";
    return expects_input<oracle::Row>(k, name());
  }
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return attention_case(k, t, true);
  }

  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return attention_tail(k, n);
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override { return attention_shape_error(k, s); }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return attention_shaped_case(k, t, seed, s);
  }

  // The forward's statistics case with dO (drivers/attention_rows.h); only
  // dQ's outputs are samples, one per query row: each of dK's and dV's
  // sums over every query row, so they share every row's softmax errors.
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return attention_statistics_case(t, seed, true);
  }

  // The forward's rules on the case without dO (the slopes then input 3),
  // dO put back with q's new shape where q is still rank 4 (so that only
  // the named rule is broken); dO's own rules here.
  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    const DType t = valid.inputs[0].dtype();
    const Rule r = rule.rule;
    const std::string operand(rule.operand);
    gen::Case c = valid;
    if (r == Rule::arity) {  // q, k and v only, or a sixth input
      if (index % 2 == 0) c.inputs.resize(3);
      else
        while (c.inputs.size() < 6) c.inputs.push_back(gen::zeros(t, {valid.inputs[0].dims()[1]}));
      return c;
    }
    if (operand == "do_grad") {
      Dims d = valid.inputs[0].dims();
      if (r == Rule::rank_exact) index % 2 == 0 ? d.pop_back() : d.push_back(1);
      else if (r == Rule::shape_mismatch) d[static_cast<std::size_t>(index % 4)] += 1;
      else if (r == Rule::dtype_mismatch) {
        c.inputs[3] = gen::zeros(t == DType::f32 ? DType::f64 : DType::f32, d);
        return c;
      } else
        return std::nullopt;
      c.inputs[3] = gen::zeros(t, d);
      return c;
    }
    gen::Case forward = valid;
    forward.inputs.erase(forward.inputs.begin() + 3);
    auto bad = attention_violate(k, rule, forward, index);
    if (!bad) return std::nullopt;
    const Dims& q = bad->inputs.at(0).dims();
    Tensor dout = q.size() == 4 ? gen::zeros(t, q) : valid.inputs[3];
    bad->inputs.insert(bad->inputs.begin() + std::min<std::ptrdiff_t>(3, static_cast<std::ptrdiff_t>(bad->inputs.size())),
                       std::move(dout));
    return bad;
  }

  bool several_outputs() const override { return true; }
  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return entry_outputs(k, c.inputs[0].dtype(), {c.inputs[0].dims(), c.inputs[1].dims(), c.inputs[2].dims()});
  }
  // A cell's values are copied once for its outputs in a row (a 4096-key
  // cell is a million values; each copy per element made a tails case's
  // grading quadratic).
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Shape s = shape_of(c);
    Element e;
    std::int64_t cell = -1;
    for (std::int64_t o = 0; o < s.nq() + 2 * s.nk(); ++o) next_element(k, c, o, e, cell), f(e);
  }
  void for_each_listed(const contract::KernelSpec& k, const gen::Case& c, std::span<const std::int64_t> out,
                       const std::function<void(const Element&)>& f) const override {
    Element e;
    std::int64_t cell = -1;
    for (std::int64_t o : out) next_element(k, c, o, e, cell), f(e);
  }
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    std::int64_t cell = -1;
    next_element(k, c, o, e, cell);
    return true;
  }

 private:
  // Where output o lies: its output (dQ, dK, dV), its (batch, head, row,
  // column) there, its KV head and its place among the cell's outputs.
  struct At {
    int part;
    std::int64_t b, head, row, col, kvh, form, at;
  };
  static At locate(const Shape& s, std::int64_t o) {
    const std::int64_t g = s.groups();
    const int part = o < s.nq() ? 0 : o < s.nq() + s.nk() ? 1 : 2;
    const std::int64_t at = part == 0 ? o : part == 1 ? o - s.nq() : o - s.nq() - s.nk();
    const std::int64_t heads = part == 0 ? s.hq : s.hk, rows = part == 0 ? s.sq : s.sk;
    const std::int64_t col = at % s.d, row = (at / s.d) % rows, head = (at / (s.d * rows)) % heads,
                       b = at / (s.d * rows * heads);
    const std::int64_t kvh = part == 0 ? head / g : head;
    std::int64_t form = part == 0 ? ((head % g) * s.sq + row) * s.d + col : g * s.sq * s.d + row * s.d + col;
    if (part == 2) form += s.sk * s.d;
    return {part, b, head, row, col, kvh, form, at};
  }

  // e made output o's, its cell's values copied where `cell` (b Hk + kvh,
  // the last one copied into e; -1: none) is not o's.
  void next_element(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e, std::int64_t& cell) const {
    const Shape s = shape_of(c);
    const At w = locate(s, o);
    const std::int64_t g = s.groups();
    const std::int64_t q_at = (w.b * s.hq + w.kvh * g) * s.sq * s.d, kv_at = (w.b * s.hk + w.kvh) * s.sk * s.d;
    oracle::Row& r = input_as<oracle::Row>(e);
    if (cell != w.b * s.hk + w.kvh) {
      cell = w.b * s.hk + w.kvh;
      fill_cell(k, c, s, w.kvh, q_at, kv_at, r);
    }
    e.out = o;
    r.i = static_cast<std::size_t>(w.form);
    // Shown: the element's own row's first q, dO, k and v values.
    const std::int64_t qrow = w.part == 0 ? (w.b * s.hq + w.head) * s.sq * s.d + w.row * s.d : q_at,
                       krow = w.part == 0 ? kv_at : kv_at + w.row * s.d;
    e.shown.assign({c.inputs[0].bits_at(qrow), c.inputs[3].bits_at(qrow)});
    if (s.sk > 0) e.shown.insert(e.shown.end(), {c.inputs[1].bits_at(krow), c.inputs[2].bits_at(krow)});
    e.names.clear();
    e.replayable = false;
    e.statistics_sample = w.part == 0 && w.col == (w.at / s.d) % s.d;  // (one per query row, its column moving)
    static constexpr const char* kWhere[] = {"dQ: batch {}, query head {}, query {}, column {}",
                                             "dK: batch {}, KV head {}, key {}, column {}",
                                             "dV: batch {}, KV head {}, key {}, column {}"};
    e.where_pattern = kWhere[w.part];
    e.where_at = {w.b, w.head, w.row, w.col};
  }

  // The cell packed (oracles/attention_layout.h Cell): G, Sq, Sk, D, the
  // slopes' flag and slopes, then q's and dO's G heads, K and V.
  static void fill_cell(const contract::KernelSpec& k, const gen::Case& c, const Shape& s, std::int64_t kvh, std::int64_t q_at,
                        std::int64_t kv_at, oracle::Row& r) {
    const std::int64_t g = s.groups();
    const bool slope = c.inputs.size() > 4;
    r.ctx = context_of(k, c);
    r.fill = oracle::next_fill();
    r.a.assign({static_cast<double>(g), static_cast<double>(s.sq), static_cast<double>(s.sk), static_cast<double>(s.d),
                slope ? 1.0 : 0.0});
    for (std::int64_t h = 0; h < g; ++h) r.a.push_back(slope ? c.inputs[4].value_at(kvh * g + h) : 0.0);
    const auto take = [&](const Tensor& x, std::int64_t from, std::int64_t n) {
      for (std::int64_t i = 0; i < n; ++i) {
        r.a.push_back(x.value_exact_at(from + i));
        r.ctx.signaling_nan |= is_signaling_nan(x.dtype(), x.bits_at(from + i));
      }
    };
    take(c.inputs[0], q_at, g * s.sq * s.d);
    take(c.inputs[3], q_at, g * s.sq * s.d);
    take(c.inputs[1], kv_at, s.sk * s.d);
    take(c.inputs[2], kv_at, s.sk * s.d);
  }
};

}  // namespace

void register_attention_backward(Registry& r) { r.push_back(std::make_unique<AttentionBackward>()); }

}  // namespace kc::drivers
