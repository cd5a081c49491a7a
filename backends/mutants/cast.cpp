// Planted defects of the casts.
#include <cmath>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

Outputs cast_f64_to_bf16_rn(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Correctly rounded f64 -> bf16: better, but not what the reference does.
  Outputs out = ref::execute("cast_f64_to_bf16", in, p);
  for (std::int64_t i = 0; i < out[0].numel(); ++i)
    if (!std::isnan(in[0].value_at(i))) out[0].set_bits(i, bits(DType::bf16, in[0].value_at(i)));
  return out;
}

Outputs cast_f32_to_u32_wraps(std::string_view, std::span<const Tensor> in, const Params& p) {
  // C-style modular conversion instead of Rust's saturation: where trunc(x)
  // is outside [0, 2^32) any result is correct, so only the reference
  // profile tells it apart.
  Outputs out = ref::execute("cast_f32_to_u32", in, p);
  for (std::int64_t i = 0; i < out[0].numel(); ++i) {
    const double v = in[0].value_at(i);
    if (std::isfinite(v) && std::fabs(v) < 9e18)
      out[0].set_bits(i, static_cast<std::uint32_t>(static_cast<std::int64_t>(std::trunc(v))));
  }
  return out;
}

}  // namespace

void register_cast(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"cast_f64_to_bf16_rn", {"cast_f64_to_bf16"}, {DType::f64}, "semantics",
       "f64 -> bf16 correctly rounded instead of half's truncating rounding", cast_f64_to_bf16_rn, "reference", true},
      {"cast_f32_to_u32_wraps", {"cast_f32_to_u32"}, {DType::f32}, "semantics",
       "f32 -> u32 wraps modulo 2^32 instead of saturating: correct, since IEEE 754 leaves an invalid "
       "conversion's result unspecified; not the reference's choice (docs/conformance-audit.md)",
       cast_f32_to_u32_wraps, "reference", true},
  });
}

}  // namespace kc::mutants
