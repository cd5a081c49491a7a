// Exact functions of the casts: the exact value of every cast is its
// source value (rounding it into the destination is the grader's job; the
// reference's own roundings, not all correct, are replayed by
// oracles/replay_cast.cpp). `identity` also serves broadcast_to.
#pragma once

namespace kc::oracle {
struct Scalar;
struct Exact;
void identity(const Scalar&, Exact&);
void cast_saturating_u32(const Scalar&, Exact&);
}  // namespace kc::oracle
