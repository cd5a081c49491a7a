#include "drivers/pairwise.h"

#include <fmt/format.h>

#include "generators/tensors.h"

namespace kc::drivers {

std::string Pairwise::check_entry(const contract::KernelSpec& k) const {
  if (auto e = expects_inputs(k, 2); !e.empty()) return e;
  return expects_input<oracle::Pair>(k, name());
}

// Halves: every a against generated b, then every pair of special values.
// f32/f64: every pair of the special values and the contract's thresholds,
// so that products at the edges of the range (sqrt(min_normal)^2 = min_normal,
// max * 2 = inf) are graded on every seed, not only when drawn.
int Pairwise::sweep_count(const contract::KernelSpec&, DType t, int) const {
  if (is_half(t)) return 2;
  return is_float(t) ? 1 : 0;
}

gen::Case Pairwise::sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, int index) const {
  Params p;
  if (!k.params.empty()) p = gen::params(k.params)(rc::Random(seed), gen::kMaxSize).value();
  if (index == 0 && is_half(t)) {  // every a against generated b
    const auto bs = gen::values_for(t, k.values, 65536)(rc::Random(seed), gen::kMaxSize).value();
    return gen::Case{{gen::every_16bit_pattern(t), gen::tensor_of(t, {65536}, bs)}, p, true};
  }
  auto sp = gen::special_bits(t);  // every pair of special values (and thresholds, beyond halves)
  if (!is_half(t) && k.values.points)
    for (double v : k.values.points(t)) sp.push_back(double_to_bits(t, round_to_format(v, t)));
  std::vector<std::uint64_t> as, bs;
  for (auto a : sp)
    for (auto b : sp) as.push_back(a), bs.push_back(b);
  const Dims d{static_cast<std::int64_t>(as.size())};
  return gen::Case{{gen::tensor_of(t, d, as), gen::tensor_of(t, d, bs)}, p, true};
}

std::optional<gen::Case> Pairwise::element_case(const contract::KernelSpec&, DType t,
                                                std::span<const std::uint64_t> bits, const Params& p) const {
  if (bits.size() != 2) return std::nullopt;
  return gen::Case{{gen::tensor_of(t, {1}, {bits[0]}), gen::tensor_of(t, {1}, {bits[1]})}, p, false};
}

void Pairwise::for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                                const std::function<void(const Element&)>& f) const {
  const Tensor& a = c.inputs.at(0);
  const Tensor& b = c.inputs.at(1);
  const Dims out = expected_output(k, c).dims();
  const std::int64_t n = checked_numel(out);
  Element e{.shown = {0, 0}, .names = {"a", "b"}, .replayable = true};  // refilled per element
  const oracle::Context ctx = context_of(k, c);
  for (std::int64_t o = 0; o < n; ++o) {
    const auto [i, j] = sources(a.dims(), b.dims(), out, o);
    const std::uint64_t ab = a.bits_at(i), bb = b.bits_at(j);
    oracle::Pair in{ctx, a.value_exact_at(i), b.value_exact_at(j)};
    in.ctx.signaling_nan = is_signaling_nan(a.dtype(), ab) || is_signaling_nan(b.dtype(), bb);
    e.out = o;
    e.in = in;
    e.shown[0] = ab;
    e.shown[1] = bb;
    f(e);
  }
}

rc::Gen<gen::Case> Pairwise::pair_case(const contract::KernelSpec& k, DType t, bool broadcast) const {
  return rc::gen::mapcat(gen::shape(0, 6), [&k, t, broadcast](Dims out) {
    auto a_dims = broadcast ? gen::compatible_sub_shape(out) : rc::gen::just(out);
    auto b_dims = broadcast ? gen::compatible_sub_shape(out) : rc::gen::just(out);
    return rc::gen::mapcat(rc::gen::pair(a_dims, b_dims), [&k, t](std::pair<Dims, Dims> ab) {
      const auto na = static_cast<std::size_t>(checked_numel(ab.first));
      const auto nb = static_cast<std::size_t>(checked_numel(ab.second));
      return rc::gen::apply(
          [t, ab](const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
            return gen::Case{{gen::tensor_of(t, ab.first, a), gen::tensor_of(t, ab.second, b)}, {}, false};
          },
          gen::values_for(t, k.values, na), gen::values_for(t, k.values, nb));
    });
  });
}

}  // namespace kc::drivers
