// The conv driver's geometry (drivers/conv.cpp): the three modes, a
// case's sizes, strides, paddings and groups read from its tensors and
// parameters, and back; and the invalid calls of violate
// (drivers/conv_invalid.cpp). Internal to the conv driver.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/rules.h"
#include "drivers/driver.h"
#include "generators/case.h"

namespace kc::drivers::conv {

enum Mode { conv2d, conv2d_simple, conv_transpose2d };
inline const std::map<std::string_view, int> kModes{{"conv2d", conv2d}, {"conv2d_simple", conv2d_simple},
                                             {"conv_transpose2d", conv_transpose2d}};

// The geometry of a case, read from its tensors and parameters.
struct Geometry {
  std::int64_t n, cin, h, w, cout, kh, kw, sh, sw, ph, pw, dh = 1, dw = 1, oph = 0, opw = 0, groups = 1;
  bool bias = false;
  std::int64_t cin_g() const { return cin / groups; }
  std::int64_t cout_g() const { return cout / groups; }
  std::int64_t ho(Mode m) const {
    if (m == conv_transpose2d) return std::max<std::int64_t>(h - 1, 0) * sh + dh * (kh - 1) + oph + 1 - 2 * ph;
    return std::max<std::int64_t>(h + 2 * ph - kh, 0) / sh + 1;
  }
  std::int64_t wo(Mode m) const {
    if (m == conv_transpose2d) return std::max<std::int64_t>(w - 1, 0) * sw + dw * (kw - 1) + opw + 1 - 2 * pw;
    return std::max<std::int64_t>(w + 2 * pw - kw, 0) / sw + 1;
  }
};

inline std::pair<std::int64_t, std::int64_t> pair_param(const Params& p, const char* name) {
  const auto& v = p.shape(name);
  return {v.at(0), v.at(1)};
}

// The geometry of x and w of these dims under these parameters.
inline Geometry geometry(Mode m, const Dims& x, const Dims& w, const Params& p, bool bias) {
  Geometry g{.n = x[0], .cin = x[1], .h = x[2], .w = x[3], .cout = w[0], .kh = w[2], .kw = w[3], .sh = 1, .sw = 1, .ph = 0, .pw = 0};
  if (m == conv2d_simple) {
    g.sh = g.sw = p.integer("stride");
    g.ph = g.pw = p.integer("padding");
    return g;
  }
  std::tie(g.sh, g.sw) = pair_param(p, "stride");
  std::tie(g.ph, g.pw) = pair_param(p, "padding");
  g.groups = p.integer("groups");
  g.bias = bias;
  if (m == conv_transpose2d) {
    std::tie(g.dh, g.dw) = pair_param(p, "dilation");
    std::tie(g.oph, g.opw) = pair_param(p, "output_padding");
    g.cout = w[1] * g.groups;
  }
  return g;
}
inline Geometry geometry(Mode m, const gen::Case& c) {
  return geometry(m, c.inputs.at(0).dims(), c.inputs.at(1).dims(), c.params, c.inputs.size() > 2);
}

inline Params params_of(Mode m, const Geometry& g) {
  if (m == conv2d_simple) return Params().set("stride", g.sh).set("padding", g.ph);
  Params p = Params().set("stride", std::vector<std::int64_t>{g.sh, g.sw}).set("padding", std::vector<std::int64_t>{g.ph, g.pw})
                 .set("groups", g.groups);
  if (m == conv_transpose2d)
    p.set("dilation", std::vector<std::int64_t>{g.dh, g.dw}).set("output_padding", std::vector<std::int64_t>{g.oph, g.opw});
  return p;
}

inline Dims weight_dims(Mode m, const Geometry& g) {
  return m == conv_transpose2d ? Dims{g.cin, g.cout_g(), g.kh, g.kw} : Dims{g.cout, g.cin_g(), g.kh, g.kw};
}

// Shaped cases (drivers/conv_shaped.cpp). A tail's: the contracted axis
// is the input channels (x [1, n, 2, 2], 1 x 1 weights of 2 output
// channels: 8 outputs, each a dot product of n terms).
Shaped tail_shapes(Mode m, std::int64_t n);
// A line's parameters, those left out PyTorch's defaults (stride 1,
// padding 0, groups 1, dilation 1, output_padding 0).
Params with_defaults(Mode m, const Params& given);
// "" when the shapes and parameters (with_defaults) make a valid call,
// else what does not fit.
std::string shaped_geometry_error(Mode m, const contract::KernelSpec& k, const Shaped& s);

// violate's rules on the operands' number, ranks, dtypes and parameter
// domains, breaking c (the valid case) over the frame g; nullopt for the
// other rules.
std::optional<gen::Case> violate_operands(Mode m, Rule r, const std::string& operand, gen::Case c,
                                          DType t, const Geometry& g, std::uint64_t index);
// violate's rules on the shapes' agreement (groups, channels, kernel,
// bias, padding); nullopt for the other rules.
std::optional<gen::Case> violate_shapes(Mode m, Rule r, gen::Case c, DType t, const Geometry& g,
                                        std::uint64_t index);

}  // namespace kc::drivers::conv
