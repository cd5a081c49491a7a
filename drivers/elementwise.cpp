// Driver "elementwise": one input tensor x, one output of x's shape; output
// element i depends on x[i] alone (unary kernels, casts). Sweeps: every
// input of a 16-bit dtype (once per parameter draw), and for casts from f32
// to a 16-bit format every f32 exponent with random mantissas and the
// target's ties.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

using contract::KernelSpec;

// f32 -> bf16/f16: the one-input kernels whose input dtype has too many
// values to sweep but whose rounding to the target has boundaries to find.
bool narrows_f32_to_half(const KernelSpec& k, DType t) {
  return t == DType::f32 && is_half(k.out_dtype(t));
}

// Every f32 exponent (256, incl. subnormals, inf/NaN) with 48 random
// mantissas, plus the mantissas at, just below and just above each
// midpoint of the target format, both signs.
gen::Case exponent_sweep(const KernelSpec& k, std::uint64_t seed, const Params& p) {
  const int drop = 24 - float_format(k.out_dtype(DType::f32)).precision;  // f32 mantissa bits below the target's last
  std::vector<std::uint64_t> bits;
  auto mant = rc::gen::inRange<std::uint32_t>(0, 1u << 23);
  for (std::uint32_t e = 0; e < 256; ++e) {
    for (int j = 0; j < 48; ++j)
      bits.push_back((e << 23) | mant(rc::Random(seed + e * 64 + static_cast<std::uint64_t>(j)), gen::kMaxSize).value());
    const std::uint32_t half = 1u << (drop - 1);
    for (std::uint32_t base : {0u, 0x155u << drop, 0x2AAu << drop}) {
      const std::uint32_t m = (base | half) & 0x7FFFFFu;
      for (std::uint32_t mm : {m, m - 1, m + 1, m | (1u << drop)}) bits.push_back((e << 23) | (mm & 0x7FFFFFu));
    }
  }
  std::vector<std::uint64_t> both = bits;
  for (auto b : bits) both.push_back(b | 0x80000000u);
  return gen::Case{{gen::tensor_of(DType::f32, {static_cast<std::int64_t>(both.size())}, both)}, p, true};
}

// Inputs at which results change class, reached on every seed alike: each
// contract threshold at 0, +-1, +-2, +-4, ..., +-2^30 ulps (a kernel that
// overflows a little early, or is wrong on a window of width 2^-16 around an
// edge of its libm's intervals, is caught), and 16 evenly spaced values
// between each pair of neighbouring thresholds (a band whose results are
// subnormal is graded inside, not only at its ends).
gen::Case threshold_sweep(const KernelSpec& k, DType t, const Params& p) {
  std::vector<double> pts;
  for (double v : k.values.points ? k.values.points(t) : std::vector<double>{}) {
    const double r = round_to_format(v, t);
    if (std::isfinite(r)) pts.push_back(r);
  }
  std::vector<std::uint64_t> bits;
  for (double v : pts) {
    const std::uint64_t b = double_to_bits(t, v);
    bits.push_back(b);
    for (int j = 0; j <= 30; ++j) {
      bits.push_back(gen::step_bits(t, b, 1 << j));
      bits.push_back(gen::step_bits(t, b, -(1 << j)));
    }
  }
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  for (std::size_t i = 0; i + 1 < pts.size(); ++i)
    for (int j = 1; j <= 16; ++j)
      bits.push_back(double_to_bits(t, round_to_format(pts[i] + (pts[i + 1] - pts[i]) * j / 17.0, t)));
  return gen::Case{{gen::tensor_of(t, {static_cast<std::int64_t>(bits.size())}, bits)}, p, false};
}

bool has_thresholds(const KernelSpec& k, DType t) { return k.values.points && is_float(t) && !k.values.points(t).empty(); }

class Elementwise final : public Driver {
 public:
  std::string_view name() const override { return "elementwise"; }
  bool one_to_one() const override { return true; }

  std::string output_rule(const KernelSpec& k) const override {
    return k.outputs.front().dtype ? "one output of x's shape in the destination dtype"
                          : "one output, same shape and dtype as the input(s)";
  }

