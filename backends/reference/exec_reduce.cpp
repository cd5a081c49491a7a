// Exec arms of the reductions, reduce-to-shape and broadcast_to. The
// reference panics on a bad dim or target (reference-semantics.md §6, §7);
// the port raises typed errors instead, with the rule in the contract.
#include <fmt/format.h>

#include "backends/reference/executor.h"
#include "core/error.h"
#include "kernels/reduce.h"
#include "kernels/shape_math.h"

namespace kc::ref {

namespace {

const DTypeSet kFloats{DType::f32, DType::f64, DType::bf16, DType::f16};

std::size_t checked_dim(std::string_view op, const Tensor& x, const Params& p) {
  const std::int64_t d = int_param(p, "dim");
  if (d >= x.rank())
    throw KernelError(std::string(op), "dim", "dim.out_of_range",
                      fmt::format("dim {} out of bounds for shape {}", d, dims_to_string(x.dims())));
  return static_cast<std::size_t>(d);
}

void check_target_into(std::string_view op, std::string_view operand, const Dims& source, const Dims& target) {
  if (target.size() > source.size())
    throw KernelError(std::string(op), std::string(operand), "target.rank",
                      fmt::format("target rank {} exceeds source rank {}", target.size(), source.size()));
  if (auto why = kern::target_incompatible(source, target))
    throw KernelError(std::string(op), std::string(operand), "target.incompatible", *why);
}

ExecArm arm(std::string_view op, int arity, std::vector<ParamDecl> params,
            std::function<std::vector<Tensor>(std::span<const Tensor>, const Params&)> f,
            std::vector<std::string_view> operands = {}) {
  return ExecArm{.op = op, .dtypes = kFloats, .arity = arity, .params = std::move(params), .eval = std::move(f),
                 .operands = std::move(operands)};
}

}  // namespace

void register_reduce_arms(std::vector<ExecArm>& table) {
  using kern::Fold;
  const ParamDecl dim{"dim", ParamKind::integer, 0, INT32_MAX};
  const ParamDecl target{"target", ParamKind::shape};
  const std::pair<const char*, Fold> all[] = {{"sum_all", Fold::sum}, {"max_all", Fold::max},
                                              {"min_all", Fold::min}, {"mean_all", Fold::mean}};
  for (const auto& [name, f] : all)
    table.push_back(arm(name, 1, {}, [f = f](std::span<const Tensor> in, const Params&) {
      return std::vector<Tensor>{kern::reduce_all(f, in[0])};
    }));
  const std::pair<const char*, Fold> dims[] = {{"sum_dim", Fold::sum}, {"max_dim", Fold::max},
                                               {"min_dim", Fold::min}, {"mean_dim", Fold::mean}};
  for (const auto& [name, f] : dims)
    table.push_back(arm(name, 1, {dim}, [f = f, name = name](std::span<const Tensor> in, const Params& p) {
      return std::vector<Tensor>{kern::reduce_dim(f, in[0], checked_dim(name, in[0], p))};
    }));
  for (const bool is_max : {true, false}) {
    const char* name = is_max ? "argmax_dim" : "argmin_dim";
    table.push_back(arm(name, 1, {dim}, [is_max, name](std::span<const Tensor> in, const Params& p) {
      const std::size_t d = checked_dim(name, in[0], p);
      Dims out = in[0].dims();
      out.erase(out.begin() + static_cast<std::ptrdiff_t>(d));
      if (in[0].dims()[d] == 0 && checked_numel(out) > 0)
        throw KernelError(name, "x", "dim.empty", fmt::format("the reduced axis {} has size 0 (no index to return)", d));
      return std::vector<Tensor>{kern::arg_dim(is_max, in[0], d)};
    }));
  }
  for (const auto& [name, f] : {std::pair{"reduce_sum_to", Fold::sum}, std::pair{"reduce_max_to", Fold::max}})
    table.push_back(arm(name, 1, {target}, [f = f, name = name](std::span<const Tensor> in, const Params& p) {
      const Dims& t = shape_param(p, "target");
      check_target_into(name, "target", in[0].dims(), t);
      return std::vector<Tensor>{kern::reduce_to(f, in[0], t)};
    }));
  table.push_back(arm("reduce_max_to_backward", 2, {}, [](std::span<const Tensor> in, const Params&) {
    check_target_into("reduce_max_to_backward", "up", in[0].dims(), in[1].dims());
    return std::vector<Tensor>{kern::reduce_max_to_backward(in[0], in[1])};
  }, {"x", "up"}));
  table.push_back(arm("broadcast_to", 1, {target}, [](std::span<const Tensor> in, const Params& p) {
    const Dims& t = shape_param(p, "target");
    const Dims& s = in[0].dims();
    if (s.size() > t.size())
      throw KernelError("broadcast_to", "target", "target.rank",
                        fmt::format("source rank {} exceeds target rank {}", s.size(), t.size()));
    for (std::size_t i = 0; i < s.size(); ++i) {
      const std::size_t j = t.size() - s.size() + i;
      if (s[i] != t[j] && s[i] != 1)
        throw KernelError("broadcast_to", "target", "target.incompatible",
                          fmt::format("source dim {} ({}) cannot broadcast to target dim {} ({})", i, s[i], j, t[j]));
    }
    return std::vector<Tensor>{kern::broadcast_to(in[0], t)};
  }));
}

}  // namespace kc::ref
