// Exact functions of the unary family. Each evaluates the mathematical
// function the kernel approximates, with the reference's own constants where
// those are part of its definition (gelu's c and k in T, parameters rounded
// into T), and the reference's semantics at special inputs (relu/sign/step
// map NaN to 0). Declared light so contract files can name them.
#pragma once

namespace kc::oracle {
struct OracleIO;
void neg(OracleIO&);
void relu(OracleIO&);
void sqr(OracleIO&);
void sqrt(OracleIO&);
void exp(OracleIO&);
void sign(OracleIO&);
void log(OracleIO&);
void sin(OracleIO&);
void cos(OracleIO&);
void abs(OracleIO&);
void recip(OracleIO&);
void tanh(OracleIO&);
void floor(OracleIO&);
void ceil(OracleIO&);
void erf(OracleIO&);
void gelu_erf(OracleIO&);
void round(OracleIO&);
void sigmoid(OracleIO&);
void silu(OracleIO&);
void gelu_tanh(OracleIO&);
void step(OracleIO&);
void rsqrt(OracleIO&);
void powi(OracleIO&);
void add_scalar(OracleIO&);
void mul_scalar(OracleIO&);
void clamp(OracleIO&);
}  // namespace kc::oracle
