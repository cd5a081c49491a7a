// Driver "broadcast_to": x broadcast to a target shape (NumPy rules); output
// element o is the source element drivers/index_maps.h finds for it. When
// the target only adds leading size-1 dims and the contract's layout says
// so, the output must share x's storage (the reference's zero-copy path).
#include <fmt/format.h>

#include "drivers/driver.h"
#include "drivers/shaped.h"
#include "drivers/shrinking.h"
#include "drivers/index_maps.h"
#include "generators/invalid.h"
#include "generators/tensors.h"

namespace kc::drivers {

namespace {

class BroadcastTo final : public Driver {
 public:
  std::string_view name() const override { return "broadcast_to"; }
  std::string output_rule(const contract::KernelSpec&) const override {
    return "one output of shape `target`, same dtype";
  }
  std::string check_entry(const contract::KernelSpec& k) const override {
    if (auto e = expects_inputs(k, 1); !e.empty()) return e;
    if (auto e = expects_param(k, "target", contract::ParamKind::shape); !e.empty()) return e;
    return expects_input<oracle::Scalar>(k, name());
  }

  // A source, then a target that pads up to two leading dims and expands
  // size-1 dims, or (pure) pads with 1s only.
  rc::Gen<gen::Case> random_case(const contract::KernelSpec& k, DType t) const override {
    return rc::gen::mapcat(gen::shape(0, 4), [&k, t](Dims src) {
      auto expand = rc::gen::container<std::vector<std::int64_t>>(src.size(), rc::gen::inRange<std::int64_t>(0, 4));
      auto lead = rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(1, 4));
      return rc::gen::apply(
          [t, src](const std::vector<std::uint64_t>& v, std::vector<std::int64_t> ex, std::vector<std::int64_t> pad,
                   bool pure) {
            Dims target;
            std::int64_t n = 1;
            if (pad.size() > 2) pad.resize(2);
            for (auto p : pad) target.push_back(pure ? 1 : p), n *= pure ? 1 : p;
            for (std::size_t i = 0; i < src.size(); ++i) {
              std::int64_t d = src[i];
              if (d == 1 && !pure && ex[i] != 1 && n * std::max<std::int64_t>(ex[i], 1) * 8 <= gen::kMaxElements)
                d = ex[i];
              target.push_back(d);
              n *= std::max<std::int64_t>(d, 1);
            }
            return gen::Case{{gen::tensor_of(t, src, v)}, Params().set("target", target), false};
          },
          gen::values_for(t, k.values, static_cast<std::size_t>(checked_numel(src))), expand, lead,
          rc::gen::arbitrary<bool>());
    });
  }

  // A target of lower rank than x (for a rank-0 x: x of rank 2, target of
  // rank 1); an x dim that is neither the target's nor 1.
  std::optional<gen::Case> violate(const contract::KernelSpec&, const contract::Precondition& rule,
                                   const gen::Case& valid, std::uint64_t index) const override {
    gen::Case c = valid;
    const Tensor& x = valid.inputs.front();
    if (rule.rule == Rule::target_rank) {
      if (x.rank() == 0) {
        c.inputs = {gen::zeros(x.dtype(), {2, 3})};
        c.params.set("target", Dims{3});
      } else {
        c.params.set("target", Dims(x.dims().begin() + 1, x.dims().end()));
      }
      return c;
    }
    if (rule.rule == Rule::target_incompatible) {
      c.params.set("target", gen::incompatible_shape(c, index));
      return c;
    }
    return std::nullopt;
  }

  std::vector<gen::Case> shrink_candidates(const contract::KernelSpec&, const gen::Case& c) const override {
    return drivers::shrink_candidates(c, {.dims = c.params.shape("target"), .inputs = {0}, .shape_params = {"target"}},
                                      false);
  }

  // The main axis: a row's (x [n] to target [2, n]); x of the profile's
  // values. A line gives the target.
  std::optional<Shaped> tail_shape(const contract::KernelSpec&, DType, std::int64_t n) const override {
    return all_given({{n}}, Params().set("target", Dims{2, n}));
  }
  std::string shaped_error(const contract::KernelSpec& k, const Shaped& s) const override {
    if (auto e = missing_params(k, s, {"target"}); !e.empty()) return e;
    return named_error(k, target_error(s.params.shape("target"), s.dims.at(0)));
  }
  gen::Case shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s) const override {
    return profile_along_dim(k, s, t, seed);
  }

  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    const Tensor& x = c.inputs.at(0);
    const Dims& target = c.params.shape("target");
    const bool zero_copy = k.layout == contract::Layout::zero_copy_when_pure_padding &&
                           only_leading_ones_added(x.dims(), target);
    return {target, k.out_dtype(x.dtype()), zero_copy};
  }

  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    const Tensor& x = c.inputs.at(0);
    const oracle::Context ctx = context_of(k, c);
    const Dims& target = c.params.shape("target");
    const std::int64_t n = checked_numel(target);
    for (std::int64_t o = 0; o < n; ++o) {
      const std::int64_t s = source_of(x.dims(), target, o);
      oracle::Scalar in{ctx, x.value_exact_at(s)};
      in.ctx.signaling_nan = is_signaling_nan(x.dtype(), x.bits_at(s));
      f(Element{.out = o, .in = in, .shown = {x.bits_at(s)}, .names = {"x"}, .where = fmt::format("x[{}]", s)});
    }
  }

};

}  // namespace

void register_broadcast_to(Registry& r) { r.push_back(std::make_unique<BroadcastTo>()); }

}  // namespace kc::drivers
