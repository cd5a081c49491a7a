#include "engine/search.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "engine/case_run.h"
#include "engine/failure_text.h"
#include "engine/figure_grid.h"
#include "engine/grading.h"
#include "generators/case.h"
#include "generators/values.h"

namespace kc::engine {

std::string search_unsupported(const contract::KernelSpec& k, DType t) {
  if (!drivers::of(k).one_to_one() || k.inputs.size() != 1)
    return fmt::format("{} is not a one-input elementwise kernel: the search mutates one input per output", k.name);
  if (!k.accuracy_for(t)) return fmt::format("{} does not take {}", k.name, dtype_name(t));
  if (!is_float(t)) return fmt::format("{} is not a float dtype", dtype_name(t));
  return "";
}

namespace {

constexpr std::size_t kPool = 16;
constexpr std::int64_t kBatch = 256;

// An element's rank: failures above passes, and within each by error, so
// that the climb goes on past the first failure to the largest failing
// error it can reach (a failure ranked above every error, whatever its
// size, stopped at the first one: erf f32 at 0.585 ulp where a run had
// found 1.692), and a failure whose error is small (a zero's sign) is
// still the worst over any pass. A failure without a finite error (a wrong
// NaN, infinity or special value) outranks every finite one. The error is
// taken on the tallies' grid (engine/figure_grid.h): a fast-path grade's
// figure is approximate, its grid point MPFR's, so the pool and the climb
// are the same on every CPU; the worst found is graded again by MPFR for
// its figures (exact_grade).
struct Candidate {
  bool failed = false;
  double score = -INFINITY;  // the fractional error; +inf for a failure without one
  std::uint64_t bits = 0;
  bool beats(const Candidate& o) const { return failed != o.failed ? failed : score > o.score; }
};

Candidate score_of(const Grade& g, std::uint64_t bits) {
  const double s = std::isfinite(g.frac) ? on_grid(g.frac) : g.pass ? -1 : INFINITY;
  return {!g.pass, s, bits};
}

// One search's state and its phases (search.h): the pool of the
// highest-scoring inputs, the best so far, the params of the inputs
// graded (the last random case's), the result.
class WorstSearch {
 public:
  WorstSearch(const Context& c, std::int64_t evaluations) : c_(c), evaluations_(evaluations) {}
  void random_phase();
  void climb(std::uint64_t seed);
  void finish();
  SearchResult res;

 private:
  void consider(std::uint64_t bits, const Grade& g);
  void grade_batch(const std::vector<std::uint64_t>& bits, const Params& params);
  template <class With>
  void exact_grade(std::uint64_t bits, With&& with);
  static double exact_score(const Grade& g) { return std::isfinite(g.frac) ? g.frac : g.pass ? -1 : INFINITY; }
  bool found() const { return best_.score > -INFINITY || best_.failed; }

