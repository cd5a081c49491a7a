// The conv driver's invalid calls (Driver::violate): a valid frame broken
// one precondition at a time.
#include "drivers/conv_geometry.h"
#include "generators/invalid.h"

namespace kc::drivers::conv {

namespace {

// A zero case of violate's frame f (below): x and the weights of its shape.
void set_frame(gen::Case& c, Mode m, DType t, const Geometry& f) {
  c.inputs = {gen::zeros(t, {f.n, f.cin, f.h, f.w}), gen::zeros(t, weight_dims(m, f))};
  c.params = params_of(m, f);
}

}  // namespace

std::optional<gen::Case> violate_operands(Mode m, Rule r, const std::string& operand, gen::Case c,
                                          DType t, const Geometry& g, std::uint64_t index) {
  const auto i = static_cast<std::int64_t>(index);
  if (r == Rule::arity) {  // one tensor, or four (conv2d), or three (the others)
    set_frame(c, m, t, g);
    if (index % 2 == 0) c.inputs.pop_back();
    else c.inputs.resize(m == conv2d ? 4 : 3, gen::zeros(t, {g.cout}));
    return c;
  }
  if (r == Rule::rank_exact) {  // the operand of rank 3 or 5
    set_frame(c, m, t, g);
    const std::size_t at = operand == "x" ? 0 : 1;
    Dims d = c.inputs[at].dims();
    if (index % 2 == 0) d.pop_back();
    else d.push_back(1 + i);
    c.inputs[at] = gen::zeros(t, d);
    return c;
  }
  if (r == Rule::dtype_mismatch) {  // weight (or bias) of the other float dtype
    set_frame(c, m, t, g);
    const DType other = t == DType::f32 ? DType::f64 : DType::f32;
    if (operand == "bias") c.inputs.push_back(gen::zeros(other, {g.cout}));
    else c.inputs[1] = gen::zeros(other, c.inputs[1].dims());
    return c;
  }
  if (r == Rule::param_domain && m != conv2d_simple) {  // groups 0 (or negative); a stride pair with a 0 or of 3 entries; a bad pair
    set_frame(c, m, t, g);
    if (operand == "groups") c.params.set("groups", -i);
    else if (operand == "stride" && m == conv2d && index % 2 == 0) c.params.set("stride", std::vector<std::int64_t>{0, 1});
    else if (operand == "stride") c.params.set("stride", std::vector<std::int64_t>{1, 1, 1});  // (conv_transpose2d takes stride 0)
    else c.params.set(operand, std::vector<std::int64_t>(3 + index % 2, 0));
    return c;
  }
  return std::nullopt;
}

std::optional<gen::Case> violate_shapes(Mode m, Rule r, gen::Case c, DType t, const Geometry& g,
                                        std::uint64_t index) {
  const auto i = static_cast<std::int64_t>(index);
  if (r == Rule::groups_divisibility) {  // channels not a multiple of groups (3)
    Geometry f = g;
    f.groups = 3;
    f.cin = 6, f.cout = 6;
    set_frame(c, m, t, f);
    if (m == conv_transpose2d || index % 2 == 0) c.inputs[0] = gen::zeros(t, {1, 4 + 3 * i, 5, 5});
    if (m == conv_transpose2d) c.inputs[1] = gen::zeros(t, {4 + 3 * i, 2, 3, 3});
    if (m == conv2d && index % 2 == 1) c.inputs[1] = gen::zeros(t, {4, 2, 3, 3});  // c_out 4
    if (m == conv2d && index % 2 == 0) c.inputs[1] = gen::zeros(t, {6, (4 + 3 * i) / 3, 3, 3});
    return c;
  }
  if (r == Rule::channels_mismatch) {  // weight's channel dim off by 1 + index
    set_frame(c, m, t, g);
    Dims d = c.inputs[1].dims();
    d[m == conv_transpose2d ? 0 : 1] += 1 + i;
    c.inputs[1] = gen::zeros(t, d);
    return c;
  }
  if (r == Rule::kernel_empty) {
    set_frame(c, m, t, g);
    c.inputs[1] = gen::zeros(t, index % 2 == 0 ? Dims{4, 2, 0, 3} : Dims{4, 2, 3, 0});
    if (m == conv_transpose2d) c.inputs[1] = gen::zeros(t, index % 2 == 0 ? Dims{4, 2, 0, 3} : Dims{4, 2, 3, 0});
    return c;
  }
  if (r == Rule::kernel_too_large) {  // a kernel taller (or wider) than the padded input
    set_frame(c, m, t, g);
    c.inputs[1] = gen::zeros(t, index % 2 == 0 ? Dims{4, 2, 6 + i, 3} : Dims{4, 2, 3, 6 + i});
    return c;
  }
  if (r == Rule::shape_mismatch) {  // a bias of the wrong length, or rank 2
    set_frame(c, m, t, g);
    c.inputs.push_back(gen::zeros(t, index % 2 == 0 ? Dims{g.cout + 1 + i} : Dims{1, g.cout}));
    return c;
  }
  if (r == Rule::padding_too_large) {  // padding at half the full output or more
    set_frame(c, m, t, g);
    c.params.set("padding", std::vector<std::int64_t>{4 + i, 0});
    return c;
  }
  return std::nullopt;
}

}  // namespace kc::drivers::conv
