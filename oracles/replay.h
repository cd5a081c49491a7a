// The arithmetic of the native replays of the reference's evaluation: for
// every deterministic kernel, the reference's own steps
// (reference-semantics.md) repeated in the reference's order and precision,
// calling the same platform libm function for a libm step. Each kernel's
// replay, `double f(const In&)`, is defined in its family's oracle file
// beside its exact function and declared by KC_MATH_OF (oracles/oracle.h). The reference profile's semantics check requires a
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

#include "core/dtype.h"
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

}  // namespace replay
}  // namespace kc::oracle
