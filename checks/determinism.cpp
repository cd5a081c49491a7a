// Check "determinism": re-executions of the run's cases give the bits the
// run graded. Two passes, each over the cases until it has compared
// kNeeded output elements (or run out of cases): first in the process
// that graded them, which has seen every input (a kernel right only the
// first time it sees an input fails here), last case first; then in a fresh process
// with the cases in a shuffled order (a kernel whose result depends on
// what it computed before fails here). Both compare with the graded
// output, never only with each other.
//
// How many elements: a kernel whose every output element is wrong with
// probability p independently (noise: 1 ulp on one element in 1000) goes
// unseen over n compared elements with probability (1 - p)^n. For
// p = 1/1000 to be caught with probability >= 99.9%, (1 - p)^n <= 1e-3,
// n >= ln(1e-3) / ln(1 - 1e-3) = 6904.3: kNeeded = 6905 per pass. A run
// with fewer graded elements takes more passes (up to kMaxPasses) until
// the passes together compare kNeeded; the check's detail states the
// probability it reached. (tests/reliability_plugins_test.sh shows a
// noise plug-in caught on 10 seeds.)
#include <algorithm>
#include <numeric>

#include "checks/check.h"
#include "core/error.h"
#include "generators/values.h"
#include "oracles/det_math.h"

namespace kc::checks {

namespace {

constexpr std::int64_t kNeeded = 6905;
constexpr int kMaxPasses = 8;

// The first difference between what the run graded and a re-execution, or "".
std::string difference(DType t, const std::vector<Tensor>& graded, const std::vector<Tensor>& again) {
  if (graded.size() != again.size()) return fmt::format("{} outputs, where the run graded {}", again.size(), graded.size());
  for (std::size_t o = 0; o < graded.size(); ++o) {
    const Tensor& a = graded[o];
    const Tensor& b = again[o];
    if (a.dtype() != b.dtype() || a.dims() != b.dims())
      return fmt::format("output {} is {} {}, where the run graded {} {}", o, dims_to_string(b.dims()),
                         dtype_name(b.dtype()), dims_to_string(a.dims()), dtype_name(a.dtype()));
    const std::int64_t n = std::min<std::int64_t>(a.numel(), b.numel());
    for (std::int64_t i = 0; i < n; ++i)
      if (a.bits_at(i) != b.bits_at(i))
        return fmt::format("output {} element {} is {} ({}), where the run graded {} ({})", o, i,
                           engine::fmt_value(b.value_at(i)), hex_bits(b.dtype(), b.bits_at(i)),
                           engine::fmt_value(a.value_at(i)), hex_bits(a.dtype(), a.bits_at(i)));
    if (a.byte_size() != b.byte_size()) return fmt::format("output {} has {} bytes, where the run graded {}", o, b.byte_size(), a.byte_size());
  }
  (void)t;
  return "";
}

class Determinism final : public Check {
 public:
  void on_finish(const RunView& v, engine::Tallies& acc) const override {
    if (!acc.graded || acc.graded->list().empty() || !v.case_of) return;
    auto& tally = acc.tally("deterministic: re-executions give the graded bits", engine::CheckKind::determinism);
    const auto& graded = acc.graded->list();
    std::int64_t compared = 0, cases = 0;
    int passes = 0;
    for (; passes < kMaxPasses && (passes < 2 || compared < kNeeded); ++passes) {
      const bool fresh = passes % 2 == 1;
      if (fresh) v.c.backend.fresh_process();
      std::int64_t in_pass = 0;
      for (std::size_t i : order(v, graded.size(), passes)) {
        if (in_pass >= kNeeded) break;
        const engine::GradedOutput& g = graded[i];
        if (g.elements == 0) continue;
        const gen::Case cs = g.input ? *g.input : v.case_of(g.case_id);
        std::string what;
        try {
          const auto again = v.c.backend.run(v.c.k.name, cs.inputs, cs.params);
          what = difference(v.c.t, g.outputs, again);
        } catch (const std::exception& e) {
          what = fmt::format("the re-execution failed where the graded call succeeded: {}", e.what());
        }
        in_pass += g.elements;
        compared += g.elements;
        ++cases;
        record(v, acc, tally, g.case_id, fresh, what);
      }
    }
    if (compared == 0) {  // (no call returned outputs: nothing to hold a re-execution to)
      acc.not_graded(tally, "no case of the run returned outputs to re-execute");
      return;
    }
    // The chance that noise on 1 element in 1000 went unseen: (1 - 1e-3)^n.
    const double missed = oracle::det::pow(1 - 1e-3, static_cast<double>(compared));  // (not glibc's: a figure of the detail)
    tally.metric = "elements compared";
    tally.figure = static_cast<double>(compared);
    tally.detail = fmt::format("{} elements of {} case re-executions in {} passes (the process that graded them, last "
                               "case first; a fresh process, cases shuffled) compared with the graded bits: noise on 1 "
                               "element in 1000 would go unseen with probability {:.2g}{}{}",
                               compared, cases, passes, missed,
                               compared >= kNeeded ? " (<= 0.001)" : " (the run graded fewer than the 6905 elements 0.001 needs)",
                               acc.graded->dropped() ? fmt::format("; {} cases past the memory budget were not kept", acc.graded->dropped()) : "");
  }

 private:
  // Pass p's order of the graded cases: even passes last case first, odd
  // ones shuffled from the run's seed.
  static std::vector<std::size_t> order(const RunView& v, std::size_t n, int p) {
    std::vector<std::size_t> o(n);
    std::iota(o.begin(), o.end(), std::size_t{0});
    if (p % 2 == 0) {
      std::reverse(o.begin(), o.end());
      return o;
    }
    std::uint64_t s = gen::derive_seed(v.c.opts.seed, v.c.k.name, dtype_name(v.c.t), "determinism", static_cast<std::uint64_t>(p));
    for (std::size_t i = n; i > 1; --i) {  // Fisher-Yates from a xorshift stream
      s ^= s << 13, s ^= s >> 7, s ^= s << 17;
      std::swap(o[i - 1], o[s % i]);
    }
    return o;
  }

  static void record(const RunView& v, engine::Tallies& acc, CheckTally& tally, std::int64_t id, bool fresh,
                     const std::string& what) {
    acc.record(v.c, tally, what.empty(), fmt::format("case {}", id), [&] {
      // The failure depends on the calls before it: the whole run replays it.
      engine::ElementReport r;
      r.check = tally.name;
      r.case_index = id;
      r.repro = engine::seed_replay(v.c);
      r.message = fmt::format("{} {}: {}: case {} re-executed {}: {}\n  replay:            {}", v.c.k.name,
                              dtype_name(v.c.t), tally.name, id,
                              fresh ? "in a fresh worker, cases in another order"
                                    : "in the worker that graded it, after the run (it had seen every input)",
                              what, r.repro);
      return r;
    });
  }
};

}  // namespace

void register_determinism(Registry& r) {
  r.push_back({.name = "determinism",
               .applies = [](const contract::KernelSpec&, DType) { return true; },
               .make = [](const contract::Property*) { return std::make_unique<Determinism>(); }});
}

}  // namespace kc::checks
