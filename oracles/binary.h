// Exact functions of the binary families (same-shape and broadcasting):
// one pair (a, b) of input elements per output element.
#pragma once

namespace kc::oracle {
struct Pair;
struct Exact;
void add(const Pair&, Exact&);
void sub(const Pair&, Exact&);
void mul(const Pair&, Exact&);
void div(const Pair&, Exact&);
void maximum(const Pair&, Exact&);
void minimum(const Pair&, Exact&);
void rem(const Pair&, Exact&);
void pow(const Pair&, Exact&);
}  // namespace kc::oracle
