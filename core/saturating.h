// Counts added without signed overflow. Counts read back from a results
// document can be anything (a hostile one may hold INT64_MAX twice), and a
// signed overflow is undefined behaviour; the sum saturates instead.
#pragma once

#include <cstdint>
#include <limits>

namespace kc {

inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t s = 0;
  if (__builtin_add_overflow(a, b, &s))
    return a > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return s;
}

}  // namespace kc
