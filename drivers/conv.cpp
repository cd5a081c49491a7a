// Driver "conv": 2-D convolutions (reference-semantics.md §9), each output
// a dot product given to the entry's Dot oracle in the reference's order:
//   conv2d:           x [N, Cin, H, W], weight [Cout, Cin/g, Kh, Kw], bias [Cout]
//                     (optional); out (n, co, oh, ow) folds x[n, g Cin_g + ci,
//                     oh sh + ky - ph, ow sw + kx - pw] w[co, ci, ky, kx] over
//                     ci, ky, kx (taps outside skipped), then + bias[co];
//   conv2d_simple:    the same without groups or bias, scalar stride and
//                     padding, and a saturating output size (one partial
//                     window where the kernel is taller than the padded input);
//   conv_transpose2d: x [N, Cin, H, W], weight [Cin, Cout/g, Kh, Kw];
//                     out (n, co, oh, ow) folds x[n, c, h, w] w[c, oc, ki, kj]
//                     over every (c in co's group, h, w, ki, kj) with h sh +
//                     ki dh - ph = oh and w sw + kj dw - pw = ow, in that
//                     lexicographic order (the scatter's arrival order).
// The index maths are written here, apart from kernels/conv.cpp.
#include <fmt/format.h>

#include "drivers/conv_geometry.h"
#include "drivers/folds.h"
#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "generators/values.h"

namespace kc::drivers {

namespace {

using namespace conv;  // (the geometry: drivers/conv_geometry.h)

// The (x, w) flat index pairs of output o, in the reference's order.
void pairs_of(Mode m, const Geometry& g, std::int64_t o, std::vector<std::pair<std::int64_t, std::int64_t>>& out) {
  out.clear();
  const std::int64_t ho = g.ho(m), wo = g.wo(m);
  const std::int64_t ow = o % wo, oh = (o / wo) % ho, co = (o / (wo * ho)) % g.cout, b = o / (wo * ho * g.cout);
  const std::int64_t grp = co / g.cout_g();
  auto xi = [&](std::int64_t c, std::int64_t i, std::int64_t j) { return ((b * g.cin + c) * g.h + i) * g.w + j; };
  if (m != conv_transpose2d) {
    for (std::int64_t ci = 0; ci < g.cin_g(); ++ci)
      for (std::int64_t ky = 0; ky < g.kh; ++ky)
        for (std::int64_t kx = 0; kx < g.kw; ++kx) {
          const std::int64_t i = oh * g.sh + ky - g.ph, j = ow * g.sw + kx - g.pw;
          if (i >= 0 && i < g.h && j >= 0 && j < g.w)
            out.emplace_back(xi(grp * g.cin_g() + ci, i, j), ((co * g.cin_g() + ci) * g.kh + ky) * g.kw + kx);
        }
    return;
  }
  const std::int64_t oc = co % g.cout_g();
  for (std::int64_t ci = 0; ci < g.cin_g(); ++ci) {
    const std::int64_t c = grp * g.cin_g() + ci;
    for (std::int64_t i = 0; i < g.h; ++i)
      for (std::int64_t j = 0; j < g.w; ++j)
        for (std::int64_t ki = 0; ki < g.kh; ++ki) {
          if (i * g.sh + ki * g.dh - g.ph != oh) continue;
          for (std::int64_t kj = 0; kj < g.kw; ++kj)
            if (j * g.sw + kj * g.dw - g.pw == ow) out.emplace_back(xi(c, i, j), ((c * g.cout_g() + oc) * g.kh + ki) * g.kw + kj);
        }
  }
}

class Conv final : public Driver {
 public:
  std::string_view name() const override { return "conv"; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    switch (mode(k)) {
      case conv2d: return "[N, Cout, (H + 2ph - Kh)/sh + 1, (W + 2pw - Kw)/sw + 1], x's dtype";
      case conv2d_simple: return "[N, Cout, max(H + 2p - kH, 0)/stride + 1, max(W + 2p - kW, 0)/stride + 1], x's dtype";
      case conv_transpose2d:
        return "[N, Cout_g groups, (H - 1) sh + dh (Kh - 1) + oph + 1 - 2 ph, the same for W], x's dtype";
    }
    return "";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (!kModes.contains(k.name)) return fmt::format("driver 'conv' has no index model for kernel '{}'", k.name);
    return expects_input<oracle::Dot>(k, name());
  }

