// The quantized weights the quant drivers generate (quant_weights.h).
#include "drivers/quant_weights.h"

#include <fmt/format.h>

#include "generators/case.h"
#include "oracles/quant_model.h"

namespace kc::drivers {

namespace {

namespace qm = oracle::quant;

constexpr std::int64_t kTypes[] = {2, 8, 12};

// A moderate scale half from 16 random bits: 2^-8 .. 2^4, either sign.
std::uint16_t moderate_half(std::uint16_t r) {
  const auto exponent = static_cast<std::uint16_t>(7 + r % 13);  // biased 7..19: 2^-8 .. 2^4
  return static_cast<std::uint16_t>((r & 0x8000) | (exponent << 10) | ((r >> 3) & 0x3FF));
}

// A scale half: moderate, any pattern, or special.
rc::Gen<std::uint16_t> scale_half() {
  const std::vector<std::uint16_t> specials{0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF,
                                            0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01};
  return rc::gen::weightedOneOf<std::uint16_t>({
      {12, rc::gen::map(rc::gen::arbitrary<std::uint16_t>(), moderate_half)},
      {4, rc::gen::arbitrary<std::uint16_t>()},
      {3, rc::gen::elementOf(specials)},
  });
}

}  // namespace

// u32 words holding `bytes` (a multiple of 4), little-endian.
Tensor words_of(const std::vector<std::uint8_t>& bytes) {
  Tensor w(DType::u32, {static_cast<std::int64_t>(bytes.size() / 4)});
  for (std::size_t i = 0; i + 3 < bytes.size(); i += 4)
    w.set_bits(static_cast<std::int64_t>(i / 4), bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) |
                                                     (static_cast<std::uint64_t>(bytes[i + 3]) << 24));
  return w;
}

// The bytes of n x k of a format: random bytes, each block's half fields
// replaced by drawn scales.
rc::Gen<std::vector<std::uint8_t>> weight_bytes(std::int64_t type, std::int64_t n, std::int64_t k) {
  const qm::Format f = *qm::format_of(type);
  const auto blocks = static_cast<std::size_t>(n * (k / f.elements));
  const std::size_t halves = type == 12 ? 2 : 1;
  return rc::gen::apply(
      [blocks, halves, f](std::vector<std::uint8_t> bytes, const std::vector<std::uint16_t>& scales) {
        for (std::size_t b = 0; b < blocks; ++b)
          for (std::size_t h = 0; h < halves; ++h) {
            const std::uint16_t s = scales[b * halves + h];
            bytes[b * static_cast<std::size_t>(f.bytes) + 2 * h] = static_cast<std::uint8_t>(s);
            bytes[b * static_cast<std::size_t>(f.bytes) + 2 * h + 1] = static_cast<std::uint8_t>(s >> 8);
          }
        return bytes;
      },
      rc::gen::container<std::vector<std::uint8_t>>(blocks * static_cast<std::size_t>(f.bytes),
                                                    rc::gen::arbitrary<std::uint8_t>()),
      rc::gen::container<std::vector<std::uint16_t>>(blocks * halves, scale_half()));
}

// A random weight shape (quant_weights.h).
Drawn draw_shape(const std::vector<std::uint32_t>& r) {
  const std::int64_t type = kTypes[r[0] % 3];
  const qm::Format f = *qm::format_of(type);
  std::int64_t n = 1 + r[1] % 4;
  const std::int64_t per_row = 1 + r[2] % (type == 12 ? 2 : 4);
  if (type != 12 && (n * per_row) % 2 != 0) ++n;
  return {type, n, per_row * f.elements};
}

Params weight_params(const Drawn& d) { return Params().set("quant_type", d.type).set("k", d.k).set("n", d.n); }
Drawn drawn_of(const Params& p) { return {p.integer("quant_type"), p.integer("n"), p.integer("k")}; }

Drawn tail_weight(std::int64_t n, std::int64_t rows) {
  const std::int64_t type = kTypes[n % 3];
  const std::int64_t per = qm::format_of(type)->elements;
  return {type, rows, (n + per - 1) / per * per};
}

std::int64_t weight_words(const Drawn& d) {
  const qm::Format f = *qm::format_of(d.type);
  return d.n * (d.k / f.elements) * f.bytes / 4;
}

std::string weight_error(std::string_view kernel, const Params& p, std::int64_t words) {
  for (const char* name : {"quant_type", "k", "n"})
    if (!p.has(name)) return fmt::format("{}: the weight's {} is not given (write quant_type=2|8|12 k=K n=N)", kernel, name);
  const Drawn d = drawn_of(p);
  const std::optional<qm::Format> f = qm::format_of(d.type);
  if (!f) return fmt::format("{}: quant_type {} is none of 2 (Q4_0), 8 (Q8_0), 12 (Q4_K)", kernel, d.type);
  if (d.k % f->elements != 0) return fmt::format("{}: k = {} is no multiple of {}'s {} values a block", kernel, d.k, f->name, f->elements);
  if ((d.n * (d.k / f->elements) * f->bytes) % 4 != 0)
    return fmt::format("{}: n = {} rows of k = {} in {} do not fill whole u32 words", kernel, d.n, d.k, f->name);
  if (weight_words(d) != words)
    return fmt::format("{}: w has {} words; n = {} rows of k = {} in {} take {} (write w={})", kernel, words, d.n, d.k, f->name,
                       weight_words(d), weight_words(d));
  return {};
}

Tensor shaped_weight(const Drawn& d, std::uint64_t seed) {
  const qm::Format f = *qm::format_of(d.type);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(weight_words(d) * 4));
  std::uint64_t s = seed ^ 0xbb67ae8584caa73bull;
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t r = gen::splitmix64(s);
    for (std::size_t b = 0; b < 8 && i + b < bytes.size(); ++b) bytes[i + b] = static_cast<std::uint8_t>(r >> (8 * b));
  }
  const int halves = d.type == 12 ? 2 : 1;
  for (std::size_t b = 0; b < bytes.size(); b += static_cast<std::size_t>(f.bytes))
    for (int h = 0; h < halves; ++h) {
      const std::uint16_t half = moderate_half(static_cast<std::uint16_t>(gen::splitmix64(s) >> 48));
      bytes[b + 2 * h] = static_cast<std::uint8_t>(half), bytes[b + 2 * h + 1] = static_cast<std::uint8_t>(half >> 8);
    }
  return words_of(bytes);
}

}  // namespace kc::drivers
