// The conv driver's shaped cases (drivers/conv_geometry.h): a tail's
// shapes, a problem line's defaults, and what a line's shapes must agree on
// (the contract's preconditions, checked before the case is built).
#include <fmt/format.h>

#include "drivers/conv_geometry.h"
#include "drivers/shaped.h"

namespace kc::drivers::conv {

Shaped tail_shapes(Mode m, std::int64_t n) {
  const Dims x{1, n, 2, 2}, w = m == conv_transpose2d ? Dims{n, 2, 1, 1} : Dims{2, n, 1, 1};
  Shaped s = all_given(m == conv2d ? std::vector<Dims>{x, w, {2}} : std::vector<Dims>{x, w}, with_defaults(m, Params()));
  if (m == conv2d) s.given[2] = false;  // (no bias: each output the n products' fold alone)
  return s;
}

Params with_defaults(Mode m, const Params& given) {
  const std::vector<std::int64_t> one{1, 1}, zero{0, 0};
  Params p;
  if (m == conv2d_simple) p.set("stride", std::int64_t{1}).set("padding", std::int64_t{0});
  else p.set("stride", one).set("padding", zero).set("groups", std::int64_t{1});
  if (m == conv_transpose2d) p.set("dilation", one).set("output_padding", zero);
  for (const auto& [name, value] : given.values()) p.set(name, value);
  return p;
}

namespace {

std::string geometry_error(Mode m, const Geometry& g) {
  const bool pairs_ok = g.sh >= 1 && g.sw >= 1 && g.ph >= 0 && g.pw >= 0;
  if (!pairs_ok) return fmt::format("stride {}x{} and padding {}x{}: a stride is >= 1, a padding >= 0", g.sh, g.sw, g.ph, g.pw);
  if (g.groups < 1 || g.cin % g.groups != 0 || g.cout % g.groups != 0)
    return fmt::format("groups = {} does not divide the {} input and {} output channels", g.groups, g.cin, g.cout);
  if (m == conv2d && (g.h + 2 * g.ph < g.kh || g.w + 2 * g.pw < g.kw))
    return fmt::format("the {}x{} kernel is larger than the padded {}x{} input", g.kh, g.kw, g.h + 2 * g.ph, g.w + 2 * g.pw);
  if (g.ho(m) < 1 || g.wo(m) < 1) return fmt::format("the output would be {}x{}", g.ho(m), g.wo(m));
  return {};
}

}  // namespace

std::string shaped_geometry_error(Mode m, const contract::KernelSpec& k, const Shaped& s) {
  const Params p = with_defaults(m, s.params);
  const Dims &x = s.dims.at(0), &w = s.dims.at(1);
  const bool bias = s.given.size() > 2 && s.given[2];
  const Geometry g = geometry(m, x, w, p, bias);
  const std::int64_t w_in = m == conv_transpose2d ? w[0] : w[1] * g.groups;
  if (w_in != g.cin)
    return fmt::format("{}: {} has {} input channels, {} takes {}", k.name, operand_text(k, s, 0), g.cin, operand_text(k, s, 1), w_in);
  if (bias && s.dims[2] != Dims{g.cout}) return fmt::format("{}: {} is not [{}] (one per output channel)", k.name, operand_text(k, s, 2), g.cout);
  return named_error(k, geometry_error(m, g));
}

}  // namespace kc::drivers::conv
