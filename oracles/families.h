// Exact functions of the binary, reduction and cast families (see
// oracles/unary.h for the conventions). Light declarations for contracts.
#pragma once

namespace kc::oracle {
struct OracleIO;
// binary (args a, b)
void add(OracleIO&);
void sub(OracleIO&);
void mul(OracleIO&);
void div(OracleIO&);
void maximum(OracleIO&);
void minimum(OracleIO&);
void rem(OracleIO&);
void pow(OracleIO&);
// reductions (args: the folded elements in the reference's order)
void sum(OracleIO&);
void mean(OracleIO&);
void max_fold(OracleIO&);
void min_fold(OracleIO&);
void argmax(OracleIO&);
void argmin(OracleIO&);
// reduce_max_to_backward (args: x_i, up_c, then the cell's elements)
void max_backward(OracleIO&);
// identity of the value: broadcast_to, and every cast to its exact source value
void identity(OracleIO&);
void cast_saturating_u32(OracleIO&);
void cast_f64_to_bf16(OracleIO&);  // exact value, plus the replay of half's truncating rounding
void cast_f64_to_f16(OracleIO&);   // exact value, plus the replay of F16C's double rounding
}  // namespace kc::oracle
