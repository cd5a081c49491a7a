// Planted defects of the sequence and shape kernels.
#include <cstring>

#include "backends/mutants/support.h"
#include "kernels/shape_math.h"

namespace kc::mutants {

namespace {

// The reference's output (so that bad input still raises its errors), each
// output element of dtype in `dtypes` rewritten to x's element source(o).
template <class Source>
Outputs moved(std::string_view kernel, std::span<const Tensor> in, const Params& p, DTypeSet dtypes, Source source) {
  Outputs out = ref::execute(kernel, in, p);
  if (!dtypes.contains(in[0].dtype())) return out;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) out[0].set_bits(o, source(o));
  return out;
}

Outputs roll_off_by_one(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The shift taken one too far: out[j] = x[(j - s - 1) mod d].
  const auto dim = static_cast<std::size_t>(p.integer("dim"));
  return moved(kernel, in, p, {DType::f32, DType::u32}, [&](std::int64_t o) {
    const kern::AlongDim a(in[0].dims(), dim);
    const std::int64_t s = ((p.integer("shift") % a.d) + a.d) % a.d;
    const std::int64_t i = o % a.inner, j = (o / a.inner) % a.d, outer = o / (a.inner * a.d);
    return in[0].bits_at(a.at(outer, ((j - s - 1) % a.d + 2 * a.d) % a.d, i));
  });
}

Outputs concat_b_first(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The operands swapped where their dims agree (else as the reference):
  // b's lines, then a's.
  if (in.size() != 2 || in[0].dims() != in[1].dims()) return ref::execute(kernel, in, p);
  const std::vector<Tensor> swapped{in[1], in[0]};
  return ref::execute(kernel, swapped, p);
}

Outputs slice_from_zero(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // start ignored: every slice read from the beginning of the dim.
  Params q = p;
  if (p.has("start")) q.set("start", std::int64_t{0});
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return out;
  return ref::execute(kernel, in, q);
}

// cumsum of dtype t along dim with acc = step(acc, v) through doubles.
template <class Step>
Outputs rescan(std::string_view kernel, std::span<const Tensor> in, const Params& p, DType t, Step step) {
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != t) return out;
  const kern::AlongDim a(in[0].dims(), static_cast<std::size_t>(p.integer("dim")));
  for (std::int64_t o = 0; o < a.outer; ++o)
    for (std::int64_t i = 0; i < a.inner; ++i) {
      double acc = 0, prev = 0;
      for (std::int64_t j = 0; j < a.d; ++j) {
        const double v = in[0].value_at(a.at(o, j, i));
        const double next = step(acc, v, prev);
        prev = v;
        acc = next;
        out[0].set_bits(a.at(o, j, i), bits(t, acc));
      }
    }
  return out;
}

Outputs cumsum_exclusive(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // An exclusive scan: out_j holds the sum of x_0..x_{j-1} (x_j added one step late).
  return rescan(kernel, in, p, DType::f32, [](double acc, double, double prev) { return rn(DType::f32, acc + prev); });
}

Outputs cumsum_f32_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The running sum kept in a bf16 register: 2^-8 a step against the bound's 2^-24.
  return rescan(kernel, in, p, DType::f32,
                [](double acc, double v, double) { return rn(DType::bf16, rn(DType::f32, acc + v)); });
}

Outputs cumsum_f16_in_bf16(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // f16 running sums in bf16 (3 fewer bits): inside the worst-case bound,
  // but errors 8 times too large (the statistics case's mean square).
  return rescan(kernel, in, p, DType::f16,
                [](double acc, double v, double) { return rn(DType::bf16, rn(DType::f32, acc + v)); });
}

Outputs reshape_copies(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // A reshape that copies: correct, but not the reference's view.
  Outputs out = ref::execute(kernel, in, p);
  Tensor copy(out[0].dtype(), out[0].dims());
  if (copy.byte_size() > 0) std::memcpy(copy.mutable_bytes(), out[0].bytes(), copy.byte_size());
  return {copy};
}

}  // namespace

void register_sequence(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"roll_off_by_one", {"roll"}, {DType::f32, DType::u32}, "accuracy", "roll shifts one place too far",
       roll_off_by_one},
      {"concat_b_first", {"concat"}, kFloatAndU32Set, "accuracy", "concat puts b before a (operands of equal dims)",
       concat_b_first},
      {"slice_from_zero", {"slice"}, {DType::f32}, "accuracy", "f32 slice ignores start", slice_from_zero},
      {"cumsum_exclusive", {"cumsum"}, {DType::f32}, "accuracy", "f32 cumsum is exclusive (x_j added one step late)",
       cumsum_exclusive},
      {"cumsum_f32_in_bf16", {"cumsum"}, {DType::f32}, "accuracy", "f32 cumsum keeps its running sum in bf16",
       cumsum_f32_in_bf16},
      {"cumsum_f16_in_bf16", {"cumsum"}, {DType::f16}, "statistics",
       "f16 cumsum keeps its running sum in bf16: inside the worst-case bound, errors 8x too large", cumsum_f16_in_bf16},
      {"reshape_copies", {"reshape", "squeeze", "unsqueeze", "contiguize"}, kFloatAndU32Set, "layout",
       "reshape and its arms copy instead of sharing the input's storage", reshape_copies, "reference", true},
  });
}

}  // namespace kc::mutants
