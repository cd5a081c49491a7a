#include "engine/case_layout.h"

#include <fmt/format.h>

#include "generators/values.h"

namespace kc::engine {

namespace {

std::uint64_t statistics_seed(const Context& c) {
  return gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "statistics", 0);
}

gen::Case sweep_case(const Context& c, std::int64_t sweep) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "sweep",
                                              static_cast<std::uint64_t>(sweep));
  return c.driver.sweep_case(c.k, c.t, seed, static_cast<int>(sweep));
}

// The k-th random case (case id sweeps + k): its seed derives from k, not
// from the id, so that adding a sweep to a driver leaves every random case
// as it was.
gen::Case random_case(const Context& c, std::int64_t k) {
  const std::uint64_t seed = gen::derive_seed(c.opts.seed, c.k.name, dtype_name(c.t), "case", static_cast<std::uint64_t>(k));
  return c.driver.random_case(c.k, c.t)(rc::Random(seed), gen::kMaxSize).value();
}

std::vector<ShapedEntry> shaped_entries(const contract::KernelSpec& k, DType t, const drivers::Driver& d,
                                        const RunOptions& opts) {
  std::vector<ShapedEntry> v;
  const gen::ShapeSelection* s = opts.shapes.get();
  if (!s) return v;
  const std::string_view dt = dtype_name(t);
  if (s->tails)
    for (std::int64_t n : gen::tail_sizes())
      if (auto sh = d.tail_shape(k, t, n))
        v.push_back({std::move(*sh), fmt::format("tail n={}", n), true,
                     gen::derive_seed(opts.seed, k.name, dt, "tail", static_cast<std::uint64_t>(n))});
  for (const gen::Problem& p : s->problems)
    if (p.kernel == k.name && p.applies_to(t))
      v.push_back({drivers::Shaped{p.dims, p.given, p.params}, p.where(), false,
                   gen::derive_seed(opts.seed, k.name, dt, "problem:" + p.file, static_cast<std::uint64_t>(p.line))});
  return v;
}

}  // namespace

gen::Case CaseLayout::build(const Context& c, std::int64_t id) const {
  if (id < sweeps) return sweep_case(c, id);
  if (id < random_end) return random_case(c, id - sweeps);
  if (id < statistics_end) return *c.driver.statistics_case(c.k, c.t, statistics_seed(c));
  const ShapedEntry& e = shaped.at(static_cast<std::size_t>(id - statistics_end));
  gen::Case cs = c.driver.shaped_case(c.k, c.t, e.seed, e.shape);
  cs.shaped = true;
  return cs;
}

CaseLayout case_layout(const contract::KernelSpec& k, DType t, const drivers::Driver& d, const RunOptions& opts) {
  const bool random = !opts.shapes || opts.shapes->random;
  CaseLayout l;
  l.sweeps = random && opts.exhaustive_halves ? d.sweep_count(k, t, opts.sweeps) : 0;
  l.random_end = l.sweeps + (random ? opts.cases : 0);
  const contract::Accuracy* m = graded_accuracy(opts, k, t);
  l.statistics_end = l.random_end + (random && m && m->check_case_statistics && d.has_statistics_case(k, t) ? 1 : 0);
  l.shaped = shaped_entries(k, t, d, opts);
  l.total = l.statistics_end + static_cast<std::int64_t>(l.shaped.size());
  return l;
}

void note_shape(const Context& c, ShapeReport& r, const gen::Case& cs, const ShapedEntry* shaped) {
  if (shaped) ++(shaped->tail ? r.tail_cases : r.problem_cases);
  std::int64_t elements = 0, bytes = 0;
  for (const Tensor& x : cs.inputs) elements += x.numel(), bytes += static_cast<std::int64_t>(x.byte_size());
  if (elements <= r.largest_elements || cs.inputs.empty()) return;
  const drivers::Expectation want = c.driver.expected_output(c.k, cs);
  for (const auto& part : want.parts) bytes += checked_numel(part.dims) * static_cast<std::int64_t>(dtype_size(part.dtype));
  r.largest_elements = elements;
  r.largest.clear();
  for (const Tensor& x : cs.inputs) r.largest += (r.largest.empty() ? "" : " ") + dims_to_string(x.dims());
  r.peak_bytes = bytes;
}

}  // namespace kc::engine
