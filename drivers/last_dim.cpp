// Drivers of the row kernels of the last axis (reference-semantics.md §10):
// softmax and log_softmax, the norms, and their backwards. Every output
// element depends on its whole row: it is given to the entry's Row oracle
// with the row of each input (x; or y and g, x and g) and its position.
// Three drivers, by what the first input holds:
//   "last_dim":                  data (softmax, log_softmax, the norms; their
//                                backwards' x and g);
//   "last_dim_softmax_grad":     y, a softmax output (rows of rounded
//                                softmax values half the time), and g;
//   "last_dim_log_softmax_grad": y, a log_softmax output, and g.
// The rows are generated directly in the forms that stress these kernels
// (the list): the profile's values as they come (NaN and
// infinities make whole rows NaN), finite rows, rows of one value (a
// variance of 0), a dominant logit, rows shifted past exp's overflow
// threshold (where a softmax without its max subtraction overflows), rows
// spread over exp's whole range (where x_j - m's rounding matters most),
// and rows scaled to huge or tiny magnitudes.
#include <cmath>

#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "generators/invalid.h"
#include "generators/tensors.h"
#include "generators/values.h"
#include "oracles/det_math.h"

namespace kc::drivers {

namespace {

enum class FirstInput { data, softmax_output, log_softmax_output };

// The last axis's length and the number of rows (a rank-0 tensor, only in
// bad input, has none).
std::int64_t row_length(const Tensor& x) { return x.rank() == 0 ? 1 : x.dims().back(); }

// A finite value of T in place of a non-finite one (the finite row forms).
std::uint64_t finite_or(DType t, std::uint64_t bits, double fallback) {
  return std::isfinite(bits_to_double(t, bits)) ? bits : double_to_bits(t, round_to_format(fallback, t));
}

// Row forms (r picks one per case; `v` the profile's draws, `w` more
// randomness): each row is built from its own draws.
std::vector<std::uint64_t> shape_rows(DType t, std::vector<std::uint64_t> v, std::int64_t n, std::uint32_t form,
                                      std::uint32_t w) {
  if (form == 0 || n == 0) return v;  // as drawn: specials included
  for (std::size_t j = 0; j < v.size(); ++j) v[j] = finite_or(t, v[j], static_cast<double>(j % 7) - 3.0);
  // exp's overflow threshold of T (ln max_T): a shift past it overflows exp(x).
  const double over = oracle::det::log(max_finite(t));
  const double shifts[] = {0.5 * over, over * 1.01, 2 * over, -2 * over};
  for (std::size_t row = 0; row * static_cast<std::size_t>(n) < v.size(); ++row) {
    const std::size_t at = row * static_cast<std::size_t>(n);
    const std::uint32_t wr = w >> (row % 16);
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {
      const double x = bits_to_double(t, v[at + j]);
      const double unit = std::fmod(std::fabs(x), 4.0) - 2.0;  // in [-2, 2): a finite draw's spread
      double y = x;
      switch (form) {
        case 1: break;  // finite draws
        case 2: y = bits_to_double(t, v[at]); break;  // one value
        case 3: y = j == wr % static_cast<std::uint32_t>(n) ? unit + (wr % 3 == 0 ? 12.0 : wr % 3 == 1 ? 40.0 : 150.0) : unit; break;  // a dominant logit
        case 4: y = unit + shifts[wr % 4]; break;  // shifted past exp's thresholds
        case 5: y = unit * 0.45 * over; break;  // spread over exp's range: d_j from 0 to -1.8 ln max
        default: y = std::ldexp(unit, wr % 2 == 0 ? float_format(t).emax - 3 : float_format(t).emin + 4); break;  // huge or tiny
      }
      v[at + j] = double_to_bits(t, round_to_format(y, t));
    }
  }
  return v;
}

// y as the forward would return it for rows of x: exp(x - m)/sum or
// (x - m) - ln sum, in double, rounded to T (an input: close to a real
// forward output, not bit-equal to any kernel's).
std::vector<std::uint64_t> forward_output(DType t, const std::vector<std::uint64_t>& x, std::int64_t n, bool log_form) {
  std::vector<std::uint64_t> y(x.size());
  std::vector<double> e(static_cast<std::size_t>(n));  // (each exp and the row's ln once: MPFR's, det_math)
  for (std::size_t at = 0; at < x.size(); at += static_cast<std::size_t>(n)) {
    double m = -INFINITY, s = 0;
    for (std::int64_t j = 0; j < n; ++j) m = std::max(m, bits_to_double(t, x[at + static_cast<std::size_t>(j)]));
    for (std::int64_t j = 0; j < n; ++j)
      s += e[static_cast<std::size_t>(j)] = oracle::det::exp(bits_to_double(t, x[at + static_cast<std::size_t>(j)]) - m);
    const double ln_s = log_form ? oracle::det::log(s) : 0.0;
    for (std::int64_t j = 0; j < n; ++j) {
      const double d = bits_to_double(t, x[at + static_cast<std::size_t>(j)]) - m;
      y[at + static_cast<std::size_t>(j)] = double_to_bits(t, round_to_format(log_form ? d - ln_s : e[static_cast<std::size_t>(j)] / s, t));
    }
  }
  return y;
}

const std::vector<std::string_view> kX{"x"}, kYG{"y", "g"}, kXG{"x", "g"};

class LastDim final : public Driver {
 public:
  LastDim(std::string_view name, FirstInput first) : name_(name), first_(first) {}
  std::string_view name() const override { return name_; }
  std::string output_rule(const contract::KernelSpec& k) const override {
    return fmt::format("{}'s shape and dtype; each row of the last axis from that row alone", k.inputs.at(0).name);
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (k.inputs.empty() || k.inputs.size() > 2) return "expects one or two inputs (x; or y or x, and g)";
    if (first_ != FirstInput::data && k.inputs.size() != 2) return "a backward of softmax takes y and g";
    return expects_input<oracle::Row>(k, name());
  }

