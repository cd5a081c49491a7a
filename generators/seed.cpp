#include "generators/case.h"

namespace kc::gen {

namespace {
// splitmix64 finaliser (Steele, Lea, Flood 2014): a bijective mixer with full avalanche.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
std::uint64_t absorb(std::uint64_t h, std::string_view s) {
  for (unsigned char ch : s) h = mix(h ^ ch);
  return mix(h ^ 0xff);  // separator: ("ab","c") != ("a","bc")
}
}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) {
  const std::uint64_t r = mix(state);  // mix adds the increment before it finalises
  state += 0x9e3779b97f4a7c15ull;
  return r;
}

std::uint64_t derive_seed(std::uint64_t run_seed, std::string_view kernel, std::string_view dtype,
                          std::string_view stream, std::uint64_t index) {
  std::uint64_t h = mix(run_seed);
  h = absorb(h, kernel);
  h = absorb(h, dtype);
  h = absorb(h, stream);
  return mix(h ^ mix(index));
}

}  // namespace kc::gen
