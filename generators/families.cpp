#include "generators/families.h"

#include <cmath>

namespace kc::gen {

namespace {

using contract::Family;

Tensor tensor_of(DType t, const Dims& d, const std::vector<std::uint64_t>& bits) {
  Tensor x(t, d);
  for (std::size_t i = 0; i < bits.size() && static_cast<std::int64_t>(i) < x.numel(); ++i)
    x.set_bits(static_cast<std::int64_t>(i), bits[i]);
  return x;
}

rc::Gen<std::vector<std::uint64_t>> values_for(DType t, const contract::ValueProfile& p, std::size_t n) {
  return rc::gen::container<std::vector<std::uint64_t>>(n, element_bits(t, p));
}

// Reduction inputs: plain draws, cancelling pairs (a large value followed by
// its exact negation), mixed magnitudes, or few distinct values (ties for
// argmax/argmin and the fair-share split).
rc::Gen<std::vector<std::uint64_t>> reduction_values(DType t, const contract::ValueProfile& p, std::size_t n) {
  return rc::gen::mapcat(rc::gen::inRange(0, 4), [t, p, n](int pattern) {
    return rc::gen::map(values_for(t, p, n), [t, pattern](std::vector<std::uint64_t> v) {
      const std::uint64_t sign = 1ull << (float_format(t).total_bits - 1);
      if (pattern == 1) {  // x[2k+1] = -x[2k], x[2k] scaled up
        for (std::size_t i = 0; i + 1 < v.size(); i += 2) {
          const double a = bits_to_double(t, v[i]);
          if (std::isfinite(a)) v[i] = double_to_bits(t, round_to_format(a * 1e3, t));
          v[i + 1] = v[i] ^ sign;
        }
      } else if (pattern == 2) {  // mixed magnitudes: scale by 2^(+-20 k)
        for (std::size_t i = 0; i < v.size(); ++i) {
          const double a = bits_to_double(t, v[i]);
          if (std::isfinite(a))
            v[i] = double_to_bits(t, round_to_format(std::ldexp(a, static_cast<int>(i % 5) * 10 - 20), t));
        }
      } else if (pattern == 3 && !v.empty()) {  // ties: three distinct values
        const std::uint64_t pool[3] = {v[0], v[v.size() / 2], v.back()};
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = pool[(v[i] >> 3) % 3];
      }
      return v;
    });
  });
}

rc::Gen<Case> binary_case(const contract::KernelSpec& k, DType t, bool broadcast) {
  auto ps = params(k.params);
  return rc::gen::mapcat(shape(0, 6), [&k, t, broadcast](Dims out) {
    auto a_dims = broadcast ? compatible_sub_shape(out) : rc::gen::just(out);
    auto b_dims = broadcast ? compatible_sub_shape(out) : rc::gen::just(out);
    return rc::gen::mapcat(rc::gen::pair(a_dims, b_dims), [&k, t](std::pair<Dims, Dims> ab) {
      const auto na = static_cast<std::size_t>(checked_numel(ab.first));
      const auto nb = static_cast<std::size_t>(checked_numel(ab.second));
      return rc::gen::apply(
          [t, ab](const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
            return Case{{tensor_of(t, ab.first, a), tensor_of(t, ab.second, b)}, {}, false};
          },
          values_for(t, k.values, na), values_for(t, k.values, nb));
    });
  });
}

rc::Gen<Case> reduction_case(const contract::KernelSpec& k, DType t) {
  const bool has_dim = !k.params.empty() && k.params[0].name == "dim";
  const bool has_target = !k.params.empty() && k.params[0].name == "target";
  const bool backward = k.inputs.size() == 2;
  return rc::gen::mapcat(shape(k.inputs[0].min_rank, 6), [&k, t, has_dim, has_target, backward](Dims d) {
    const auto n = static_cast<std::size_t>(checked_numel(d));
    auto xs = reduction_values(t, k.values, n);
    if (has_dim) {
      // argmax/argmin need a non-empty reduced axis whenever the output is non-empty.
      const bool arg = k.output_dtype.has_value();
      return rc::gen::mapcat(rc::gen::inRange(0, static_cast<int>(d.size())), [t, d, arg, &k](int dim) {
        Dims dd = d;
        if (arg && dd[static_cast<std::size_t>(dim)] == 0) dd[static_cast<std::size_t>(dim)] = 1;
        const auto nn = static_cast<std::size_t>(checked_numel(dd));
        return rc::gen::map(reduction_values(t, k.values, nn), [t, dd, dim](const std::vector<std::uint64_t>& v) {
          return Case{{tensor_of(t, dd, v)}, Params().set("dim", std::int64_t{dim}), false};
        });
      });
    }
    if (has_target || backward) {
      return rc::gen::mapcat(compatible_sub_shape(d), [t, d, xs, backward, &k](Dims target) {
        const auto nt = static_cast<std::size_t>(checked_numel(target));
        return rc::gen::apply(
            [t, d, target, backward](const std::vector<std::uint64_t>& v, const std::vector<std::uint64_t>& up) {
              if (backward) return Case{{tensor_of(t, d, v), tensor_of(t, target, up)}, {}, false};
              return Case{{tensor_of(t, d, v)}, Params().set("target", target), false};
            },
            xs, values_for(t, k.values, backward ? nt : 0));
      });
    }
    return rc::gen::map(xs, [t, d](const std::vector<std::uint64_t>& v) { return Case{{tensor_of(t, d, v)}, {}, false}; });
  });
}

// broadcast_to: a source, then a target that pads leading dims and expands size-1 dims.
rc::Gen<Case> broadcast_to_case(const contract::KernelSpec& k, DType t) {
  return rc::gen::mapcat(shape(0, 4), [&k, t](Dims src) {
    auto expand = rc::gen::container<std::vector<std::int64_t>>(src.size(), rc::gen::inRange<std::int64_t>(0, 4));
    auto lead = rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(1, 4));
    return rc::gen::apply(
        [t, src](const std::vector<std::uint64_t>& v, std::vector<std::int64_t> ex, std::vector<std::int64_t> pad,
                 bool pure) {
          Dims target;
          std::int64_t n = 1;
          if (pad.size() > 2) pad.resize(2);
          for (auto p : pad) target.push_back(pure ? 1 : p), n *= pure ? 1 : p;
          for (std::size_t i = 0; i < src.size(); ++i) {
            std::int64_t d = src[i];
            if (d == 1 && !pure && ex[i] != 1 && n * std::max<std::int64_t>(ex[i], 1) * 8 <= kMaxElements) d = ex[i];
            target.push_back(d);
            n *= std::max<std::int64_t>(d, 1);
          }
          return Case{{tensor_of(t, src, v)}, Params().set("target", target), false};
        },
        values_for(t, k.values, static_cast<std::size_t>(checked_numel(src))), expand, lead, rc::gen::arbitrary<bool>());
  });
}

}  // namespace