  // Shapes [lead.., n]: rank 1-3, leading dims 1-4 (0 rarely), n 1-8
  // mostly, up to 64; a row form per case for the first input (the
  // backwards' y from a forward of such rows half the time), g as drawn.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(
        rc::gen::container<std::vector<std::uint32_t>>(6, rc::gen::arbitrary<std::uint32_t>()),
        [&k, t, first = first_](const std::vector<std::uint32_t>& r) {
          Dims d;
          for (std::uint32_t a = 0; a < r[0] % 3; ++a) d.push_back(r[1] % 29 == 0 ? 0 : 1 + (r[1] >> (4 * a)) % 4);
          const std::uint32_t pick = r[2] % 16;
          const std::int64_t n = pick == 0 ? 1 : pick < 11 ? 2 + r[3] % 7 : 9 + r[3] % 56;
          // (An empty row where the entry allows one: the forward norms do not.)
          d.push_back(r[4] % 41 == 0 && !k.has_rule(Rule::last_dim_zero) ? 0 : n);
          const auto total = static_cast<std::size_t>(checked_numel(d));
          const std::uint32_t form = r[5] % 7, w = r[5] / 7;
          const bool derived = first != FirstInput::data && (r[4] >> 8) % 2 == 0;
          auto params = gen::params(k.params);
          return rc::gen::apply(
              [t, d, n, form, w, first, derived, two = k.inputs.size() == 2](const std::vector<std::uint64_t>& a,
                                                                             const std::vector<std::uint64_t>& b,
                                                                             const Params& p) {
                std::vector<std::uint64_t> x = shape_rows(t, a, n, derived ? 1 + form % 6 : form, w);
                if (derived) x = forward_output(t, x, n, first == FirstInput::log_softmax_output);
                std::vector<Tensor> in{gen::tensor_of(t, d, x)};
                if (two) in.push_back(gen::tensor_of(t, d, b));
                return gen::Case{std::move(in), p, false};
              },
              gen::values_for(t, k.values, total), gen::values_for(t, k.values, k.inputs.size() == 2 ? total : 0),
              params);
        });
  }

