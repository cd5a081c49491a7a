#include "generators/tensors.h"

#include <cmath>

namespace kc::gen {

Tensor tensor_of(DType t, const Dims& d, const std::vector<std::uint64_t>& bits) {
  Tensor x(t, d);
  for (std::size_t i = 0; i < bits.size() && static_cast<std::int64_t>(i) < x.numel(); ++i)
    x.set_bits(static_cast<std::int64_t>(i), bits[i]);
  return x;
}

rc::Gen<std::vector<std::uint64_t>> values_for(DType t, const contract::ValueProfile& p, std::size_t n) {
  return rc::gen::container<std::vector<std::uint64_t>>(n, element_bits(t, p));
}

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

void into_range(DType t, std::vector<std::uint64_t>& bits, double lo, double hi) {
  for (auto& x : bits) x = double_to_bits(t, round_to_format(lo + (hi - lo) * static_cast<double>(x % 1048576) / 1048576.0, t));
}

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

Tensor every_16bit_pattern(DType t) {
  Tensor x(t, {65536});
  for (std::int64_t b = 0; b < 65536; ++b) x.set_bits(b, static_cast<std::uint64_t>(b));
  return x;
}

}  // namespace kc::gen
