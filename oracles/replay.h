// Native replays of the reference's evaluation: for every deterministic
// kernel, the reference's own steps (reference-semantics.md) repeated in the
// reference's order and precision, calling the same platform libm function
// for a libm step. The reference profile's semantics check requires a
// kernel's output bits to equal the replay's, element by element.
//
// Written here, on the spec side of the wall, from the semantics document,
// independently of kernels/: a shared bug cannot grade itself. The only
// shared code is the numeric library the reference also calls (the system
// libm, and core/rust_libm.h for erf).
//
// Values travel as doubles, which hold every dtype's values exactly and a
// NaN's sign, payload and quiet bit in their top bits (core/dtype.h
// bits_to_double_exact: a signalling NaN stays signalling until an
// operation quiets it); the result is encoded into the output dtype's bits
// by double_to_bits_exact.
#pragma once

#include <cmath>
#include <span>
#include <vector>

#include "core/dtype.h"
#include "core/params.h"
#include "oracles/input.h"

namespace kc::oracle {

namespace replay {

// Arithmetic in T as the reference does it (§0.1, §0.2): one IEEE operation
// in T; bf16/f16 widen to f32, do one f32 operation and round back to
// nearest even. Every helper takes and returns values of T (as doubles).
struct InT {
  DType t;
  // One binary operation, each its IEEE op in T.
  double add(double a, double b) const;
  double sub(double a, double b) const;
  double mul(double a, double b) const;
  double div(double a, double b) const;
  // A Float method: f64 calls the double function, f32 the float one, the
  // halves the float one on the widened value, then RNE (§0.2).
  double call(float (*f32)(float), double (*f64)(double), double x) const;
  double call2(float (*f32)(float, float), double (*f64)(double, double), double a, double b) const;
  double sqrt(double x) const;
  double floor(double x) const;
  double ceil(double x) const;
  // T::from(f64) (num-traits NumCast, §0.3): identity for f64, one RNE for
  // f32, f64 -> f32 -> T for the halves.
  double from_f64(double c) const;
};

// RNE of an f32 (or any exact) value into T; a NaN keeps its sign and top
// payload bits and becomes quiet (F16C, half's f32 -> bf16).
double narrow(DType t, double v);

// The replays of the other families, one per kernel (replay_reduction.cpp,
// replay_cast.cpp, replay_linalg.cpp, replay_softmax.cpp, replay_norm.cpp,
// replay_attention.cpp). The elementwise families' are defined beside
// their exact functions (oracles/unary.cpp, activations.cpp, binary.cpp)
// and declared by KC_MATH_OF (oracles/oracle.h).
double sum(const Terms&);       // the fold 0 + a_0 + a_1 + ... in T
double sum_wide(const Terms&);  // pad_backward: +0 + a_0 + a_1 + ... in f64, then T::from(f64) (§14)
double accumulate(const Terms&);  // a_0 (the base, copied), then + a_1 + a_2 + ... in T (index_add, scatter_add)
double mean(const Terms&);      // the fold / T(n)
double max_fold(const Terms&);  // start -inf, replace on strict >
double min_fold(const Terms&);
double argmax(const Terms&);    // first index of the maximum; a NaN at 0 wins
double argmin(const Terms&);
double max_backward(const CellElement&);  // the element, its upstream value, its cell
double identity(const Scalar&);      // the source element (broadcast_to, exact widenings)
double cast(const Scalar&);          // every cast: in.t -> in.out (§17)
double dot(const Dot&);           // a_0 b_0 + a_1 b_1 + ...: +0 + a_0 b_0 + ... in T, no FMA (§8)
double rope(const Rotation&);          // x_a c - x_b s or x_a c + x_b s in T (§11)
// Rows of the last axis (§10): Row::a the row, Row::b g's row, Row::i the element's position.
double softmax(const Row&);               // e_i / s, s = +0 + exp(x_0 - m) + ...
double log_softmax(const Row&);           // (x_i - m) - ln s
double softmax_backward(const Row&);      // y_i (g_i - (+0 + y_0 g_0 + ...))
double log_softmax_backward(const Row&);  // g_i - exp(y_i) (+0 + g_0 + ...)
double layer_norm(const Row&);           // params: eps; (x_i - mu) r, r = 1 / sqrt(v + T(eps))
double layer_norm_backward(const Row&);  // params: eps; r ((g_i - mg) - yh_i mgy)
double rms_norm(const Row&);             // params: eps; x_i / sqrt(mean x^2 + T(eps)), as 1/sqrt then a product
double rms_norm_backward(const Row&);    // params: eps; r (g_i - x_i c), c = Sgx / (T(n) D)
// Attention (§12): Row::a and the params as oracles/attention_layout.h; Row::i the column d.
double attention_naive(const Row&);
double attention_flash(const Row&);
double attention_paged(const Row&);  // params softmax_scale, softcap; the context gathered, qi = a
// The naive params equivalent to a paged case's (causal at a, no window).
Params paged_as_naive(const Params& p);
// attention_flash_backward: Row::a a cell (oracles/attention_layout.h Cell),
// Row::i the element's place among the cell's outputs; the whole cell's
// outputs (dQ, dK, dV) at once.
double attention_flash_backward(const Row&);
std::vector<double> flash_backward_cell(DType t, const Params& params, std::span<const double> args);

}  // namespace replay
}  // namespace kc::oracle