  // 128 rows of 48, values uniform on [-1, 1] (the folds' statistics
  // values; g from another seed; the backwards' y a forward's output of
  // such rows), eps = 1e-5 where the entry takes one. One element per row
  // is a sample (element_at): a row's elements share its sum's error, the
  // rows do not. The softmax backwards take 512 rows: the mean square
  // may exceed its limit by 6 of its own standard errors, estimated from
  // the sample, which grow with a defect as the mean square does (6 s.e.
  // is 6 sqrt((kurtosis - 1) / rows) of it, 0.9 at 128 rows here): a
  // defect shows only where the mean square passes the model's mean by
  // 1 / (1 - that), and d's share of these kernels' error is small beside
  // the last two roundings'. A d summed in bf16 passed at 128 rows (0.0032
  // against 0.0041) and fails at 512 (docs/accuracy-bounds.md).
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) const override {
    const std::int64_t kRows = first_ == FirstInput::data ? 128 : 512, kLength = 48;
    std::vector<std::uint64_t> x = statistics_values(t, seed, kRows * kLength);
    if (first_ != FirstInput::data) x = forward_output(t, x, kLength, first_ == FirstInput::log_softmax_output);
    std::vector<Tensor> in{gen::tensor_of(t, {kRows, kLength}, x)};
    if (k.inputs.size() == 2) {
      std::vector<std::uint64_t> g = statistics_values(t, seed ^ 0x9e3779b97f4a7c15ull, kRows * kLength);
      in.push_back(gen::tensor_of(t, {kRows, kLength}, g));
    }
    Params p;
    for (const auto& q : k.params)
      if (q.name == "eps") p.set("eps", 1e-5);
    return gen::Case{std::move(in), p, false};
  }

  // Every ordered pair (a, b) of the special values and thresholds as a
  // row of two (and as the row of g, swapped): the sums, maxima and
  // differences of every special pair.
  // softmax's backward also takes rows of y = 1 with the pairs as g:
  // dx = (-b, -a), every special value as a result (up to +-max). The data
  // drivers take rows of three: (-a, b, a) (its middle output is b's
  // scale over a's: tiny and subnormal normalized values), and with a
  // second input x = (-a, 0, a), g = (0, b, 0) (a gradient of any
  // magnitude on a row of any spread: results from subnormal up to max).
  // The norm backwards (data and g) take a third: fold-adversarial rows.
  int sweep_count(const contract::KernelSpec& k, DType t, int) const override {
    if (!is_float(t)) return 0;
    return first_ == FirstInput::log_softmax_output ? 1 : first_ == FirstInput::data && k.inputs.size() == 2 ? 3 : 2;
  }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, int index) const override {
    if (index == 2) return fold_adversarial_case(k, t, seed);
    const Tensor pairs = all_pairs(t, sweep_values(k, t));
    std::vector<Tensor> in{pairs};
    if (index == 1 && first_ == FirstInput::softmax_output) {
      Tensor ones(t, pairs.dims());
      for (std::int64_t i = 0; i < ones.numel(); ++i) ones.set_bits(i, double_to_bits(t, 1.0));
      return gen::Case{{std::move(ones), pairs}, Params(), false};
    }
    if (index == 1) {
      const std::int64_t rows = pairs.dims()[0];
      const bool two = k.inputs.size() == 2;
      Tensor x(t, {rows, 3}), g(t, {rows, 3});
      for (std::int64_t r = 0; r < rows; ++r) {
        const double a = pairs.value_at(2 * r), b = pairs.value_at(2 * r + 1);
        const double row[3] = {-a, two ? 0.0 : b, a}, grad[3] = {0.0, b, 0.0};
        for (int j = 0; j < 3; ++j) {
          x.set_bits(3 * r + j, double_to_bits(t, round_to_format(row[j], t)));
          g.set_bits(3 * r + j, double_to_bits(t, grad[j]));
        }
      }
      in = {x};
      if (two) in.push_back(g);
    } else if (k.inputs.size() == 2) {
      Tensor swapped(t, pairs.dims());
      for (std::int64_t r = 0; r < pairs.dims()[0]; ++r)
        swapped.set_bits(2 * r, pairs.bits_at(2 * r + 1)), swapped.set_bits(2 * r + 1, pairs.bits_at(2 * r));
      in.push_back(std::move(swapped));
    }
    Params p;
    for (const auto& spec : k.params) p.set(std::string(spec.name), spec.samples.empty() ? 0.0 : spec.samples[seed % spec.samples.size()]);
    return gen::Case{std::move(in), p, false};
  }

  // Rows where the folds of g (sum g, sum g x) reach their gamma_(n-1)
  // allowance: TOSA's small values added to a large one. g = (G, t_1 ..
  // t_(n-2), 0) with G = 16 and every t_j within (u G, 2u G) or just
  // below u G; x = 2^-5 on the whole row (layer_norm: yh = 0, dx = -r sum
  // g / N at the last position; rms_norm: the products g_j x_j exact and
  // of the same pattern, D = x^2 + E nearly E), eps = 0.1 (so the folds
  // of x, exact but allowed gamma_(n-1) of their terms, move r by under
  // 1% of that). Each t_j leaves a fold at G: to nearest below u G it is
  // lost whole (the reference reaches 0.8 of the bound: the fold's error
  // (n - 2) 0.95 u G against its allowance (n - 1) u G); above, rounding
  // to nearest loses 2u G - t_j, toward zero t_j itself, 1.5 times the
  // allowance (docs/accuracy-bounds.md "Norms"). The last g is 0, so
  // dx's last element is the fold's share alone. Rows of 32 (gamma_31's
  // 1/(1 - 31u) stays below 1.14 in bf16); G x and t_j x normal in f16.
  static gen::Case fold_adversarial_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) {
    constexpr std::int64_t kRows = 4, kLength = 32;
    const double u = std::ldexp(1.0, -float_format(t).precision), big = 16, x = 1.0 / 32;
    // (uniform on [0, 1]: the statistics cases' values, in f64)
    const std::vector<std::uint64_t> draws = statistics_values(DType::f64, seed, kRows * kLength);
    Tensor xs(t, {kRows, kLength}), gs(t, {kRows, kLength});
    for (std::int64_t r = 0; r < kRows; ++r)
      for (std::int64_t j = 0; j < kLength; ++j) {
        const bool lost_whole = r < kRows / 2;
        const double w = (bits_to_double(DType::f64, draws[static_cast<std::size_t>(r * kLength + j)]) + 1) / 2;
        const double small = u * big * (lost_whole ? 0.90 + 0.09 * w : 1.2 + 0.7 * w);
        const double g = j == 0 ? big : j == kLength - 1 ? 0.0 : small;
        xs.set_bits(r * kLength + j, double_to_bits(t, x));
        gs.set_bits(r * kLength + j, double_to_bits(t, round_to_format(g, t)));
      }
    Params p;
    for (const auto& q : k.params)
      if (q.name == "eps") p.set("eps", 0.1);
    return gen::Case{{std::move(xs), std::move(gs)}, p, false};
  }

  // rank.min: scalar inputs; last_dim.zero: an empty last axis;
  // shape.mismatch: g one longer in its last dim, or of one more leading dim.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule, const gen::Case& valid,
                                   std::uint64_t index) const override {
    gen::Case c = valid;
    const DType t = valid.inputs[0].dtype();
    if (rule.rule == Rule::rank_min) {
      for (Tensor& x : c.inputs) x = gen::zeros(t, {});
      return c;
    }
    if (rule.rule == Rule::last_dim_zero) {  // rows of no element
      Dims empty = c.inputs[0].dims();
      empty.back() = 0;
      if (index % 2 == 1) empty.insert(empty.begin(), 2);
      c.inputs[0] = gen::zeros(t, empty);
      return c;
    }
    if (rule.rule == Rule::shape_mismatch && c.inputs.size() == 2) {
      Dims bad = c.inputs[0].dims();
      if (index % 2 == 0) bad.back() += 1 + static_cast<std::int64_t>(index / 2 % 3);
      else bad.insert(bad.begin(), 2);
      c.inputs[1] = gen::zeros(t, bad);
      return c;
    }
    return std::nullopt;
  }

  // Every axis cut to halves, the rows' length included (a shorter row is
  // a valid case of its own).
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    std::vector<std::size_t> inputs{0};
    if (c.inputs.size() == 2) inputs.push_back(1);
    return drivers::shrink_candidates(c, {.dims = c.inputs[0].dims(), .inputs = inputs}, false);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }

  // A row's values are copied once for all of its elements (a row of
  // 32000 is 32000 copies, not 32000^2).
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    Element e;
    const std::int64_t total = c.inputs.at(0).numel(), n = row_length(c.inputs[0]);
    for (std::int64_t o = 0; o < total; ++o) {
      if (o % n == 0) fill_row(k, c, o, e);
      at_position(c, o, e);
      f(e);
    }
  }
  void for_each_listed(const contract::KernelSpec& k, const gen::Case& c, std::span<const std::int64_t> out,
                       const std::function<void(const Element&)>& f) const override {
    Element e;
    const std::int64_t n = row_length(c.inputs.at(0));
    std::int64_t row = -1;
    for (std::int64_t o : out) {
      if (o / n != row) fill_row(k, c, o, e), row = o / n;
      at_position(c, o, e);
      f(e);
    }
  }

  // The input: the row of the first input (Row::a), g's (Row::b), the position.
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    fill_row(k, c, o, e);
    at_position(c, o, e);
    return true;
  }

  // The main axis: the rows', [2, n] (a kernel's row index reaches past the first).
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return all_given(std::vector<Dims>(k.inputs.size(), Dims{2, n}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = same_dims_error(k, s); !e.empty()) return e;
    if (k.has_rule(Rule::last_dim_zero) && !s.dims[0].empty() && s.dims[0].back() == 0)
      return fmt::format("{}: {} has an empty last axis ({} rejects it: last_dim.zero)", k.name, operand_text(k, s, 0), k.name);
    return {};
  }
  std::optional<double> shaped_magnitude(const contract::KernelSpec& k, const gen::Case& c) const override {
    return row_magnitude(k, c);
  }
  // Rows uniform on [-4, 4] (a layer's activations, a vocabulary's logits:
  // the random cases have the special rows; at scale a defect must stand out
  // of bounds that grow with the row); a backward's y a forward's output of
  // such rows, g uniform on [-1, 1].
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    const Dims& d = s.dims.at(0);
    const std::int64_t n = d.empty() ? 1 : d.back();
    const auto total = static_cast<std::size_t>(checked_numel(d));
    std::vector<std::uint64_t> x = uniform_values(t, total, seed, -4, 4);
    if (first_ != FirstInput::data) x = forward_output(t, x, n, first_ == FirstInput::log_softmax_output);
    std::vector<Tensor> in{gen::tensor_of(t, d, x)};
    if (k.inputs.size() == 2) in.push_back(gen::tensor_of(t, d, uniform_values(t, total, seed + 1)));
    return gen::Case{std::move(in), shaped_params(k, s, seed), false};
  }

 private:
  // Element e's row (of output o): each input's values and the context.
  void fill_row(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const {
    const std::int64_t n = row_length(c.inputs[0]), row = o - o % n;
    oracle::Row& r = input_as<oracle::Row>(e);
    r.ctx = context_of(k, c);
    r.b.clear(), r.fill = oracle::next_fill();  // (a forward's g: none; a fresh row)
    for (std::size_t operand = 0; operand < c.inputs.size(); ++operand) {
      const Tensor& x = c.inputs[operand];
      std::vector<double>& values = operand == 0 ? r.a : r.b;
      values.clear();
      for (std::int64_t j = 0; j < n; ++j) {
        values.push_back(x.value_exact_at(row + j));
        r.ctx.signaling_nan |= is_signaling_nan(x.dtype(), x.bits_at(row + j));
      }
    }
    e.names = c.inputs.size() == 1 ? kX : first_ == FirstInput::data ? kXG : kYG;
    e.replayable = false;  // (a row, not one element per operand: --case replays it)
    e.where_pattern = "row {} of {} elements, position {}";
  }
  // Element e at output o of the row fill_row gave it.
  void at_position(const gen::Case& c, std::int64_t o, Element& e) const {
    const std::int64_t n = row_length(c.inputs[0]), i = o % n;
    std::get<oracle::Row>(e.in).i = static_cast<std::size_t>(i);
    e.out = o;
    e.shown.clear();
    e.shown_values.clear();
    for (const Tensor& x : c.inputs) {
      e.shown.push_back(x.bits_at(o));
      e.shown_values.push_back(x.value_exact_at(o));
    }
    e.statistics_sample = i == (o / n) % n;  // (one per row, at a position that moves from row to row)
    e.where_at = {o / n, n, i};
  }

  std::string_view name_;
  FirstInput first_;
};

}  // namespace

void register_last_dim(Registry& r) {
  r.push_back(std::make_unique<LastDim>("last_dim", FirstInput::data));
  r.push_back(std::make_unique<LastDim>("last_dim_softmax_grad", FirstInput::softmax_output));
  r.push_back(std::make_unique<LastDim>("last_dim_log_softmax_grad", FirstInput::log_softmax_output));
}

}  // namespace kc::drivers
