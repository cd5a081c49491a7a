#include "kernels/shape_math.h"

#include <fmt/format.h>

namespace kc::kern {

Dims row_major_strides(const Dims& d) {
  Dims s(d.size(), 1);
  for (std::size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

std::optional<Dims> broadcast_shape(const Dims& a, const Dims& b, std::string* why) {
  const std::size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const std::int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (da != db && da != 1 && db != 1) {
      if (why) *why = fmt::format("incompatible shapes lhs={} rhs={} at axis {}: {} vs {}", dims_to_string(a),
                                  dims_to_string(b), i, da, db);
      return std::nullopt;
    }
    out[i] = da == 1 ? db : da;  // 1 vs 0 gives 0
  }
  return out;
}

BroadcastIndex::BroadcastIndex(const Dims& src, const Dims& out) : out_dims_(out) {
  out_strides_ = row_major_strides(out);
  src_dims_aligned_.assign(out.size(), 1);
  for (std::size_t i = 0; i < src.size(); ++i) src_dims_aligned_[out.size() - src.size() + i] = src[i];
  src_strides_ = row_major_strides(src_dims_aligned_);
}

std::int64_t BroadcastIndex::operator()(std::int64_t o) const {
  std::int64_t s = 0;
  for (std::size_t i = 0; i < out_dims_.size(); ++i) {
    const std::int64_t coord = (o / out_strides_[i]) % out_dims_[i];
    if (src_dims_aligned_[i] != 1) s += coord * src_strides_[i];
  }
  return s;
}

std::optional<std::string> target_incompatible(const Dims& big, const Dims& small) {
  for (std::size_t j = 0; j < small.size(); ++j) {
    const std::size_t i = big.size() - small.size() + j;
    if (small[j] != big[i] && small[j] != 1)
      return fmt::format("source dim {} ({}) is not broadcast-compatible with target dim {} ({})", i, big[i], j, small[j]);
  }
  return std::nullopt;
}

}  // namespace kc::kern
