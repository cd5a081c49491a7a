// Drivers of the padding kernels (reference-semantics.md §14); `padding`
// lists (before, after) per axis, flat: [b0, a0, b1, a1, ...].
//   "padding" (pad_const, pad_reflect, pad_replicate): a mover; output
//     coordinate c of an axis of size n reads i = c - before when 0 <= i <
//     n, else T(value) (constant), -i or 2(n - 1) - i (reflect, the edge
//     excluded), 0 or n - 1 (replicate);
//   "pad_backward": the adjoint: input element s folds, in an f64
//     accumulator and in grad_out's row-major order, every grad_out element
//     whose output position reads s (constant mode: the interior only),
//     narrowed to T; given to the entry's Terms oracle.
#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "generators/values.h"
#include "oracles/rounding.h"

namespace kc::drivers {

namespace {

enum Mode { constant = 0, reflect = 1, replicate = 2 };

// The input coordinate of output coordinate c along an axis of size n, or -1.
std::int64_t read_coord(Mode m, std::int64_t c, std::int64_t before, std::int64_t n) {
  const std::int64_t i = c - before;
  if (0 <= i && i < n) return i;
  switch (m) {
    case constant: return -1;
    case reflect: return i < 0 ? -i : 2 * (n - 1) - i;
    case replicate: return i < 0 ? 0 : n - 1;
  }
  return -1;
}

Dims padded_dims(const Dims& in, const std::vector<std::int64_t>& pad) {
  Dims out = in;
  for (std::size_t a = 0; a < in.size(); ++a) out[a] += pad[2 * a] + pad[2 * a + 1];
  return out;
}

// Flat input index output element o reads, or -1 (the fill).
std::int64_t read_index(Mode m, const Dims& in, const std::vector<std::int64_t>& pad, std::int64_t o) {
  std::vector<std::int64_t> at = coords_of(padded_dims(in, pad), o);
  for (std::size_t a = 0; a < in.size(); ++a) {
    at[a] = read_coord(m, at[a], pad[2 * a], in[a]);
    if (at[a] < 0) return -1;
  }
  return flat_of(in, at);
}

// "" when `pad` suits dims d in mode m (2 entries an axis, none negative;
// reflect at most n - 1 a side; replicate none on an empty axis), else
// what does not.
std::string padding_error(Mode m, const Dims& d, const std::vector<std::int64_t>& pad) {
  if (pad.size() != 2 * d.size()) return fmt::format("padding has {} entries; {} takes 2 an axis", pad.size(), dims_to_string(d));
  for (std::size_t i = 0; i < pad.size(); ++i) {
    const std::int64_t n = d[i / 2];
    if (pad[i] < 0) return fmt::format("padding entry {} is negative", i);
    if (m == reflect && pad[i] > n - 1) return fmt::format("reflect padding {} passes axis {} of size {} (at most n - 1)", pad[i], i / 2, n);
    if (m == replicate && n == 0 && pad[i] > 0) return fmt::format("replicate padding of the empty axis {}", i / 2);
  }
  return {};
}
// A tail's: x [2, n] padded on its last axis by 3 a side (reflect: at
// most n - 1).
std::vector<std::int64_t> tail_padding(Mode m, std::int64_t n) {
  const std::int64_t p = m == reflect ? std::min<std::int64_t>(3, n - 1) : 3;
  return {0, 0, p, p};
}

// Paddings that suit dims d in mode m: 0-3 a side (replicate: 0 on an
// empty axis), reflect at most n - 1 (axes of size 0 made 1).
rc::Gen<std::pair<Dims, std::vector<std::int64_t>>> dims_and_padding(Mode m, int min_rank, int max_rank) {
  return rc::gen::map(
      rc::gen::pair(gen::shape(min_rank, max_rank), rc::gen::container<std::vector<std::uint32_t>>(8, rc::gen::arbitrary<std::uint32_t>())),
      [m](const std::pair<Dims, std::vector<std::uint32_t>>& g) {
        Dims d = g.first;
        if (m == reflect)
          for (auto& n : d) n = std::max<std::int64_t>(n, 1);
        d = gen::capped(d);
        std::vector<std::int64_t> pad;
        for (std::size_t a = 0; a < d.size(); ++a) {
          for (int side = 0; side < 2; ++side) {
            const std::uint32_t key = g.second[(2 * a + static_cast<std::size_t>(side)) % g.second.size()];
            const std::int64_t limit = m == reflect ? d[a] - 1 : m == replicate && d[a] == 0 ? 0 : 3;
            pad.push_back(static_cast<std::int64_t>(key % static_cast<std::uint32_t>(std::min<std::int64_t>(limit, 3) + 1)));
          }
        }
        // (the padded output within 4 times the element budget: paddings of
        // the leading axes dropped first)
        for (std::size_t a = 0; a < d.size() && checked_numel(padded_dims(d, pad)) > 4 * gen::kMaxElements; ++a)
          pad[2 * a] = pad[2 * a + 1] = 0;
        return std::pair{d, pad};
      });
}

// The bad-input calls both drivers share: the padding's length, and a
// padding past what reflect or replicate can read; a valid frame
// [3, 4] in mode m (constant for the length rule).
std::optional<gen::Case> violate_padding(const contract::Precondition& rule, const gen::Case& valid, std::uint64_t index,
                                         Mode m, bool backward) {
  gen::Case c = valid;
  const auto i = static_cast<std::int64_t>(index);
  const Rule r = rule.rule;
  const DType t = valid.inputs[0].dtype();
  std::vector<std::int64_t> pad = valid.params.shape("padding");
  if (r == Rule::padding_length) {  // a pair short, or an entry too many
    if (index % 2 == 0 && pad.size() >= 2) pad.resize(pad.size() - 2);
    else pad.push_back(1 + i);
    c.params.set("padding", pad);
    return c;
  }
  if (r == Rule::padding_too_large) {  // reflect: before = n + index; replicate: an empty axis padded
    const Dims in = m == reflect ? Dims{3, 4} : Dims{0, 4};
    pad = m == reflect ? std::vector<std::int64_t>{0, 0, 4 + i, 0} : std::vector<std::int64_t>{1 + i, 0, 0, 0};
    if (backward) {
      c.inputs[0] = gen::zeros(t, padded_dims(in, pad));
      c.params.set("in_shape", in);
    } else {
      c.inputs[0] = gen::zeros(t, in);
    }
    c.params.set("padding", pad);
    return c;
  }
  return std::nullopt;
}

class Padding final : public Movement {
 public:
  std::string_view name() const override { return "padding"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "x's dims each grown by before + after; the interior x, the border by the mode";
  }

  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    const Mode m = mode(k);
    return rc::gen::mapcat(rc::gen::pair(dims_and_padding(m, 0, 4), rc::gen::inRange(0, 12)),
                           [&k, t, m](const std::pair<std::pair<Dims, std::vector<std::int64_t>>, int>& g) {
                             const auto& [dp, pick] = g;
                             Params p = Params().set("padding", dp.second);
                             const double fills[] = {0.0, -0.0, 1.0, -2.5, INFINITY, -INFINITY, NAN, 1e-40, 65519.0, 3.4e38, 1e300, 0.1};
                             if (m == constant) p.set("value", fills[pick]);
                             return data_case(k, t, dp.first, p);
                           });
  }