  // Geometries drawn directly valid: groups dividing both channel counts,
  // kernels within the padded input (conv2d; conv2d_simple may exceed it:
  // its partial window), conv_transpose2d's output at least one element
  // (padding pared down until it is), stride 0 and dilation 0 now and then;
  // x from the reductions' values (cancellation), the weights from the
  // entry's profile; conv2d with and without its bias.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = mode(k);
    return rc::gen::mapcat(
        rc::gen::container<std::vector<std::uint32_t>>(16, rc::gen::arbitrary<std::uint32_t>()),
        [&k, t, m](const std::vector<std::uint32_t>& r) {
          auto pick = [&](std::size_t i, std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(r[i] % static_cast<std::uint32_t>(hi - lo + 1)); };
          Geometry g{.n = pick(0, 1, 2), .cin = 0, .h = pick(1, 1, 8), .w = pick(2, 1, 8), .cout = 0, .kh = 1, .kw = 1,
                     .sh = pick(3, 1, 3), .sw = pick(4, 1, 3), .ph = pick(5, 0, 2), .pw = pick(6, 0, 2)};
          g.groups = m == conv2d_simple ? 1 : pick(7, 1, 3);
          g.cin = g.groups * pick(8, 1, 3);
          g.cout = g.groups * pick(9, 1, 3);
          if (m == conv2d_simple) g.sw = g.sh, g.pw = g.ph;
          g.kh = pick(10, 1, m == conv2d ? std::min<std::int64_t>(5, g.h + 2 * g.ph) : 4);
          g.kw = pick(11, 1, m == conv2d ? std::min<std::int64_t>(5, g.w + 2 * g.pw) : 4);
          if (m == conv_transpose2d) {
            g.h = pick(1, 1, 5), g.w = pick(2, 1, 5);
            g.sh = pick(3, 0, 3), g.sw = pick(4, 0, 3);
            if (r[12] % 4 != 0) g.sh = std::max<std::int64_t>(g.sh, 1), g.sw = std::max<std::int64_t>(g.sw, 1);  // stride 0: a quarter of cases
            g.dh = r[13] % 4 == 0 ? pick(13, 0, 2) : 1, g.dw = r[13] % 4 == 0 ? pick(14, 0, 2) : 1;
            g.oph = r[15] % 3 == 0 ? pick(15, 0, 2) : 0, g.opw = r[15] % 3 == 0 ? pick(12, 0, 2) : 0;
            while (g.ph > 0 && g.ho(m) < 1) --g.ph;
            while (g.pw > 0 && g.wo(m) < 1) --g.pw;
          }
          g.bias = m == conv2d && r[12] % 2 == 0;
          const Dims dx{g.n, g.cin, g.h, g.w}, dw = weight_dims(m, g);
          const auto nx = static_cast<std::size_t>(checked_numel(dx)), nw = static_cast<std::size_t>(checked_numel(dw));
          return rc::gen::map(
              rc::gen::tuple(gen::reduction_values(t, k.values, nx), gen::values_for(t, k.values, nw),
                             gen::values_for(t, k.values, static_cast<std::size_t>(g.cout))),
              [t, m, g, dx, dw](const std::tuple<std::vector<std::uint64_t>, std::vector<std::uint64_t>, std::vector<std::uint64_t>>& v) {
                gen::Case c{{gen::tensor_of(t, dx, std::get<0>(v)), gen::tensor_of(t, dw, std::get<1>(v))}, params_of(m, g), false};
                if (g.bias) c.inputs.push_back(gen::tensor_of(t, {g.cout}, std::get<2>(v)));
                return c;
              });
        });
  }

