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
  if (k.driver != "elementwise" || k.inputs.size() != 1)
    return fmt::format("{} is not a one-input elementwise kernel: the search mutates one input per output", k.name);
  if (!k.accuracy_for(t)) return fmt::format("{} does not take {}", k.name, dtype_name(t));
  if (!is_float(t)) return fmt::format("{} is not a float dtype", dtype_name(t));
  return "";
}

namespace {

constexpr std::size_t kPool = 16;
constexpr std::int64_t kBatch = 256;

struct Candidate {
  double score;  // the fractional error; +inf when the element failed
  std::uint64_t bits;
};

// The element's score: a failure beats every passing error. Its error on
// the tallies' grid (engine/figure_grid.h): a fast-path grade's figure is
// approximate, its grid point MPFR's, so the pool and the climb are the
// same on every CPU; the worst found is graded again by MPFR for its
// figures (exact_grade).
double score_of(const Grade& g) {
  if (!g.pass) return INFINITY;
  return std::isfinite(g.frac) ? on_grid(g.frac) : -1;
}

}  // namespace

SearchResult search_worst(const contract::KernelSpec& k, DType t, const Backend& backend, const RunOptions& opts,
                          std::int64_t evaluations, std::uint64_t seed) {
  const Context c{k, t, backend, drivers::of(k), opts};
  SearchResult res;
  std::vector<Candidate> pool;
  double best = -INFINITY;
  std::uint64_t best_bits = 0;
  auto consider = [&](std::uint64_t bits, const Grade& g) {
    const double s = score_of(g);
    ++res.evaluations;
    res.failed |= !g.pass;
    if (s > best) best = s, best_bits = bits;
    if (std::any_of(pool.begin(), pool.end(), [&](const Candidate& p) { return p.bits == bits; })) return;
    if (pool.size() < kPool) pool.push_back({s, bits});
    else if (s > pool.back().score) pool.back() = {s, bits};
    else return;
    std::stable_sort(pool.begin(), pool.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
  };
  // Grades the inputs `bits` (one kernel call): each element's grade.
  auto grade_batch = [&](const std::vector<std::uint64_t>& bits, const Params& params) {
    Tensor x(t, {static_cast<std::int64_t>(bits.size())});
    for (std::size_t i = 0; i < bits.size(); ++i) x.set_bits(static_cast<std::int64_t>(i), bits[i]);
    const gen::Case cs{{x}, params};
    const auto out = backend.run(k.name, cs.inputs, cs.params);
    c.driver.for_each_element(k, cs, [&](const drivers::Element& e) {
      const Tensor& y = out.at(0);
      consider(e.shown[0], grade_element(c, e, y.value_at(e.out), y.bits_at(e.out), cs.params));
    });
  };

  // The element of input `bits` graded alone by MPFR: its exact figures.
  auto exact_grade = [&](std::uint64_t bits, const Params& params, auto&& with) {
    Tensor x(t, {1});
    x.set_bits(0, bits);
    const gen::Case one{{x}, params};
    const auto out = backend.run(k.name, one.inputs, one.params);
    c.driver.for_each_element(k, one, [&](const drivers::Element& e) {
      with(one, e, out[0], grade_element(c, e, out[0].value_at(0), out[0].bits_at(0), params, GradeMode::exact));
    });
  };
  auto exact_score = [](const Grade& g) { return !g.pass ? INFINITY : std::isfinite(g.frac) ? g.frac : -1; };

  // Phase 1: the inputs of the run's own random cases, as a run draws them.
  Params params;
  for (std::int64_t i = 0; res.evaluations < evaluations / 2; ++i) {
    const std::uint64_t s = gen::derive_seed(opts.seed, k.name, dtype_name(t), "case", static_cast<std::uint64_t>(i));
    const gen::Case cs = c.driver.random_case(k, t)(rc::Random(s), gen::kMaxSize).value();
    params = cs.params;
    std::vector<std::uint64_t> bits;
    const Tensor& x = cs.inputs.at(0);
    for (std::int64_t j = 0; j < x.numel() && res.evaluations + static_cast<std::int64_t>(bits.size()) < evaluations / 2; ++j)
      bits.push_back(x.bits_at(j));
    if (!bits.empty()) grade_batch(bits, cs.params);
  }
  res.random_evaluations = res.evaluations;
  res.random_worst_frac = best;
  if (best > -INFINITY)
    exact_grade(best_bits, params, [&](const gen::Case&, const drivers::Element&, const Tensor&, const Grade& g) {
      res.random_worst_frac = exact_score(g);
    });
  res.random_failed = res.failed;

  // Phase 2: climb from the pool, at every scale.
  std::mt19937_64 rng(seed);
  const int p = float_format(t).precision;
  const std::int64_t lo = ordered_bits(t, double_to_bits(t, -max_finite(t))), hi = -lo;
  while (res.evaluations < evaluations && !pool.empty()) {
    std::vector<std::uint64_t> bits;
    while (static_cast<std::int64_t>(bits.size()) < std::min(kBatch, evaluations - res.evaluations)) {
      const Candidate& from = pool[rng() % pool.size()];
      const int j = static_cast<int>(rng() % static_cast<std::uint64_t>(p + 5));
      const std::int64_t step = (std::int64_t{1} << j) + static_cast<std::int64_t>(rng() % (std::uint64_t{1} << j));
      std::int64_t o = ordered_bits(t, from.bits) + ((rng() & 1) ? step : -step);
      o = std::clamp(o, lo, hi);
      // Back from the ordered image to a bit pattern (its inverse).
      const std::uint64_t sign = std::uint64_t{1} << (float_format(t).total_bits - 1);
      bits.push_back(o >= 0 ? static_cast<std::uint64_t>(o) : sign | static_cast<std::uint64_t>(-o));
    }
    grade_batch(bits, params);
  }

  // The worst element, in full.
  res.worst_frac = best;
  exact_grade(best_bits, params, [&](const gen::Case& one, const drivers::Element& e, const Tensor& y, const Grade& g) {
    res.worst_frac = exact_score(g);
    res.worst_distance = g.distance;
    res.worst = element_report(c, g.pass ? "accuracy" : (g.special ? "special:" + g.rule : "accuracy"), -1, {}, one, e,
                               y.value_at(0), y.bits_at(0), g, exact_text(c, e, g), true);
  });
  return res;
}

}  // namespace kc::engine
