// The sum oracle's parts (oracles/reduction.cpp): a fold's exact sums and
// its replay in T, and the state of a prefix of its terms kept for the next
// element that extends it.
#pragma once

#include <cmath>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "oracles/exact.h"
#include "oracles/exact_sum.h"
#include "oracles/rounding.h"

namespace kc::oracle {

// Sum of the folded terms, correctly rounded at the working precision
// (an exact sum, rounded once), their absolute sum, and the fold 0 + a_0 + a_1 + ... in T.
// When a partial sum of the fold overflows, the reference's result is that
// of the fold (inf or NaN) although the exact sum may be finite: then the
// element is graded against the fold.
struct SumParts {
  Mp exact, abs_sum, fold;
  bool overflowed = false;
};

// A fold's state after a prefix of its terms (sum()'s): their exact sum
// and absolute sum, the replayed fold in T, and the error model's partial
// sums, kept for the next element whose terms extend that prefix
// (cumsum's outputs along a row come in order, each its predecessor's
// terms and more: folding each from the start made a row of n outputs
// n^2/2 MPFR additions). Extending gives the state folding every term from
// the start gives, bit for bit: each part is the same fold in index order
// (the exact sums are exact in any order), at the same precision.
class FoldPrefix {
 public:
  // Extended to in's terms: from the kept prefix where in's terms begin
  // with it (same dtype and precision), else from no terms.
  void extend_to(const Terms& in) {
    const mpfr_prec_t prec = mpfr_get_default_prec();
    const std::size_t kept = terms_.size();
    const bool extends = t_ == in.ctx.dtype && prec_ == prec && in.terms.size() >= kept &&
                         (kept == 0 || std::memcmp(in.terms.data(), terms_.data(), kept * sizeof(double)) == 0);
    if (!extends) {
      t_ = in.ctx.dtype, prec_ = prec;
      terms_.clear();
      exact_.clear(), abs_sum_.clear();
      fold_ = Mp(0);
      overflowed_ = false;
      s_k_ = 0, sum_sq_ = 0;
    }
    for (std::size_t a = terms_.size(); a < in.terms.size(); ++a) add(in.terms[a]);
  }
  // As sum_parts and fold_error_variance give them for these terms.
  SumParts parts() {
    SumParts s;
    s.exact = Mp(0);
    s.abs_sum = Mp(0);
    exact_.round_into(raw(s.exact), MPFR_RNDN);
    abs_sum_.round_into(raw(s.abs_sum), MPFR_RNDN);
    s.fold = fold_;
    s.overflowed = overflowed_;
    return s;
  }
  std::optional<double> error_variance() const {
    if (terms_.size() < 2) return std::nullopt;
    const double u = unit_roundoff(t_);
    return (u * u / 3) * sum_sq_;
  }
  std::span<const double> terms() const { return terms_; }

 private:
  void add(double v) {
    exact_.add(v);
    abs_sum_.add(std::fabs(v));
    const Mp a(v);
    fold_ = rn(t_, fold_ + a);
    overflowed_ |= (is_inf(fold_) || is_nan(fold_)) && !is_inf(a) && !is_nan(a);
    s_k_ += v;
    if (!terms_.empty()) sum_sq_ += s_k_ * s_k_;
    terms_.push_back(v);
  }
  DType t_ = DType::f32;
  mpfr_prec_t prec_ = 0;
  std::vector<double> terms_;
  ExactSum exact_, abs_sum_;
  Mp fold_;
  bool overflowed_ = false;
  double s_k_ = 0, sum_sq_ = 0;
};

}  // namespace kc::oracle