rc::Gen<Dims> compatible_sub_shape(const Dims& big) {
  return rc::gen::apply(
      [big](int drop, const std::vector<bool>& ones) {
        Dims d(big.begin() + std::min<std::ptrdiff_t>(drop, static_cast<std::ptrdiff_t>(big.size())), big.end());
        for (std::size_t i = 0; i < d.size() && i < ones.size(); ++i)
          if (ones[i]) d[i] = 1;
        return d;
      },
      rc::gen::inRange(0, static_cast<int>(big.size()) + 1),
      rc::gen::container<std::vector<bool>>(big.size(), rc::gen::arbitrary<bool>()));
}

rc::Gen<Case> family_case(const contract::KernelSpec& k, DType t) {
  switch (k.family) {
    case Family::unary: case Family::cast: return elementwise_case(k, t);
    case Family::binary: return binary_case(k, t, false);
    case Family::broadcast: return binary_case(k, t, true);
    case Family::reduction: case Family::reduce_to:
      return k.name == "broadcast_to" ? broadcast_to_case(k, t) : reduction_case(k, t);
  }
  return elementwise_case(k, t);
}

namespace {
bool is_half(DType t) { return t == DType::bf16 || t == DType::f16; }
bool f32_to_half(const contract::KernelSpec& k) {
  return k.family == Family::cast && k.inputs[0].dtypes.contains(DType::f32) && k.output_dtype &&
         is_half(*k.output_dtype);
}
}  // namespace