  // The special values' matrix padded by (1, 1) on both axes (the fill: NaN).
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    Params p = Params().set("padding", std::vector<std::int64_t>{1, 1, 1, 1});
    if (mode(k) == constant) p.set("value", NAN);
    return gen::Case{{*special_matrix(k, t)}, p, false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    return violate_padding(rule, valid, index, mode(k), false);
  }

  // Halves of x's axes where the padding still reads inside them.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec& k, const gen::Case& c) const override {
    std::vector<gen::Case> out;
    const std::vector<std::int64_t>& pad = c.params.shape("padding");
    for (gen::Case& s : halves(c, 0)) {
      bool ok = true;
      for (std::size_t a = 0; a < s.inputs[0].dims().size(); ++a) {
        const std::int64_t n = s.inputs[0].dims()[a];
        if (mode(k) == reflect) ok &= pad[2 * a] <= n - 1 && pad[2 * a + 1] <= n - 1;
      }
      if (ok) out.push_back(std::move(s));
    }
    return out;
  }

  // The main axis: a row's (tail_padding). A line gives padding; the
  // constant's value left out is drawn.
  std::optional<Shaped> tail_shape(const contract::KernelSpec& k, DType, std::int64_t n) const override {
    return all_given({{2, n}}, Params().set("padding", tail_padding(static_cast<Mode>(mode_of(k)), n)));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = missing_params(k, s, {"padding"}); !e.empty()) return e;
    return named_error(k, padding_error(static_cast<Mode>(mode_of(k)), s.dims.at(0), s.params.shape("padding")));
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = profile_along_dim(k, s, t, seed);
    c.params = shaped_params(k, s, seed);
    return c;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {padded_dims(c.inputs.at(0).dims(), c.params.shape("padding")), k.out_dtype(c.inputs.at(0).dtype())};
  }

 protected:
  const std::map<std::string_view, int>& modes() const override {
    static const std::map<std::string_view, int> m{{"pad_const", constant}, {"pad_reflect", reflect}, {"pad_replicate", replicate}};
    return m;
  }
  Source source(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o) const override {
    const std::int64_t s = read_index(mode(k), c.inputs.at(0).dims(), c.params.shape("padding"), o);
    if (s >= 0) return Source::of(0, s);
    return Source::constant(oracle::num_cast(c.inputs.at(0).dtype(), c.params.real("value")), "T(value), the pad value");
  }

 private:
  Mode mode(const contract::KernelSpec& k) const { return static_cast<Mode>(mode_of(k)); }
};