  // Every product of two special values (and thresholds): x [1, 1, v, 1]
  // against v output channels of 1 x 1 weights; every ordered pair summed:
  // two input channels of 1 x 1 weights of one.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 2 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int index) const override {
    const Mode m = mode(k);
    const std::vector<std::uint64_t> v = sweep_values(k, t);
    const auto n = static_cast<std::int64_t>(v.size());
    Geometry g{.n = 1, .cin = 1, .h = n, .w = 1, .cout = n, .kh = 1, .kw = 1, .sh = 1, .sw = 1, .ph = 0, .pw = 0};
    if (index == 0) return gen::Case{{gen::tensor_of(t, {1, 1, n, 1}, v), gen::tensor_of(t, weight_dims(m, g), v)}, params_of(m, g), false};
    const Tensor pairs = all_pairs(t, v);  // [n^2, 2]: channel 0 the a's, channel 1 the b's
    Tensor x(t, {1, 2, n * n, 1});
    for (std::int64_t r = 0; r < n * n; ++r) x.set_bits(r, pairs.bits_at(2 * r)), x.set_bits(n * n + r, pairs.bits_at(2 * r + 1));
    g = Geometry{.n = 1, .cin = 2, .h = n * n, .w = 1, .cout = 1, .kh = 1, .kw = 1, .sh = 1, .sw = 1, .ph = 0, .pw = 0};
    const std::uint64_t one = double_to_bits(t, 1.0);
    return gen::Case{{x, gen::tensor_of(t, weight_dims(m, g), {one, one})}, params_of(m, g), false};
  }

