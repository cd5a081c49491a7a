// The Rust `libm` crate's f64 erf and the exp it calls: the function the
// reference's erf and gelu_erf call for their libm step (reference-
// semantics.md §1), the way glibc's expf is the one its exp calls. The
// crate ports musl's erf.c (FreeBSD msun s_erf.c, restructured) and
// msun's e_exp.c; glibc's erf differs from it in the last bit on about one
// f64 input in a thousand, so the port and the reference profile's replay
// both call this one. Written here from the algorithm's published
// description and coefficients; tests/data/rust-libm-erf-exp.vectors
// (generated from the crate itself, scripts/rust_libm_vectors.sh) checks it
// bit for bit.
#pragma once

namespace kc::rust_libm {

// e^x: x = k ln2 + r with |r| <= ln2 / 2 (ln2 split in a high part exact
// in k ln2 and a low part), a degree-5 Remez polynomial R(r^2) for
// r (e^r + 1) / (e^r - 1), then 2^k by scalbn. Below 2^-28: 1 + x.
double exp(double x);

// erf(x) on five intervals of |x|: below 2^-28, x + x efx; below 0.84375,
// x + x P(x^2) / Q(x^2); below 1.25, 1 - (1 - erx - P(s) / Q(s)) with
// s = |x| - 1; below 6, 1 - e^(-z^2 - 0.5625) e^((z - x)(z + x) + R / S) / x
// with z = x with its low 32 bits cleared (two rational fits, split at
// 1/0.35); beyond, 1 - 2^-1022. The sign is restored last.
double erf(double x);

}  // namespace kc::rust_libm
