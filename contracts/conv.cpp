// Contracts of convolution and pooling (inventory "Convolution / pooling";
// reference-semantics.md §9): conv2d and conv_transpose2d (exec: f32/f64
// only), conv2d_simple and max_pool2d (not exec-wired: T: Float).
#include "contracts/accuracy_models.h"
#include "contracts/contract.h"
#include "contracts/movers.h"
#include "oracles/oracle.h"

// The evaluations its entries bind (defined in oracles/linalg.cpp, oracles/reduction.cpp).
KC_MATH_OF(Dot, dot)
KC_MATH_OF(Terms, max_fold)

namespace kc::contract {

namespace {

constexpr DTypeSet kF32F64{DType::f32, DType::f64};
const ValueProfile kConvValues{.lo = -1e3, .hi = 1e3, .points = thresholds::scalar};

Param pair_param(std::string_view name, std::string_view domain) {
  return {.name = name, .kind = ParamKind::shape, .domain = domain};
}
// A pair parameter's rules: present, a shape of non-negative entries, two of them (each >= lo).
std::vector<Precondition> pair_rules(std::string_view name, std::string_view domain) {
  std::vector<Precondition> v = param_rules(name, "a shape [h, w]");
  v.push_back({Rule::shape_negative_dim, name, "every entry is >= 0 (usize)"});
  v.push_back({Rule::param_domain, name, std::string(domain)});
  return v;
}

KernelSpec convolution(KernelSpec k) {
  k.family = "conv";
  k.driver = "conv";
  k.accuracy = models::per_float_dtype([](DType t) {
    Accuracy a = models::dot_product(t);
    a.check_case_statistics = true;  // 512 outputs of 48 products
    return a;
  });
  std::erase_if(k.accuracy, [&](const DTypeAccuracy& d) { return !k.inputs[0].dtypes.contains(d.dtype); });
  k.values = kConvValues;
  // Per output: acc = +0, then acc + fl(x w) in T for each tap inside the
  // input, no FMA, no wider accumulator: the dot products' model and replay.
  k.math = {oracle::dot, oracle::replay::dot};
  return k;
}

// conv_transpose2d's parameters the reference accepts and PyTorch and
// oneDNN reject: a stride or dilation of 0 (no transposed convolution), an
// output padding not smaller than the stride or the dilation.
bool any_zero(const Params& p, const char* name) {
  for (const auto v : p.shape(name))
    if (v == 0) return true;
  return false;
}
const std::vector<AllowedRejection> kTransposedDomain{
    {Rule::param_domain, "stride", "a stride of 0: PyTorch and oneDNN reject it",
     [](std::span<const Tensor>, const Params& p) { return any_zero(p, "stride"); }},
    {Rule::param_domain, "dilation", "a dilation of 0: PyTorch and oneDNN reject it",
     [](std::span<const Tensor>, const Params& p) { return any_zero(p, "dilation"); }},
    {Rule::param_domain, "output_padding",
     "an output padding not smaller than the stride or the dilation: PyTorch rejects it",
     [](std::span<const Tensor>, const Params& p) {
       const auto &op = p.shape("output_padding"), &s = p.shape("stride"), &d = p.shape("dilation");
       for (std::size_t i = 0; i < op.size() && i < s.size() && i < d.size(); ++i)
         if (op[i] >= s[i] && op[i] >= d[i]) return true;
       return false;
     }}};

}  // namespace

void register_conv(std::vector<KernelSpec>& out) {
  {
    std::vector<Precondition> r{{Rule::dtype_mismatch, "weight", "weight has x's dtype (`unsupported operand dtype combination`)"},
                                {Rule::dtype_mismatch, "bias", "bias has x's dtype"},
                                {Rule::rank_exact, "x", "x is rank 4 [N, Cin, H, W] (`conv2d: x must be rank 4`)"},
                                {Rule::rank_exact, "weight", "weight is rank 4 [Cout, Cin/groups, Kh, Kw]"}};
    r = with(r, param_rules("groups", "an integer"));
    r.push_back({Rule::param_domain, "groups", "groups >= 1 (ConvShape::validate)"});
    r.push_back({Rule::groups_divisibility, "groups", "c_in and c_out are multiples of groups (ConvShape::validate)"});
    r = with(r, pair_rules("stride", "two entries [sh, sw], each >= 1"));
    r = with(r, pair_rules("padding", "two entries [ph, pw]"));
    r.push_back({Rule::kernel_empty, "weight", "Kh, Kw >= 1"});
    r.push_back({Rule::kernel_too_large, "weight", "H + 2 ph >= Kh and W + 2 pw >= Kw (`kernel taller/wider than padded input`)"});
    r.push_back({Rule::channels_mismatch, "weight",
                 "weight.shape[1] == c_in / groups (a debug_assert only in the reference, which then reads the wrong "
                 "weights: rejected here)"});
    r.push_back({Rule::shape_mismatch, "bias", "bias is [Cout] (a debug_assert only in the reference)"});
    out.push_back(convolution(
        {.name = "conv2d", .summary = "2-D convolution: stride, symmetric zero padding, groups, optional bias added last",
         .source = "ops.rs:704 (fuel-conv conv2d_direct)",
         .inputs = {{.name = "x", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                    {.name = "weight", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                    {.name = "bias", .dtypes = kF32F64, .min_rank = 1, .max_rank = 1, .optional = true}},
         .params = {pair_param("stride", "[sh, sw], each >= 1"), pair_param("padding", "[ph, pw] (both sides)"),
                    {.name = "groups", .kind = ParamKind::integer, .domain = ">= 1, dividing c_in and c_out"}},
         .preconditions = tensor_rules("two or three input tensors x, weight and optionally bias", "x",
                                       "x is f32 or f64 (the exec arm's dtypes)", r),
         .properties = {{.name = "with a 1 x 1 kernel it equals a matmul", .check = "conv_as_matmul", .related = "matmul"}},
         .oracle_text = "sum over the taps inside of x w, plus bias (exact, oracles/exact_sum.h); S = (gamma_n sum |x w| + "
                        "n eta (1+u)^(n-1)) / u, n the taps (+1 with a bias)",
         .notes = "h_out = (h + 2 ph - kh)/sh + 1 (likewise w). Out-of-range taps are skipped; the bias is added last, "
                  "one more rounding. The reference never checks weight.shape[1] or the bias length (debug_asserts): "
                  "rejected here."}));
  }
  {
    std::vector<Precondition> r{{Rule::dtype_mismatch, "weight", "weight has x's dtype"},
                                {Rule::rank_exact, "x", "x is rank 4 [N, Cin, H, W]"},
                                {Rule::rank_exact, "weight", "weight is rank 4 [Cin, Cout/groups, Kh, Kw]"},
                                {Rule::channels_mismatch, "weight", "weight.shape[0] == Cin (`x has C in-channels but weight has C'`)"}};
    r = with(r, param_rules("groups", "an integer"));
    r.push_back({Rule::param_domain, "groups", "groups >= 1 (0 divides by zero in the reference: rejected here)"});
    r.push_back({Rule::groups_divisibility, "groups", "Cin is a multiple of groups"});
    r.push_back({Rule::kernel_empty, "weight", "Kh, Kw >= 1 (K - 1 underflows in the reference: rejected here)"});
    for (const char* p : {"stride", "padding", "output_padding", "dilation"})
      r = with(r, pair_rules(p, "two entries [h, w]"));
    r.push_back({Rule::padding_too_large, "padding",
                 "the uncropped size exceeds 2 p on both axes (`padding larger than produced output dims`)"});
    out.push_back(convolution(
        {.name = "conv_transpose2d", .summary = "2-D transposed convolution, scatter form (no bias, no kernel flip)",
         .source = "ops.rs:751",
         .inputs = {{.name = "x", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4},
                    {.name = "weight", .dtypes = kF32F64, .min_rank = 4, .max_rank = 4}},
         .params = {pair_param("stride", "[sh, sw] (0 accepted, as the reference)"), pair_param("padding", "[ph, pw]"),
                    pair_param("output_padding", "[oph, opw] (bottom and right only)"),
                    pair_param("dilation", "[dh, dw] (0 accepted, as the reference)"),
                    {.name = "groups", .kind = ParamKind::integer, .domain = ">= 1, dividing Cin"}},
         .preconditions = tensor_rules("exactly two input tensors x, weight", "x", "x is f32 or f64 (the exec arm's dtypes)", r),
         .properties = {{.name = "adjoint of conv2d: <u, conv_t(y)> = <conv2d(u), y>", .check = "conv_adjoint",
                         .related = "conv2d"}},
         .oracle_text = "sum over the (c, h, w, ki, kj) reaching the output of x w (exact), in that order; S as conv2d's",
         .notes = "H_out = (max(H - 1, 0) sh + dh (Kh - 1) + oph + 1) - 2 ph. Contributions arrive per output in "
                  "lexicographic order of (ic, h, w, ki, kj) onto +0 in T. Stride 0, dilation 0 and output_padding >= "
                  "stride are accepted, as the reference accepts them; the conformance profile also accepts their "
                  "rejection (param.domain), as PyTorch and oneDNN reject them.",
         .allowed_rejections = kTransposedDomain}));
  }
  out.push_back(convolution(
      {.name = "conv2d_simple", .summary = "legacy 2-D convolution: scalar stride and padding, no groups, no bias",
       .source = "ops.rs:2209",
       .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4},
                  {.name = "kernel", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4}},
       .params = {{.name = "stride", .kind = ParamKind::integer, .domain = ">= 1", .min = 1, .max = INT32_MAX},
                  {.name = "padding", .kind = ParamKind::integer, .domain = ">= 0", .min = 0, .max = INT32_MAX}},
       .preconditions = tensor_rules(
           "exactly two input tensors x, kernel", "x", "x is f32, f64, bf16 or f16",
           with({{Rule::dtype_mismatch, "kernel", "kernel has x's dtype"},
                 {Rule::rank_exact, "x", "x is rank 4 (`conv2d: input must be rank 4`)"},
                 {Rule::rank_exact, "kernel", "kernel is rank 4 (`conv2d: kernel must be rank 4`)"},
                 {Rule::channels_mismatch, "kernel", "kernel.shape[1] == x.shape[1] (`input C_in != kernel C_in`)"},
                 {Rule::param_domain, "stride", "stride >= 1 (`conv2d: stride must be positive`)"},
                 {Rule::param_domain, "padding", "padding >= 0"}},
                with(param_rules("stride", "an integer"), param_rules("padding", "an integer")))),
       .oracle_text = "as conv2d: the taps inside, exact",
       .notes = "h_out = saturating(h + 2p - kH) / stride + 1: a kernel taller than the padded input gives one "
                "partial window (no panic); the conformance profile also accepts its rejection (kernel.too_large), "
                "as conv2d and PyTorch reject it. Not exec-wired.",
       .allowed_rejections = {{Rule::kernel_too_large, "kernel",
                               "a kernel taller or wider than the padded input: conv2d and PyTorch reject it",
                               [](std::span<const Tensor> in, const Params& p) {
                                 const Dims &x = in[0].dims(), &k = in[1].dims();
                                 const std::int64_t pad = p.integer("padding");
                                 return x[2] + 2 * pad < k[2] || x[3] + 2 * pad < k[3];
                               }}}}));
  out.push_back({.name = "max_pool2d", .family = "conv", .driver = "pool",
                 .summary = "2-D max pool: square window, scalar stride, no padding, floor mode", .source = "ops.rs:2301",
                 .inputs = {{.name = "x", .dtypes = kFloatSet, .min_rank = 4, .max_rank = 4}},
                 .params = {{.name = "kernel_size", .kind = ParamKind::integer, .domain = "1 <= k <= min(H, W)", .min = 1,
                             .max = INT32_MAX},
                            {.name = "stride", .kind = ParamKind::integer, .domain = ">= 1", .min = 1, .max = INT32_MAX}},
                 .preconditions = tensor_rules(
                     "exactly one input tensor", "x", "x is f32, f64, bf16 or f16",
                     with({{Rule::rank_exact, "x", "x is rank 4 [N, C, H, W]"},
                           {Rule::param_domain, "kernel_size", "kernel_size >= 1 (`zero kernel_size or stride`)"},
                           {Rule::param_domain, "stride", "stride >= 1"},
                           {Rule::kernel_too_large, "kernel_size", "kernel_size <= H and <= W (`kernel larger than input`)"}},
                          with(param_rules("kernel_size", "an integer"), param_rules("stride", "an integer")))),
                 .accuracy = models::exact_everywhere(),
                 .values = {.lo = -10, .hi = 10, .points = thresholds::zero,
                            .reaches = ResultSet::all().without({ResultClass::nan})},
                 .math = {oracle::max_fold, oracle::replay::max_fold},
                 .oracle_text = "the window's maximum: start -inf, replace on strict > in (ky, kx) order; NaN ignored",
                 .notes = "An all-NaN window gives -inf; the first of equal values (a -0 before a +0) is kept. PyTorch "
                          "propagates NaN: accepted by the conformance profile. Not exec-wired."});
}

}  // namespace kc::contract
