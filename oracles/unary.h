// Exact functions of the unary family. Each evaluates the mathematical
// function the kernel approximates, with the reference's own constants where
// those are part of its definition (gelu's c and k in T, parameters rounded
// into T), and the reference's semantics at special inputs (relu/sign/step
// map NaN to 0). Declared light so contract files can name them.
#pragma once

namespace kc::oracle {
struct Scalar;
struct Exact;
void neg(const Scalar&, Exact&);
void relu(const Scalar&, Exact&);
void sqr(const Scalar&, Exact&);
void sqrt(const Scalar&, Exact&);
void exp(const Scalar&, Exact&);
void sign(const Scalar&, Exact&);
void log(const Scalar&, Exact&);
void sin(const Scalar&, Exact&);
void cos(const Scalar&, Exact&);
void abs(const Scalar&, Exact&);
void recip(const Scalar&, Exact&);
void tanh(const Scalar&, Exact&);
void floor(const Scalar&, Exact&);
void ceil(const Scalar&, Exact&);
void erf(const Scalar&, Exact&);
void gelu_erf(const Scalar&, Exact&);
void round(const Scalar&, Exact&);
void sigmoid(const Scalar&, Exact&);
void silu(const Scalar&, Exact&);
void gelu_tanh(const Scalar&, Exact&);
void step(const Scalar&, Exact&);
void rsqrt(const Scalar&, Exact&);
void powi(const Scalar&, Exact&);    // params: n
void add_scalar(const Scalar&, Exact&);  // params: c
void mul_scalar(const Scalar&, Exact&);  // params: c
void clamp(const Scalar&, Exact&);       // params: min, max
}  // namespace kc::oracle
