// Driver "pool": max_pool2d (reference-semantics.md §9): x [N, C, H, W], a
// square window of kernel_size, a scalar stride, no padding, floor mode;
// output (n, c, oh, ow) folds the window's elements in (ky, kx) order,
// given to the entry's Terms oracle (a max fold: -inf start, strict >, NaN
// ignored).
#include <fmt/format.h>

#include "drivers/folds.h"
#include "drivers/movement.h"
#include "drivers/shaped.h"
#include "generators/invalid.h"
#include "generators/shrink.h"
#include "generators/tensors.h"
#include "generators/values.h"

namespace kc::drivers {

namespace {

struct Window {
  std::int64_t k, stride, ho, wo;
};
Window window_of(const gen::Case& c) {
  const Dims& d = c.inputs.at(0).dims();
  const std::int64_t k = c.params.integer("kernel_size"), s = c.params.integer("stride");
  return {k, s, (d[2] - k) / s + 1, (d[3] - k) / s + 1};
}

class Pool final : public Driver {
 public:
  std::string_view name() const override { return "pool"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "[N, C, (H - k)/stride + 1, (W - k)/stride + 1], x's dtype: each window's maximum";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    for (const char* p : {"kernel_size", "stride"})
      if (auto e = expects_param(k, p, contract::ParamKind::integer); !e.empty()) return e;
    return check_fold_entry(k, name());
  }

  // x [1-2, 1-3, 1-12, 1-12], a window of 1 up to the smaller side, stride
  // 1-3 (windows overlap, touch or leave gaps); the selections' values
  // (few distinct: ties, and the special values' NaNs and zeros of both signs).
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(rc::gen::container<std::vector<std::uint32_t>>(6, rc::gen::arbitrary<std::uint32_t>()),
                           [&k, t](const std::vector<std::uint32_t>& r) {
                             const Dims d{1 + r[0] % 2, 1 + r[1] % 3, 1 + r[2] % 12, 1 + r[3] % 12};
                             const std::int64_t kmax = std::min(d[2], d[3]);
                             const Params p = Params().set("kernel_size", static_cast<std::int64_t>(1 + r[4] % static_cast<std::uint32_t>(kmax)))
                                                  .set("stride", static_cast<std::int64_t>(1 + r[5] % 3));
                             return rc::gen::map(gen::reduction_values(t, k.values, static_cast<std::size_t>(checked_numel(d))),
                                                 [t, d, p](const std::vector<std::uint64_t>& v) {
                                                   return gen::Case{{gen::tensor_of(t, d, v)}, p, false};
                                                 });
                           });
  }

  // Every ordered pair (a, b) of the special values and thresholds as a
  // 2 x 2 window [a b; a b] (stride 2): max(a, b) with its NaN and tie rules.
  int sweep_count(const contract::KernelSpec&, DType t, int) const override { return is_float(t) ? 1 : 0; }
  gen::Case sweep_case(const contract::KernelSpec& k, DType t, std::uint64_t, int) const override {
    const Tensor pairs = all_pairs(t, sweep_values(k, t));
    const std::int64_t n = pairs.dims()[0];
    Tensor x(t, {1, 1, 2, 2 * n});
    for (std::int64_t r = 0; r < 2; ++r)
      for (std::int64_t j = 0; j < 2 * n; ++j) x.set_bits(r * 2 * n + j, pairs.bits_at(j));
    return gen::Case{{x}, Params().set("kernel_size", std::int64_t{2}).set("stride", std::int64_t{2}), false};
  }

  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs[0];
    const auto i = static_cast<std::int64_t>(index);
    if (rule.rule == Rule::rank_exact) {  // rank 3 or 5
      c.inputs[0] = gen::zeros(x.dtype(), index % 2 == 0 ? Dims{1, 4, 4} : Dims{1, 1, 4, 4, 1 + i});
      return c;
    }
    if (rule.rule == Rule::kernel_too_large) {  // a window past the height (or the width)
      c.inputs[0] = gen::zeros(x.dtype(), index % 2 == 0 ? Dims{1, 1, 3, 8} : Dims{1, 1, 8, 3});
      c.params.set("kernel_size", std::int64_t{4} + i);
      return c;
    }
    return std::nullopt;
  }

  // One image, one channel, then halves of the rows and columns that keep a window.
  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    const Tensor& x = c.inputs[0];
    const std::int64_t k = c.params.integer("kernel_size");
    std::vector<gen::Case> out;
    for (std::size_t axis = 0; axis < 4; ++axis) {
      const std::int64_t d = x.dims()[axis];
      const std::int64_t keep = axis < 2 ? 1 : std::max(k, d / 2);
      if (keep >= d) continue;
      for (const bool second : {false, true}) {
        gen::Case s = c;
        s.inputs[0] = gen::sliced(x, axis, second ? d - keep : 0, keep);
        out.push_back(std::move(s));
      }
    }
    return out;
  }

  // The main axis: a row's (x [1, 2, 3, n], ResNet's 3 x 3 window at
  // stride 2 walking it; the window min(3, n)).
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    const std::int64_t k = std::min<std::int64_t>(3, n);
    return all_given({{1, 2, 3, n}}, Params().set("kernel_size", k).set("stride", std::int64_t{2}));
  }
  // A line gives kernel_size; stride defaults to it (PyTorch's).
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = missing_params(k, s, {"kernel_size"}); !e.empty()) return e;
    const Dims& d = s.dims.at(0);
    const std::int64_t size = s.params.integer("kernel_size");
    if (size > d[2] || size > d[3]) return fmt::format("{}: the {}x{} window is larger than {}", k.name, size, size, operand_text(k, s, 0));
    return {};
  }
  // x uniform on [-1, 1].
  gen::Case shaped_case(const contract::KernelSpec&, DType t, std::uint64_t seed, const Shaped& s) const override {
    gen::Case c = uniform_case(s, {t}, seed);
    if (!c.params.has("stride")) c.params.set("stride", c.params.integer("kernel_size"));
    return c;
  }

  // A window's maximum is one of x's elements (no padding): |z| <= max|x|.
  std::optional<double> shaped_magnitude(const contract::KernelSpec&, const gen::Case& c) const override {
    return max_abs(c.inputs.at(0));
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Dims& d = c.inputs.at(0).dims();
    const Window w = window_of(c);
    return {{d[0], d[1], w.ho, w.wo}, k.out_dtype(c.inputs.at(0).dtype())};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Window w = window_of(c);
    const Dims& d = c.inputs.at(0).dims();
    each_element_at(k, c, d[0] * d[1] * w.ho * w.wo, f);
  }
  bool element_at(const contract::KernelSpec& k, const gen::Case& c, std::int64_t o, Element& e) const override {
    const Tensor& x = c.inputs.at(0);
    const Dims& d = x.dims();
    const Window w = window_of(c);
    static thread_local std::vector<std::int64_t> members;
    const std::int64_t ow = o % w.wo, oh = (o / w.wo) % w.ho, plane = o / (w.wo * w.ho);
    members.clear();
    for (std::int64_t ky = 0; ky < w.k; ++ky)
      for (std::int64_t kx = 0; kx < w.k; ++kx) members.push_back((plane * d[2] + oh * w.stride + ky) * d[3] + ow * w.stride + kx);
    e = cell_element(context_of(k, c), x, o, members,
                     fmt::format("the {}x{} window at ({}, {}) of plane {}", w.k, w.k, oh * w.stride, ow * w.stride, plane));
    return true;
  }
};

}  // namespace

void register_pool(Registry& r) { r.push_back(std::make_unique<Pool>()); }

}  // namespace kc::drivers