class PadBackward final : public Driver {
 public:
  std::string_view name() const override { return "pad_backward"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "dims in_shape; each input position the sum of the grad_out elements that read it (f64, then T)";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    for (const char* p : {"in_shape", "padding"})
      if (auto e = expects_param(k, p, contract::ParamKind::shape); !e.empty()) return e;
    if (auto e = expects_param(k, "mode", contract::ParamKind::integer); !e.empty()) return e;
    return check_fold_entry(k, name());
  }

  // A mode, an input shape and a padding that suit it (rank 1-4), grad_out
  // of the padded dims with the reductions' values.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(rc::gen::inRange(0, 3), [&k, t](int mi) {
      const Mode m = static_cast<Mode>(mi);
      return rc::gen::mapcat(dims_and_padding(m, 1, 4), [&k, t, m](const std::pair<Dims, std::vector<std::int64_t>>& dp) {
        const Dims out = padded_dims(dp.first, dp.second);
        const Params p = Params().set("in_shape", dp.first).set("padding", dp.second).set("mode", std::int64_t{m});
        return rc::gen::map(gen::reduction_values(t, k.values, static_cast<std::size_t>(checked_numel(out))),
                            [t, out, p](const std::vector<std::uint64_t>& v) {
                              return gen::Case{{gen::tensor_of(t, out, v)}, p, false};
                            });
      });
    });
  }

  // Every ordered pair of the special values and thresholds summed: a row
  // [a, b] replicate-padded from one column (b reads the edge, a).
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor g = all_pairs(t, sweep_values(k, t));
    return gen::Case{{g},
                     Params().set("in_shape", Dims{g.dims()[0], 1}).set("padding", std::vector<std::int64_t>{0, 0, 0, 1})
                         .set("mode", std::int64_t{replicate}),
                     false};
  }

  // 256 inputs of 24 terms each: [128, 2] replicate-padded by 23 each side
  // of the last axis (each edge column gathers its own 24 grad_out values).
  bool has_statistics_case(const contract::KernelSpec&, DType) const override { return true; }
  std::optional<gen::Case> statistics_case(const contract::KernelSpec&, DType t, std::uint64_t seed) const override {
    return gen::Case{{gen::tensor_of(t, {128, 48}, statistics_values(t, seed))},
                     Params().set("in_shape", Dims{128, 2}).set("padding", std::vector<std::int64_t>{0, 0, 23, 23})
                         .set("mode", std::int64_t{replicate}),
                     false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    const auto m = static_cast<Mode>(valid.params.integer("mode"));
    if (rule.rule == Rule::shape_mismatch) {  // grad_out one larger along an axis (or with an axis more)
      gen::Case c = valid;
      Dims d = valid.inputs[0].dims();
      if (index % 2 == 0) d.back() += 1 + static_cast<std::int64_t>(index);
      else d.insert(d.begin(), 1);
      c.inputs[0] = gen::zeros(valid.inputs[0].dtype(), d);
      return c;
    }
    if (rule.rule == Rule::padding_too_large) {
      auto c = violate_padding(rule, valid, index, index % 2 == 0 ? reflect : replicate, true);
      if (c) c->params.set("mode", std::int64_t{index % 2 == 0 ? reflect : replicate});
      return c;
    }
    if (rule.rule == Rule::padding_length) {  // (grad_out keeps its dims: the length is checked first)
      return violate_padding(rule, valid, index, m, true);
    }
    return std::nullopt;
  }

  // The main axis: a row's (in_shape [2, n], tail_padding, the mode
  // cycling with n); grad_out uniform on [-1, 1]. A line gives in_shape,
  // padding and mode.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    const auto m = static_cast<Mode>(n % 3);
    const std::vector<std::int64_t> pad = tail_padding(m, n);
    return all_given({padded_dims({2, n}, pad)}, Params().set("in_shape", Dims{2, n}).set("padding", pad).set("mode", std::int64_t{m}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = missing_params(k, s, {"in_shape", "padding", "mode"}); !e.empty()) return e;
    const std::int64_t mode = s.params.integer("mode");
    if (mode < 0 || mode > 2) return fmt::format("{}: mode {} is none of 0, 1, 2", k.name, mode);
    const Dims& in = s.params.shape("in_shape");
    if (std::string e = padding_error(static_cast<Mode>(mode), in, s.params.shape("padding")); !e.empty()) return named_error(k, e);
    const Dims out = padded_dims(in, s.params.shape("padding"));
    if (s.dims.at(0) != out) return fmt::format("{}: {} is not the padded {}", k.name, operand_text(k, s, 0), dims_to_string(out));
    return {};
  }
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    return uniform_case(s, {t}, seed);
  }

  // A shape and padding cut: the in_shape halved along an axis (where the
  // mode still reads inside it), grad_out cut to match.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    std::vector<gen::Case> out;
    const Dims& in = c.params.shape("in_shape");
    const std::vector<std::int64_t>& pad = c.params.shape("padding");
    const auto m = static_cast<Mode>(c.params.integer("mode"));
    for (std::size_t a = 0; a < in.size(); ++a) {
      // The first half; and the second where nothing is padded before it
      // (then its grad_out rows are a plain slice too).
      for (const bool second : {false, true}) {
        const std::int64_t n = second ? in[a] - in[a] / 2 : in[a] / 2;
        if (in[a] < 2 || (second && pad[2 * a] != 0) ||
            (m == reflect && (pad[2 * a] > n - 1 || pad[2 * a + 1] > n - 1)))
          continue;
        gen::Case s = c;
        Dims d = in;
        d[a] = n;
        s.params.set("in_shape", d);
        s.inputs[0] = gen::sliced(c.inputs[0], a, second ? in[a] / 2 : 0, n + pad[2 * a] + pad[2 * a + 1]);
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return {c.params.shape("in_shape"), k.out_dtype(c.inputs.at(0).dtype())};
  }

  // Each input position's grad_out elements, found once per case in grad_out's row-major order.
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& g = c.inputs.at(0);
    const Dims& in = c.params.shape("in_shape");
    const std::vector<std::int64_t>& pad = c.params.shape("padding");
    const auto m = static_cast<Mode>(c.params.integer("mode"));
    std::vector<std::vector<std::int64_t>> from(static_cast<std::size_t>(checked_numel(in)));
    for (std::int64_t o = 0; o < g.numel(); ++o)
      if (const std::int64_t s = read_index(m, in, pad, o); s >= 0) from[static_cast<std::size_t>(s)].push_back(o);
    for (std::size_t s = 0; s < from.size(); ++s)
      f(cell_element(context_of(k, c), g, static_cast<std::int64_t>(s), from[s], fmt::format("grad_out elements reading input {}", s)));
  }

};

}  // namespace

void register_padding(Registry& r) {
  r.push_back(std::make_unique<Padding>());
  r.push_back(std::make_unique<PadBackward>());
}

}  // namespace kc::drivers