  // 512 outputs of 48 products: 48 input channels of [16, 8], 1 x 1
  // weights, values uniform on [-1, 1].
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) const override {
    const Mode m = mode(k);
    const Geometry g{.n = 1, .cin = 48, .h = 16, .w = 8, .cout = 4, .kh = 1, .kw = 1, .sh = 1, .sw = 1, .ph = 0, .pw = 0};
    const std::vector<std::uint64_t> xv = statistics_values(t, seed);
    std::vector<std::uint64_t> wv = statistics_values(t, seed ^ 0x9e3779b97f4a7c15ull);
    wv.resize(static_cast<std::size_t>(g.cin * g.cout));
    return gen::Case{{gen::tensor_of(t, {1, 48, 16, 8}, xv), gen::tensor_of(t, weight_dims(m, g), wv)}, params_of(m, g), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    const Mode m = mode(k);
    const DType t = valid.inputs[0].dtype();
    const Rule r = rule.rule;
    const std::string operand(rule.operand);
    // A valid frame to break: x [1, 4, 5, 5], groups 2, 3 x 3 kernels.
    const Geometry g{.n = 1, .cin = 4, .h = 5, .w = 5, .cout = 4, .kh = 3, .kw = 3, .sh = 1, .sw = 1, .ph = 0, .pw = 0,
                     .groups = m == conv2d_simple ? 1 : 2};
    if (std::optional<gen::Case> c = violate_operands(m, r, operand, valid, t, g, index)) return c;
    return violate_shapes(m, r, valid, t, g, index);
  }

  // The batch cut to one image, then halves of the output channels (of
  // the weights: conv2d also cuts bias; conv_transpose2d per group) and of
  // the input's rows and columns where the output keeps at least one.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Mode m = mode(k);
    const Geometry g = geometry(m, c);
    std::vector<gen::Case> out;
    if (g.n > 1) {
      gen::Case s = c;
      s.inputs[0] = gen::sliced(c.inputs[0], 0, 0, 1);
      out.push_back(std::move(s));
    }
    if (g.groups == 1 && g.cout > 1) {
      for (const bool second : {false, true}) {
        gen::Case s = c;
        const std::int64_t half = g.cout / 2, start = second ? half : 0, len = second ? g.cout - half : half;
        s.inputs[1] = gen::sliced(c.inputs[1], m == conv_transpose2d ? 1 : 0, start, len);
        if (g.bias) s.inputs[2] = gen::sliced(c.inputs[2], 0, start, len);
        out.push_back(std::move(s));
      }
    }
    if (g.groups == 1 && g.cin > 1) {  // halves of the input channels, in x and the weights together
      for (const bool second : {false, true}) {
        gen::Case s = c;
        const std::int64_t half = g.cin / 2, start = second ? half : 0, len = second ? g.cin - half : half;
        s.inputs[0] = gen::sliced(c.inputs[0], 1, start, len);
        s.inputs[1] = gen::sliced(c.inputs[1], m == conv_transpose2d ? 0 : 1, start, len);
        out.push_back(std::move(s));
      }
    }
    for (std::size_t axis : {std::size_t{2}, std::size_t{3}}) {
      const std::int64_t d = c.inputs[0].dims()[axis];
      if (d < 2) continue;
      for (const bool second : {false, true}) {
        gen::Case s = c;
        s.inputs[0] = gen::sliced(c.inputs[0], axis, second ? d / 2 : 0, second ? d - d / 2 : d / 2);
        const Geometry h = geometry(m, s);
        const bool fits = m != conv2d || (h.h + 2 * h.ph >= h.kh && h.w + 2 * h.pw >= h.kw);
        if (fits && h.ho(m) >= 1 && h.wo(m) >= 1) out.push_back(std::move(s));
      }
    }
    return out;
  }

  // The main axis: the contracted one, the input channels (tail_shapes).
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return tail_shapes(mode(k), n);
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    return shaped_geometry_error(mode(k), k, s);
  }
  // x, the weights and the bias uniform on [-1, 1] (a layer's activations
  // and weights); the parameters a line leaves out PyTorch's defaults.
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = uniform_case(s, {t, t, t}, seed);
    c.params = with_defaults(mode(k), s.params);
    return c;
  }

  // Every mode's output sums, per weight element of its group's input
  // channels, at most one product (conv2d: its window; the transpose: the
  // one input position the weight element maps there), so at most
  // (cin / groups) kh kw products of at most max|x| max|w|, plus the bias.
  std::optional<double> shaped_magnitude(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Geometry g = geometry(mode(k), c);
    return products_magnitude(c, g.cin_g() * g.kh * g.kw);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Mode m = mode(k);
    const Geometry g = geometry(m, c);
    return {{g.n, g.cout, g.ho(m), g.wo(m)}, k.out_dtype(c.inputs.at(0).dtype())};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, checked_numel(expected_output(k, c).dims()), f);
  }

  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Mode m = mode(k);
    const Geometry g = geometry(m, c);
    static thread_local std::vector<std::pair<std::int64_t, std::int64_t>> taps;
    pairs_of(m, g, o, taps);
    const ElementReader x(c.inputs[0]), w(c.inputs[1]);
    oracle::Dot& in = input_as<oracle::Dot>(e);
    in.ctx = context_of(k, c);
    in.pairs.clear();
    e.out = o;
    e.shown.clear();
    for (const auto& [xi, wi] : taps) {
      bool sx, sw;
      in.pairs.insert(in.pairs.end(), {x.value_exact(xi, sx), w.value_exact(wi, sw)});
      in.ctx.signaling_nan |= sx || sw;
      if (e.shown.size() < 4) e.shown.insert(e.shown.end(), {x.bits(xi), w.bits(wi)});
    }
    if (g.bias) {  // bias[co] added last: the pair (bias, 1), whose product is exact
      const std::int64_t co = (o / (g.ho(m) * g.wo(m))) % g.cout;
      in.pairs.insert(in.pairs.end(), {c.inputs[2].value_exact_at(co), 1.0});
      in.ctx.signaling_nan |= is_signaling_nan(c.inputs[2].dtype(), c.inputs[2].bits_at(co));
    }
    const bool one = taps.size() == 1 && !g.bias;
    e.names = one ? std::vector<std::string_view>{"x", "weight"} : std::vector<std::string_view>{};
    e.replayable = false;
    // (formatted only when shown: Element::where_pattern)
    e.where_pattern = taps.size() == 1 ? (g.bias ? "{} product and the bias of output {}" : "{} product of output {}")
                                       : (g.bias ? "{} products and the bias of output {}" : "{} products of output {}");
    e.where_at = {static_cast<std::int64_t>(taps.size()), o};
    return true;
  }


 private:
  static Mode mode(const contract::KernelSpec& k) { return static_cast<Mode>(kModes.at(k.name)); }
};

}  // namespace

void register_conv(Registry& r) { r.push_back(std::make_unique<Conv>()); }

}  // namespace kc::drivers
