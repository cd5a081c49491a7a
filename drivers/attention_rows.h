// What the attention drivers share (drivers/attention.cpp,
// drivers/paged_attention.cpp): one output element per element of q, its
// inputs packed as oracles/attention_layout.h says, given to the entry's
// Row oracle with its column as the position.
#pragma once

#include "drivers/driver.h"

namespace kc::drivers {

// A random case of the attention driver's parameter space (GQA groups of
// 1-3, Sq != Sk, windows, softcaps, ALiBi; drivers/attention.cpp): q, k, v
// (with_grad: then dO, q's shape, as the backward's input 3) and the
// optional slopes.
rc::Gen<gen::Case> attention_case(const contract::KernelSpec& k, DType t, bool with_grad);
// The attention driver's calls breaking one of q, k, v's or the slopes'
// rules (the slopes input 3); nullopt for the generic rules.
std::optional<gen::Case> attention_violate(const contract::KernelSpec& k, const contract::Precondition& rule,
                                           const gen::Case& valid, std::uint64_t index);

// Shaped cases of attention and its backward (drivers/attention.cpp). The
// main axis is the attended one, Sk: q [1, 1, 2, 8], k and v [1, 1, n, 8]
// (dO q's shape), no slopes. A line's k and v are of one shape, q's batch
// and head dim theirs, its heads a multiple of theirs (GQA), dO q's, the
// slopes one per query head.
Shaped attention_tail(const contract::KernelSpec& k, std::int64_t n);
std::string attention_shape_error(const contract::KernelSpec& k, const Shaped& s);
// Values uniform on [-1, 1]; the parameters not given those of plain
// attention (scale 1/sqrt(D), no mask, no softcap), the slopes ALiBi's.
gen::Case attention_shaped_case(const contract::KernelSpec& k, DType t, std::uint64_t seed, const Shaped& s);

// The statistics values (uniform on [-1, 1], drivers/folds.h) of a seed,
// a tensor per salt.
class StatisticsValues {
 public:
  StatisticsValues(DType t, std::uint64_t seed);
  Tensor tensor(std::uint64_t salt, const Dims& d) const;

 private:
  DType t_;
  std::uint64_t seed_;
};

// The attention drivers' statistics case: q [1, 4, 32, 8], k and v [1, 2,
// 48, 8] (GQA groups of 2) of the statistics values, scale 1/sqrt(8), no
// mask, cap or slopes: 128 query rows of 48 keys (with_grad: dO, q's
// shape, as input 3). One output per query row is a sample (element_at):
// a row's outputs share its softmax's errors, the rows do not.
gen::Case attention_statistics_case(DType t, std::uint64_t seed, bool with_grad);
// ALiBi's slopes 2^(-8 (h + 1) / Hq), one per query head, times sign.
Tensor alibi_slopes(DType t, std::int64_t hq, double sign = 1);
// Its ALiBi slopes, one per query head of four: none, and both signs.
Tensor statistics_alibi(DType t);

class AttentionRows : public Driver {
 public:
  Expectation expected_output(const contract::KernelSpec& k, const gen::Case& c) const override {
    return like_first_input(k, c);
  }
  void for_each_element(const contract::KernelSpec& k, const gen::Case& c,
                        const std::function<void(const Element&)>& f) const override {
    each_element_at(k, c, c.inputs.at(0).numel(), f);
  }
};

}  // namespace kc::drivers
