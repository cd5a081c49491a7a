// Generators of calls that break exactly one precondition of a contract, for
// the bad-input check: the backend must answer each with a KernelError that
// names the kernel, the operand and that rule. These are the rules every
// shape shares (arity, a negative dim, a short or long buffer, a rejected or
// mismatched dtype, a missing, mistyped or out-of-domain parameter); rules
// about one computation shape (a dim out of range, an incompatible target)
// are broken by that shape's driver (drivers/).
#pragma once

#include <cstdint>
#include <optional>

#include "contracts/contract.h"
#include "generators/case.h"

namespace kc::gen {

// The `index`-th invalid variant of `valid` for `rule` (variants differ in
// how the rule is broken: too few or too many inputs, a short or a long
// buffer, each rejected dtype...). nullopt if the rule is not a shared one.
std::optional<Case> violate_shared(const contract::KernelSpec& k, const contract::Precondition& rule,
                                   const Case& valid, std::uint64_t index);

// A shape incompatible with x's in the broadcast sense: x's dims with one
// axis (the index-th not of size 1) raised by 2, so that it is neither
// equal nor 1 whichever of the two is broadcast into the other. If x has
// only size-1 dims, x (input 0 of `c`) becomes [2] and the shape is [4].
Dims incompatible_shape(Case& c, std::uint64_t index);
// x's dims with one more leading dim (2 + index): of higher rank than x.
Dims higher_rank_shape(const Case& c, std::uint64_t index);

// A zero-filled tensor, and one with `n_bytes` of `t`'s bytes under another dtype/shape.
Tensor zeros(DType t, Dims d);
Tensor with_bytes(const Tensor& t, DType dtype, Dims dims, std::size_t n_bytes);

}  // namespace kc::gen
