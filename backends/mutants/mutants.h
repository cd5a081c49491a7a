// Planted defects. Each mutant is the reference backend with one defect in
// one or more kernels, the kind of mistake a port or an optimised kernel
// actually makes; the self-test requires that a default conformance run of
// each kernel it breaks flags it, in the check named here. Each mutants
// file defines `register_<file stem>` (cmake/Registry.cmake).
#pragma once

#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include "core/backend.h"

namespace kc::mutants {

using Outputs = std::vector<Tensor>;

struct Mutant {
  std::string_view name;
  std::vector<std::string_view> kernels;  // the kernels it breaks
  DTypeSet dtypes;                  // dtypes the defect shows on
  std::string_view expected_check;  // check kind that must flag it: accuracy, special, property, bias, bad-input,
                                    // semantics, statistics, layout
  std::string_view defect;          // what is broken, in words
  // Replaces the reference's evaluation of `kernel`, one of `kernels`.
  Outputs (*run)(std::string_view kernel, std::span<const Tensor> inputs, const Params& params);
  // The contract profile whose check flags it (engine/conformance.h). A
  // `correct` mutant is no defect at all but another correct evaluation
  // (pairwise sums, a correctly rounded gelu, relu(NaN) = NaN): it must pass
  // the conformance profile and fail only the reference one.
  std::string_view profile = "conformance";
  bool correct = false;
  // The shape profile that reaches the defect (`--shapes`): "" where the
  // random cases do; "tails" for a defect that exists only past a size
  // (the kernel is right at tiny shapes: selftest grades it at these).
  std::string_view shapes = "";
  bool breaks(std::string_view kernel) const;
};

const std::vector<Mutant>& all();
const Mutant* find(std::string_view name);
void register_all(std::vector<Mutant>& table);

// Run the reference, then rewrite each output element of dtype `t` in
// `dtypes` with f(x value, y bits) -> y bits.
template <class F>
Outputs rewrite(std::string_view kernel, std::span<const Tensor> in, const Params& p, DTypeSet dtypes, F f);

// Each element of a one-input kernel replaced by f(x) (long double),
// rounded once into the dtype: an evaluation more accurate than the
// reference's, for the mutants that must fail only the reference profile.
template <class F>
Outputs rounded_once(std::string_view kernel, std::span<const Tensor> in, const Params& p, F f) {
  return rewrite(kernel, in, p, kFloatSet, [t = in[0].dtype(), f](double x, std::uint64_t y) {
    if (std::isnan(x)) return y;
    return double_to_bits(t, round_to_format(static_cast<double>(f(static_cast<long double>(x))), t));
  });
}

}  // namespace kc::mutants

#include "backends/reference/executor.h"

namespace kc::mutants {

template <class F>
Outputs rewrite(std::string_view kernel, std::span<const Tensor> in, const Params& p, DTypeSet dtypes, F f) {
  Outputs out = ref::execute(kernel, in, p);
  if (!dtypes.contains(in[0].dtype())) return out;
  Tensor& y = out[0];
  for (std::int64_t i = 0; i < y.numel(); ++i) y.set_bits(i, f(in[0].value_at(i), y.bits_at(i)));
  return out;
}

}  // namespace kc::mutants