int sweep_count(const contract::KernelSpec& k, DType t, int param_sweeps) {
  if ((k.family == Family::unary || k.family == Family::cast) && is_half(t))
    return k.params.empty() ? 1 : param_sweeps;
  if (f32_to_half(k)) return 1;
  if ((k.family == Family::binary || k.family == Family::broadcast) && is_half(t)) return 2;
  return 0;
}

Case statistics_case(const contract::KernelSpec& k, DType t, std::uint64_t seed) {
  const bool along_dim = !k.params.empty() && k.params[0].name == "dim";
  const Dims d = along_dim ? Dims{128, 48} : Dims{48, 128};
  auto u = rc::gen::container<std::vector<std::uint64_t>>(128 * 48, rc::gen::inRange<std::uint64_t>(0, 1ull << 53));
  const auto r = u(rc::Random(seed), kMaxSize).value();
  std::vector<std::uint64_t> bits;
  for (auto v : r) bits.push_back(double_to_bits(t, round_to_format(std::ldexp(static_cast<double>(v), -52) - 1.0, t)));
  Params p = along_dim ? Params().set("dim", std::int64_t{1}) : Params().set("target", Dims{128});
  return Case{{tensor_of(t, d, bits)}, p, false};
}

Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, int index) {
  Params p;
  if (!k.params.empty()) p = params(k.params)(rc::Random(seed), kMaxSize).value();
  if (f32_to_half(k)) {
    // Every f32 exponent (256, incl. subnormals, inf/NaN) with 48 random
    // mantissas, plus the mantissas at, just below and just above each
    // midpoint of the target format.
    const int drop = 24 - float_format(*k.output_dtype).precision;  // f32 mantissa bits below the target's last
    std::vector<std::uint64_t> bits;
    auto mant = rc::gen::inRange<std::uint32_t>(0, 1u << 23);
    for (std::uint32_t e = 0; e < 256; ++e) {
      for (int j = 0; j < 48; ++j)
        bits.push_back((e << 23) | mant(rc::Random(seed + e * 64 + static_cast<std::uint64_t>(j)), kMaxSize).value());
      const std::uint32_t half = 1u << (drop - 1);
      for (std::uint32_t base : {0u, 0x155u << drop, 0x2AAu << drop}) {
        const std::uint32_t m = (base | half) & 0x7FFFFFu;
        for (std::uint32_t mm : {m, m - 1, m + 1, m | (1u << drop)}) bits.push_back((e << 23) | (mm & 0x7FFFFFu));
      }
    }
    std::vector<std::uint64_t> both = bits;
    for (auto b : bits) both.push_back(b | 0x80000000u);
    return Case{{tensor_of(t, {static_cast<std::int64_t>(both.size())}, both)}, p, true};
  }
  if (k.family == Family::binary || k.family == Family::broadcast) {
    if (index == 0) {  // every a against generated b
      auto bs = values_for(t, k.values, 65536)(rc::Random(seed), kMaxSize).value();
      std::vector<std::uint64_t> as(65536);
      for (std::size_t i = 0; i < as.size(); ++i) as[i] = i;
      return Case{{tensor_of(t, {65536}, as), tensor_of(t, {65536}, bs)}, p, true};
    }
    const auto sp = special_bits(t);  // every pair of special values
    std::vector<std::uint64_t> as, bs;
    for (auto a : sp)
      for (auto b : sp) as.push_back(a), bs.push_back(b);
    const Dims d{static_cast<std::int64_t>(as.size())};
    return Case{{tensor_of(t, d, as), tensor_of(t, d, bs)}, p, true};
  }
  Tensor x(t, {65536});
  for (std::int64_t b = 0; b < 65536; ++b) x.set_bits(b, static_cast<std::uint64_t>(b));
  return Case{{x}, p, true};
}

}  // namespace kc::gen