  const Context& c_;
  std::int64_t evaluations_;
  std::vector<Candidate> pool_;
  Candidate best_;
  Params params_;
};

// An element graded: counted, the best kept, and the pool entered where it
// outscores the pool's last (each input once).
void WorstSearch::consider(std::uint64_t bits, const Grade& g) {
  const Candidate s = score_of(g, bits);
  ++res.evaluations;
  res.failed |= !g.pass;
  if (s.beats(best_)) best_ = s;
  if (std::any_of(pool_.begin(), pool_.end(), [&](const Candidate& p) { return p.bits == bits; })) return;
  if (pool_.size() < kPool) pool_.push_back(s);
  else if (s.beats(pool_.back())) pool_.back() = s;
  else return;
  std::stable_sort(pool_.begin(), pool_.end(), [](const Candidate& a, const Candidate& b) { return a.beats(b); });
}

// Grades the inputs `bits` (one kernel call): each element's grade.
void WorstSearch::grade_batch(const std::vector<std::uint64_t>& bits, const Params& params) {
  const contract::KernelSpec& k = c_.k;
  Tensor x(c_.t, {static_cast<std::int64_t>(bits.size())});
  for (std::size_t i = 0; i < bits.size(); ++i) x.set_bits(static_cast<std::int64_t>(i), bits[i]);
  const gen::Case cs{{x}, params};
  const auto out = c_.backend.run(k.name, cs.inputs, cs.params);
  c_.driver.for_each_element(k, cs, [&](const drivers::Element& e) {
    const Tensor& y = out.at(0);
    consider(e.shown[0], grade_element(c_, e, y.value_at(e.out), y.bits_at(e.out), cs.params));
  });
}

// The element of input `bits` graded alone by MPFR: its exact figures.
template <class With>
void WorstSearch::exact_grade(std::uint64_t bits, With&& with) {
  const contract::KernelSpec& k = c_.k;
  Tensor x(c_.t, {1});
  x.set_bits(0, bits);
  const gen::Case one{{x}, params_};
  const auto out = c_.backend.run(k.name, one.inputs, one.params);
  c_.driver.for_each_element(k, one, [&](const drivers::Element& e) {
    with(one, e, out[0], grade_element(c_, e, out[0].value_at(0), out[0].bits_at(0), params_, GradeMode::exact));
  });
}

// Phase 1: the inputs of the run's own random cases, as a run draws them
// (half the budget).
void WorstSearch::random_phase() {
  const contract::KernelSpec& k = c_.k;
  const DType t = c_.t;
  for (std::int64_t i = 0; res.evaluations < evaluations_ / 2; ++i) {
    const std::uint64_t s = gen::derive_seed(c_.opts.seed, k.name, dtype_name(t), "case", static_cast<std::uint64_t>(i));
    const gen::Case cs = c_.driver.random_case(k, t)(rc::Random(s), gen::kMaxSize).value();
    params_ = cs.params;
    std::vector<std::uint64_t> bits;
    const Tensor& x = cs.inputs.at(0);
    for (std::int64_t j = 0; j < x.numel() && res.evaluations + static_cast<std::int64_t>(bits.size()) < evaluations_ / 2; ++j)
      bits.push_back(x.bits_at(j));
    if (!bits.empty()) grade_batch(bits, cs.params);
  }
  res.random_evaluations = res.evaluations;
  res.random_worst_frac = best_.score;
  if (found())
    exact_grade(best_.bits, [&](const gen::Case&, const drivers::Element&, const Tensor&, const Grade& g) {
      res.random_worst_frac = exact_score(g);
    });
  res.random_failed = res.failed;
}

// Phase 2: climb from the pool, at every scale, until the budget is spent.
void WorstSearch::climb(std::uint64_t seed) {
  const DType t = c_.t;
  std::mt19937_64 rng(seed);
  const int p = float_format(t).precision;
  const std::int64_t lo = ordered_bits(t, double_to_bits(t, -max_finite(t))), hi = -lo;
  while (res.evaluations < evaluations_ && !pool_.empty()) {
    std::vector<std::uint64_t> bits;
    while (static_cast<std::int64_t>(bits.size()) < std::min(kBatch, evaluations_ - res.evaluations)) {
      const Candidate& from = pool_[rng() % pool_.size()];
      const int j = static_cast<int>(rng() % static_cast<std::uint64_t>(p + 5));
      const std::int64_t step = (std::int64_t{1} << j) + static_cast<std::int64_t>(rng() % (std::uint64_t{1} << j));
      std::int64_t o = ordered_bits(t, from.bits) + ((rng() & 1) ? step : -step);
      o = std::clamp(o, lo, hi);
      // Back from the ordered image to a bit pattern (its inverse).
      const std::uint64_t sign = std::uint64_t{1} << (float_format(t).total_bits - 1);
      bits.push_back(o >= 0 ? static_cast<std::uint64_t>(o) : sign | static_cast<std::uint64_t>(-o));
    }
    grade_batch(bits, params_);
  }
}

// The worst element, in full.
void WorstSearch::finish() {
  res.worst_frac = best_.score;
  exact_grade(best_.bits, [&](const gen::Case& one, const drivers::Element& e, const Tensor& y, const Grade& g) {
    res.worst_frac = exact_score(g);
    res.worst_distance = g.distance;
    res.worst = element_report(c_, g.pass ? "accuracy" : (g.special ? "special:" + g.rule : "accuracy"), -1, {}, one, e,
                               y.value_at(0), y.bits_at(0), g, exact_text(c_, e, g), true);
  });
}

}  // namespace

SearchResult search_worst(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                          std::int64_t evaluations, std::uint64_t seed) {
  const Context c{k, t, backend, drivers::of(k), opts};
  WorstSearch search(c, evaluations);
  search.random_phase();
  search.climb(seed);
  search.finish();
  return search.res;
}

}  // namespace kc::engine
