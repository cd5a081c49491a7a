// Exact functions of the casts: the exact value of every cast is its
// source value (rounding it into the destination is the grader's job);
// where the reference rounds another way, the oracle replays that rounding
// for the semantics check. `identity` also serves broadcast_to.
#pragma once

namespace kc::oracle {
struct Scalar;
struct Exact;
void identity(const Scalar&, Exact&);
void cast_saturating_u32(const Scalar&, Exact&);
void cast_f64_to_bf16(const Scalar&, Exact&);  // exact value, plus the replay of half's truncating rounding
void cast_f64_to_f16(const Scalar&, Exact&);   // exact value, plus the replay of F16C's double rounding
}  // namespace kc::oracle
