// Planted defects of the binary families.
#include <cmath>

#include "backends/mutants/support.h"
#include "kernels/shape_math.h"

namespace kc::mutants {

namespace {

Outputs maximum_nan_symmetric(std::string_view, std::span<const Tensor> in, const Params& p) {
  // PyTorch's maximum: NaN from either side propagates.
  Outputs out = ref::execute("maximum", in, p);
  for (std::int64_t o = 0; o < out[0].numel(); ++o)
    if (std::isnan(in[0].value_at(o))) out[0].set_bits(o, in[0].bits_at(o));
  return out;
}

Outputs rem_fmod(std::string_view, std::span<const Tensor> in, const Params& p) {
  // PyTorch CPU's exact fmod-based remainder instead of the reference's rounded steps.
  Outputs out = ref::execute("rem", in, p);
  if (in[0].dtype() != DType::f32) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const double a = in[0].value_at(o), b = in[1].value_at(o);
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    out[0].set_bits(o, bits(DType::f32, r));
  }
  return out;
}

Outputs broadcast_add_accepts_incompatible(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Skips the compatibility check and returns a zero tensor of a's shape.
  if (in.size() == 2 && in[0].consistent() && in[1].consistent() && !kern::broadcast_shape(in[0].dims(), in[1].dims()))
    return {Tensor(in[0].dtype(), in[0].dims())};
  return ref::execute("broadcast_add", in, p);
}

Outputs add_f16_ftz(std::string_view, std::span<const Tensor> in, const Params& p) {
  // Flushes subnormal f16 sums to zero.
  Outputs out = ref::execute("add", in, p);
  if (in[0].dtype() != DType::f16) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    const std::uint64_t y = out[0].bits_at(o);
    if ((y & 0x7c00u) == 0 && (y & 0x3ffu) != 0) out[0].set_bits(o, y & 0x8000u);
  }
  return out;
}

// The kernels' shared broadcast index code with its innermost axis read
// backwards (kern::BroadcastIndex with coordinate j of the last axis taken
// as n - 1 - j): every broadcasting kernel built on it inherits the defect.
// Before the drivers had index maths of their own, this passed every check
// of broadcast_add, broadcast_mul and broadcast_to: the grading side used
// the same code.
std::int64_t reversed_source(const Dims& src, const Dims& out, std::int64_t o) {
  if (out.empty() || out.back() == 0) return kern::BroadcastIndex(src, out)(o);
  const std::int64_t n = out.back(), j = o % n;
  return kern::BroadcastIndex(src, out)(o - j + (n - 1 - j));
}

Tensor materialized(const Tensor& x, const Dims& out) {
  Tensor y(x.dtype(), out);
  for (std::int64_t o = 0; o < y.numel(); ++o) y.set_bits(o, x.bits_at(reversed_source(x.dims(), out, o)));
  return y;
}

Outputs broadcast_index_reversed(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  Outputs out = ref::execute(kernel, in, p);  // validates the call
  if (kernel == "broadcast_to") {
    if (out[0].shares_storage(in[0])) return out;  // the zero-copy path never indexes
    return {materialized(in[0], out[0].dims())};
  }
  const std::string_view same_shape_op = kernel.substr(std::string_view("broadcast_").size());
  const Dims& d = out[0].dims();
  return ref::execute(same_shape_op, std::vector<Tensor>{materialized(in[0], d), materialized(in[1], d)}, p);
}

}  // namespace

void register_binary(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"broadcast_index_reversed",
       {"broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div", "broadcast_to"},
       kFloatSet,
       "accuracy",
       "the shared broadcast index code reads the innermost axis backwards",
       broadcast_index_reversed},
      {"maximum_nan_symmetric", {"maximum"}, kFloatSet, "reference-choice",
       "maximum propagates a NaN in a (PyTorch's rule)", maximum_nan_symmetric, "reference", true},
      {"rem_fmod", {"rem"}, {DType::f32}, "reference-choice",
       "f32 rem via PyTorch's exact fmod-based remainder instead of the reference's rounded steps", rem_fmod,
       "reference", true},
      {"broadcast_add_accepts_incompatible", {"broadcast_add"}, kFloatSet, "bad-input",
       "broadcast_add returns zeros for incompatible shapes instead of rejecting them",
       broadcast_add_accepts_incompatible},
      {"add_f16_ftz", {"add"}, {DType::f16}, "accuracy", "f16 add flushes subnormal results to zero", add_f16_ftz},
  });
}

}  // namespace kc::mutants
