// Planted defects of the indexing kernels.
#include "backends/mutants/support.h"

namespace kc::mutants {

namespace {

std::vector<std::int64_t> coords(const Dims& d, std::int64_t i) {
  std::vector<std::int64_t> c(d.size());
  for (std::size_t a = d.size(); a-- > 0;) c[a] = d[a] ? i % d[a] : 0, i = d[a] ? i / d[a] : 0;
  return c;
}
std::int64_t flat(const Dims& d, const std::vector<std::int64_t>& c) {
  std::int64_t i = 0;
  for (std::size_t a = 0; a < d.size(); ++a) i = i * d[a] + c[a];
  return i;
}

Outputs gather_wrong_axis(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // The index applied to the last axis whatever `dim` is (right for dim =
  // rank - 1 and where the index fits there, else the reference's value).
  Outputs out = ref::execute(kernel, in, p);
  const Tensor &x = in[0], &ix = in[1];
  const std::size_t last = x.dims().size() - 1;
  for (std::int64_t o = 0; o < out[0].numel(); ++o) {
    std::vector<std::int64_t> c = coords(ix.dims(), o);
    const auto v = static_cast<std::int64_t>(ix.bits_at(o));
    c[last] = v;
    bool inside = true;  // (the index's own coordinate along dim may lie past x's: then the reference's value)
    for (std::size_t a = 0; a < c.size(); ++a) inside &= c[a] < x.dims()[a];
    if (!inside) continue;
    out[0].set_bits(o, x.bits_at(flat(x.dims(), c)));
  }
  return out;
}

// base with src[p] stored (not added) into its target: the last write wins.
Outputs stored(std::string_view kernel, std::span<const Tensor> in, const Params& p, bool by_element) {
  Outputs out = ref::execute(kernel, in, p);
  const Tensor &base = in[0], &ix = in[1], &src = in[2];
  if (base.dtype() != DType::f32) return out;
  const auto dim = static_cast<std::size_t>(p.integer("dim"));
  std::vector<bool> written(static_cast<std::size_t>(base.numel()), false);
  Tensor y = out[0];
  for (std::int64_t q = 0; q < src.numel(); ++q) {
    std::vector<std::int64_t> c = coords(src.dims(), q);
    c[dim] = static_cast<std::int64_t>(ix.bits_at(by_element ? q : c[dim]));
    const std::int64_t at = flat(base.dims(), c);
    // The first contribution adds to base (as it should); later ones overwrite.
    const double v = written[static_cast<std::size_t>(at)] ? src.value_at(q) : base.value_at(at) + src.value_at(q);
    y.set_bits(at, bits(DType::f32, v));
    written[static_cast<std::size_t>(at)] = true;
  }
  return {y};
}
Outputs scatter_add_overwrites(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // Duplicate indices overwrite instead of adding (a racy GPU scatter).
  return stored(kernel, in, p, true);
}
Outputs index_add_overwrites(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  return stored(kernel, in, p, false);
}

Outputs embedding_off_by_one(std::string_view kernel, std::span<const Tensor> in, const Params& p) {
  // ids taken 1-based: row ids[i] - 1 (row 0 for id 0).
  std::vector<std::int64_t> ids = p.shape("ids");
  for (auto& v : ids) v = v > 0 ? v - 1 : 0;
  Outputs out = ref::execute(kernel, in, p);
  if (in[0].dtype() != DType::f32) return out;
  return ref::execute(kernel, in, Params(p).set("ids", ids));
}

}  // namespace

void register_indexing(std::vector<Mutant>& v) {
  v.insert(v.end(), {
      {"gather_wrong_axis", {"gather"}, kFloatAndU32Set, "accuracy", "gather indexes the last axis instead of dim",
       gather_wrong_axis},
      {"scatter_add_overwrites", {"scatter_add"}, {DType::f32}, "accuracy",
       "f32 scatter_add overwrites instead of adding on duplicate indices", scatter_add_overwrites},
      {"index_add_overwrites", {"index_add"}, {DType::f32}, "accuracy",
       "f32 index_add overwrites instead of adding on duplicate indices", index_add_overwrites},
      {"embedding_off_by_one", {"embedding"}, {DType::f32}, "accuracy", "f32 embedding reads row ids[i] - 1",
       embedding_off_by_one},
  });
}

}  // namespace kc::mutants