  std::string check_entry(const KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 1); !e.empty()) return e;
    return expects_input<oracle::Scalar>(k, name());
  }

  rc::Gen<gen::Case> random_case(const KernelSpec& k, DType t) const override {
    const auto& op = k.inputs.front();
    auto elem = gen::element_bits(t, k.values);
    auto ps = gen::params(k.params);
    return rc::gen::mapcat(gen::shape(op.min_rank, op.max_rank), [t, elem, ps](Dims d) {
      const auto n = static_cast<std::size_t>(checked_numel(d));
      return rc::gen::apply(
          [t, d](const std::vector<std::uint64_t>& bits, const Params& p) {
            return gen::Case{{gen::tensor_of(t, d, bits)}, p, false};
          },
          rc::gen::container<std::vector<std::uint64_t>>(n, elem), ps);
    });
  }

  // Halves: every input (once per parameter draw). f32/f64: the thresholds
  // (once per parameter draw); casts from f32 to a half: every exponent.
  int sweep_count(const KernelSpec& k, DType t, int param_sweeps) const override {
    if (narrows_f32_to_half(k, t)) return 1;
    if (is_half(t) || has_thresholds(k, t)) return k.params.empty() ? 1 : param_sweeps;
    return 0;
  }

  gen::Case sweep_case(const KernelSpec& k, DType t, std::uint64_t seed, int) const override {
    Params p;
    if (!k.params.empty()) p = gen::params(k.params)(rc::Random(seed), gen::kMaxSize).value();
    if (narrows_f32_to_half(k, t)) return exponent_sweep(k, seed, p);
    if (!is_half(t)) return threshold_sweep(k, t, p);
    return gen::Case{{gen::every_16bit_pattern(t)}, p, true};
  }

  bool sweeps_are_exhaustive(const KernelSpec&, DType t) const override { return is_half(t); }

  // The main axis: x's elements, [n]. Any shape is a valid x; its values
  // the profile's, specials included (each element is its own: a NaN
  // hides no other).
  std::optional<Shaped> tail_shape(const KernelSpec&, DType, std::int64_t n) const override { return all_given({{n}}); }
  std::string shaped_error(const KernelSpec&, const Shaped&) const override { return {}; }
  gen::Case shaped_case(const KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Dims& d = s.dims.at(0);
    return gen::Case{{gen::tensor_of(t, d, shaped_values(t, k.values, static_cast<std::size_t>(checked_numel(d)), seed))},
                     shaped_params(k, s, seed), false};
  }

  std::optional<gen::Case> element_case(const KernelSpec&, DType t, std::span<const std::uint64_t> bits,
                                        const Params& p) const override {
    if (bits.size() != 1) return std::nullopt;
    return gen::Case{{gen::tensor_of(t, {1}, {bits[0]})}, p, false};
  }

  std::vector<gen::Case> shrink_candidates(const KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = {0}}, true);
  }

  Expectation expected_output(const KernelSpec& k, const gen::Case& c) const override {
    const Tensor& x = c.inputs.at(0);
    return {x.dims(), k.out_dtype(x.dtype())};
  }

  void for_each_element(const KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    // One Element, refilled: no allocation per element (a sweep has 65536).
    Element e;
    const std::int64_t n = c.inputs.at(0).numel();
    for (std::int64_t i = 0; i < n; ++i) {
      element_at(k, c, i, e);
      f(e);
    }
  }

  bool element_at(const KernelSpec& k, const gen::Case& c, std::int64_t i, Element& e) const override {
    const Tensor& x = c.inputs.at(0);
    // No `where`: an element with one named value per operand is shown by
    // its names and values (engine/failure_text.cpp).
    if (e.shown.size() != 1) e = Element{.shown = {0}, .names = {"x"}, .replayable = true};
    const double v = x.value_exact_at(i);  // (a signalling NaN stays one: the replay moves or quiets it)
    const std::uint64_t b = x.bits_at(i);
    oracle::Scalar in{context_of(k, c), v};
    in.ctx.signaling_nan = is_signaling_nan(x.dtype(), b);
    e.out = i;
    e.in = in;
    e.shown[0] = b;
    e.special_input = v;
    return true;
  }
};

}  // namespace

void register_elementwise(Registry& r) { r.push_back(std::make_unique<Elementwise>()); }

}  // namespace kc::drivers
