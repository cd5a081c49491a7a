// A matmul case's shape (drivers/matmul.cpp): a = [...batch, m, k], b =
// [...batch, k, n], the output [...batch, m, n].
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "generators/case.h"

namespace kc::drivers {

struct MatmulShape {
  Dims batch;
  std::int64_t m = 0, k = 0, n = 0;
  std::int64_t batches() const { return checked_numel(batch); }
  Dims a() const { return with(m, k); }
  Dims b() const { return with(k, n); }
  Dims out() const { return with(m, n); }
  Dims with(std::int64_t r, std::int64_t c) const {
    Dims d = batch;
    d.push_back(r);
    d.push_back(c);
    return d;
  }
};

inline MatmulShape shape_of(const gen::Case& c) {
  const Dims& a = c.inputs.at(0).dims();
  const Dims& b = c.inputs.at(1).dims();
  const std::size_t r = a.size();
  return {Dims(a.begin(), a.end() - 2), a[r - 2], a[r - 1], b[r - 1]};
}

}  // namespace kc::drivers
