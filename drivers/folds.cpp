#include "drivers/folds.h"

#include <fmt/format.h>

#include "generators/tensors.h"
#include "generators/values.h"

#include <cmath>
#include <map>
#include <mutex>
#include <tuple>

namespace kc::drivers {

Element cell_element(const oracle::Context& ctx, const Tensor& x, std::int64_t out,
                     const std::vector<std::int64_t>& members, const std::string& what) {
  Element e;
  e.out = out;
  oracle::Terms in{ctx, {}};
  in.terms.reserve(members.size());
  for (std::int64_t i : members) {
    in.terms.push_back(x.value_exact_at(i));
    in.ctx.signaling_nan |= std::isnan(in.terms.back()) && is_signaling_nan(x.dtype(), x.bits_at(i));
  }
  e.in = std::move(in);
  for (std::size_t s = 0; s < members.size() && s < 4; ++s) e.shown.push_back(x.bits_at(members[s]));
  e.where = fmt::format("{} element{} ({})", members.size(), members.size() == 1 ? "" : "s", what);
  return e;
}

std::string check_fold_entry(const contract::KernelSpec& k, std::string_view driver) {
  if (auto e = expects_inputs(k, 1); !e.empty()) return e;
  return expects_input<oracle::Terms>(k, driver);
}

std::vector<std::uint64_t> sweep_values(const contract::KernelSpec& k, DType t) {
  std::vector<std::uint64_t> v = gen::special_bits(t);
  if (k.values.points)
    for (double p : k.values.points(t)) v.push_back(double_to_bits(t, round_to_format(p, t)));
  return v;
}

Tensor all_pairs(DType t, const std::vector<std::uint64_t>& values) {
  const auto n = static_cast<std::int64_t>(values.size());
  Tensor x(t, {n * n, 2});
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      x.set_bits((i * n + j) * 2, values[static_cast<std::size_t>(i)]);
      x.set_bits((i * n + j) * 2 + 1, values[static_cast<std::size_t>(j)]);
    }
  return x;
}

std::vector<std::uint64_t> statistics_values(DType t, std::uint64_t seed, std::size_t count) {
  // Kept per (dtype, seed, count): a generated container of thousands of
  // values costs RapidCheck about a millisecond, and the table's check,
  // each case count and each statistics case ask again for the same ones.
  static std::mutex mu;
  static std::map<std::tuple<DType, std::uint64_t, std::size_t>, std::vector<std::uint64_t>> made;
  const std::lock_guard<std::mutex> lock(mu);
  auto [at, fresh] = made.try_emplace({t, seed, count});
  if (fresh) {
    auto u = rc::gen::container<std::vector<std::uint64_t>>(count, rc::gen::inRange<std::uint64_t>(0, 1ull << 53));
    for (auto v : u(rc::Random(seed), gen::kMaxSize).value())
      at->second.push_back(double_to_bits(t, round_to_format(std::ldexp(static_cast<double>(v), -52) - 1.0, t)));
  }
  return at->second;
}

}  // namespace kc::drivers
