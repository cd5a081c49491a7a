// Planted defects of the masking and padding kernels.
#include <cstring>

#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

Outputs triu_strict(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The diagonal itself dropped: keep j > i + diagonal.
  return ref::execute(kernel, in, Params(p).set("diagonal", p.integer("diagonal") == INT64_MAX ? INT64_MAX : p.integer("diagonal") + 1));
}

Outputs masked_fill_inverted(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The mask read the wrong way round: filled where it is 0.
  if (in.size() != 2 || in[1].dtype() != DType::u8 || in[0].dims() != in[1].dims()) return ref::execute(kernel, in, p);
  Tensor flipped(DType::u8, in[1].dims());
  for (std::int64_t i = 0; i < flipped.numel(); ++i) flipped.set_bits(i, in[1].bits_at(i) == 0 ? 1 : 0);
  const std::vector<Tensor> args{in[0], flipped};
  return ref::execute(kernel, args, p);
}

Outputs pad_reflect_with_edge(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // NumPy's `symmetric` in place of `reflect`: the edge repeated (i < 0 ->
  // -i - 1, i >= n -> 2n - 1 - i): the border shifted by one.
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return out;
  const Dims& d = in[0].dims();
  const std::vector<std::int64_t>& pad = p.shape("padding");
  const Dims& od = out[0].dims();
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    std::int64_t rest = o, src = 0, stride = 1;
    for (std::size_t a = d.size(); a-- > 0;) {
      const std::int64_t i = rest % od[a] - pad[2 * a];
      rest /= od[a];
      const std::int64_t s = i < 0 ? -i - 1 : i >= d[a] ? 2 * d[a] - 1 - i : i;
      src += s * stride;
      stride *= d[a];
    }
    out[0].set_bits(o, in[0].bits_at(src));
  }
  return out;
}

// pad_backward with each input position's sum formed by `sum(terms)`.
template <class Sum>
Outputs resummed(std::string_view kernel, std::span<const Tensor> in, const Params& p, DType t, Sum sum) {
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != t) return out;
  const Dims& d = p.shape("in_shape");
  const std::vector<std::int64_t>& pad = p.shape("padding");
  const std::int64_t mode = p.integer("mode");
  const Dims& od = in[0].dims();
  std::vector<std::vector<double>> terms(static_cast<std::size_t>(out[0].numel()));
  for (std::int64_t o = 0; o < in[0].numel(); ++o) {
    std::int64_t rest = o, src = 0, stride = 1;
    bool inside = true;
    for (std::size_t a = d.size(); a-- > 0;) {
      std::int64_t i = rest % od[a] - pad[2 * a];
      rest /= od[a];
      if (i < 0 || i >= d[a]) {
        if (mode == 0) inside = false;
        else if (mode == 1) i = i < 0 ? -i : 2 * (d[a] - 1) - i;
        else i = i < 0 ? 0 : d[a] - 1;
      }
      src += i * stride;
      stride *= d[a];
    }
    if (inside) terms[static_cast<std::size_t>(src)].push_back(in[0].value_at(o));
  }
  for (std::size_t s = 0; s < terms.size(); ++s) out[0].set_bits(static_cast<std::int64_t>(s), bits(t, sum(terms[s])));
  return out;
}

Outputs pad_backward_in_t(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The accumulator in T (f32) instead of f64: one rounding a step.
  return resummed(kernel, in, p, DType::f32, [](const std::vector<double>& v) {
    double acc = 0;
    for (double x : v) acc = rn(DType::f32, acc + x);
    return acc;
  });
}

Outputs pad_backward_truncating(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The f64 sum narrowed to bf16 by truncation (the low bits dropped): biased toward zero.
  return resummed(kernel, in, p, DType::bf16, [](const std::vector<double>& v) {
    double acc = 0;
    for (double x : v) acc += x;
    const float f = static_cast<float>(acc);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b &= 0xffff0000u;
    float t;
    std::memcpy(&t, &b, 4);
    return static_cast<double>(t);
  });
}

}  // namespace

void register_masking(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"triu_strict", {"triu"}, kFloatAndU32Set, "accuracy", "triu drops the diagonal itself (j > i + diagonal)",
       triu_strict},
      {"masked_fill_inverted", {"masked_fill"}, kFloatAndU32Set, "accuracy", "masked_fill fills where the mask is 0",
       masked_fill_inverted},
      {"pad_reflect_with_edge", {"pad_reflect"}, {DType::f32}, "accuracy",
       "f32 pad_reflect repeats the edge (NumPy's symmetric)", pad_reflect_with_edge},
      {"pad_backward_in_t", {"pad_backward"}, {DType::f32}, "accuracy",
       "f32 pad_backward accumulates in f32 instead of f64", pad_backward_in_t},
      {"pad_backward_truncating", {"pad_backward"}, {DType::bf16}, "statistics",
       "bf16 pad_backward narrows its f64 sums by truncation (biased)", pad_backward_truncating},
  });
}

}  // namespace kc::mutants
