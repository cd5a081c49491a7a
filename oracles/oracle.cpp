#include "oracles/oracle.h"

#include <boost/core/demangle.hpp>

namespace kc::oracle {

std::string type_name(const std::type_info& input) {
  std::string s = boost::core::demangle(input.name());
  const auto colon = s.rfind("::");
  return colon == std::string::npos ? s : s.substr(colon + 2);
}

std::string Math::input_name() const { return input_ ? type_name(*input_) : "(no oracle)"; }

ValueRuns value_runs(const Input& in) {
  struct Of {
    ValueRuns operator()(const Scalar& v) const { return {{{&v.x, 1}}}; }
    ValueRuns operator()(const Pair& v) const { return {{{&v.a, 1}, {&v.b, 1}}}; }
    ValueRuns operator()(const Terms& v) const { return {{v.terms}}; }
    ValueRuns operator()(const CellElement& v) const { return {{{&v.x, 1}, {&v.up, 1}, v.cell}}; }
    ValueRuns operator()(const Dot& v) const { return {{v.pairs}}; }
    ValueRuns operator()(const Rotation& v) const { return {{{&v.x_a, 1}, {&v.c, 1}, {&v.x_b, 1}, {&v.s, 1}}}; }
    ValueRuns operator()(const Row& v) const { return {{v.a, v.b}}; }
  };
  return std::visit(Of{}, in);
}

std::vector<double> flat_values(const Input& in) {
  std::vector<double> r;
  for (std::span<const double> run : value_runs(in)) r.insert(r.end(), run.begin(), run.end());
  return r;
}

std::size_t leading_values_of_runs(const Input& in, std::span<double> out) {
  std::size_t n = 0;
  for (std::span<const double> run : value_runs(in))
    for (std::size_t i = 0; i < run.size() && n < out.size(); ++i) out[n++] = run[i];
  return n;
}

std::size_t value_count(const Input& in) {
  std::size_t n = 0;
  for (std::span<const double> run : value_runs(in)) n += run.size();
  return n;
}

std::string input_name(const Input& in) {
  return std::visit([](const auto& v) { return type_name(typeid(v)); }, in);
}

}  // namespace kc::oracle
