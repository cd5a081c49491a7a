// The attention oracles' shared steps (oracles/attention.cpp,
// oracles/attention_backward.cpp): a query row's scores replayed in T and
// as Stage values (oracles/row_support.h), e^(x - m) in T, and a term of an
// output's fold that the kernel skips where its weight is 0. Internal to
// oracles/.
#pragma once

#include <vector>

#include "oracles/attention_layout.h"
#include "oracles/mp.h"
#include "oracles/replay.h"
#include "oracles/row_support.h"

namespace kc::oracle::attention {

struct Scores {
  std::vector<double> t;          // the replay's scores in T (-inf where masked)
  std::vector<rows::Stage> st;    // their stages
  std::vector<double> pre_t;      // after the scale, before softcap and ALiBi (the backward's softcap derivative)
  std::vector<rows::Stage> pre;   // their stages
  std::vector<bool> admissible;
  bool any = false;               // some key is admissible
  bool special = false;           // a non-finite input or score, or no admissible key
};
Scores scores(const Layout& l, const Mask& mk, DType t, rows::Stages& st);

// The exact softmax weights of row l over its admissible keys, in MPFR at
// the scope's precision: w_j = e^(z_j - max z) and their sum, z_j the exact
// score (the dot exact, times S; tanh(z / c) c with a softcap; plus the
// ALiBi term), and cap_j = 1 - tanh^2(z_pre,j / c), the softcap's
// derivative (1 without one). The shift is the exact maximum, not the
// replay's: that one may lie ulps of a huge score away, past MPFR's exp
// range. Entries of masked keys are left as they are.
struct ExactWeights {
  std::vector<Mp> w, cap;
  Mp sum;
};
void exact_weights(const Layout& l, const Mask& mk, const Scores& s, ExactWeights& out);

// e^(x - m) in T (m an exact constant of T).
double exp_t(const replay::InT& a, double x, double m);

// The replays' own steps (attention.cpp, attention_backward.cpp), the
// reference's in T: e^x, and a query row's scores (`pre`, where given,
// gets them after the scale, before softcap and ALiBi), -inf where masked.
double exp_t(const replay::InT& a, double x);
std::vector<double> scores_t(const replay::InT& a, const Layout& l, const Mask& mk, std::vector<double>* pre = nullptr);
// A term p v of an output's fold: skipped where the replay's p is 0 (the
// computed value is then 0, within |p v| + ep |v| of the exact one).
rows::Stage term(rows::Stages& st, double p_t, const rows::Stage& p, double v);

}  // namespace kc::oracle::attention
