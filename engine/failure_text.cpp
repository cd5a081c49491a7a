#include "engine/failure_text.h"

#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/accuracy_tier.h"

namespace kc::engine {

std::string fmt_value(double v) {
  if (std::isnan(v)) return "NaN";
  return fmt::format("{:.9g}", v);
}

std::string isolation_flags(const IsolationOptions& o) {
  const IsolationOptions d;
  std::string s;
  if (o.timeout_s != d.timeout_s) s += fmt::format(" --timeout {}", o.timeout_s);
  if (o.load_timeout_s != d.load_timeout_s) s += fmt::format(" --load-timeout {}", o.load_timeout_s);
  if (o.worker_calls != d.worker_calls) s += fmt::format(" --worker-calls {}", o.worker_calls);
  if (o.worker_memory_mb != d.worker_memory_mb) s += fmt::format(" --worker-memory-mb {}", o.worker_memory_mb);
  if (o.max_output_mb != d.max_output_mb) s += fmt::format(" --max-output-mb {}", o.max_output_mb);
  if (o.settle_ms != d.settle_ms) s += fmt::format(" --settle-ms {}", o.settle_ms);
  if (o.align != d.align) s += fmt::format(" --align {}", o.align);
  return s;
}

// A shell word: as it is where it is plain, else in single quotes.
static std::string shell_word(std::string_view w) {
  if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,+-@%") ==
                        std::string_view::npos)
    return std::string(w);
  std::string q = "'";
  for (char ch : w) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

std::string replay_command(ReplayVerb verb, std::string_view kernel, DType t, const RunOptions& o) {
  const RunOptions defaults;
  std::string s;
  // A plug-in's recorded environment first (OPENBLAS_CORETYPE=SkylakeX ...):
  // the failure may need it (the reference depends on none).
  if (o.backend.starts_with("plugin:"))
    for (const auto& [name, value] : o.isolation.environment) s += name + "=" + shell_word(value) + " ";
  s += fmt::format("kconform {} --kernel {} --dtype {}", verb == ReplayVerb::run ? "run" : "exhaustive",
                   kernel, dtype_name(t));
  if (o.backend != defaults.backend) s += " --backend " + o.backend;
  s += isolation_flags(o.isolation);
  if (o.profile != default_profile(o.backend)) s += fmt::format(" --profile {}", profile_name(o.profile));
  if (o.tier) s += " --accuracy " + shell_word(o.tier->spec);
  if (verb != ReplayVerb::run) return s;
  if (o.cases != defaults.cases) s += fmt::format(" --cases {}", o.cases);
  if (o.sweeps != defaults.sweeps) s += fmt::format(" --sweeps {}", o.sweeps);
  if (!o.exhaustive_halves) s += " --no-exhaustive";
  // (A run handed no selection graded the random cases alone: the
  // default's ids, which every profile with random cases keeps.)
  if (o.shapes && o.shapes->name != gen::kDefaultShapes) s += " --shapes " + shell_word(o.shapes->name);
  if (o.exact_budget != defaults.exact_budget) s += fmt::format(" --exact-budget {}", o.exact_budget);
  return s;
}

std::string base_command(const Context& c) { return replay_command(ReplayVerb::run, c.k.name, c.t, c.opts); }

std::string seed_replay(std::string_view kernel, DType t, const RunOptions& o) {
  return replay_command(ReplayVerb::run, kernel, t, o) + fmt::format(" --seed {}", o.seed);
}
std::string seed_replay(const Context& c) { return seed_replay(c.k.name, c.t, c.opts); }

std::string range_replay(std::string_view kernel, DType t, const RunOptions& o, const Params& p, std::uint64_t lo,
                         std::uint64_t hi) {
  std::string s = replay_command(ReplayVerb::exhaustive, kernel, t, o);
  if (!p.empty()) s += " --params " + p.to_string();
  return s + fmt::format(" --range 0x{:x}:0x{:x}", lo, hi);
}

std::string case_repro(const Context& c, std::int64_t case_id, const std::vector<int>& path) {
  if (c.opts.case_command) return c.opts.case_command(case_id);
  std::string s = seed_replay(c) + fmt::format(" --case {}", case_id);
  if (!path.empty()) s += fmt::format(" --shrink {}", fmt::join(path, ","));
  return s;
}

std::string element_repro(const Context& c, const std::string& hex, const Params& p) {
  std::string s = base_command(c) + " --input " + hex;
  if (!p.empty()) s += " --params " + p.to_string();
  return s;
}

namespace {

std::string hex_list(const Context& c, const drivers::Element& e, const char* sep) {
  std::string hex;
  for (std::size_t s = 0; s < e.shown.size(); ++s) hex += (s ? sep : "") + hex_bits(c.t, e.shown[s]);
  return hex;
}

// "x = 1.5 (0x3fc0)", "a = 1, b = 2 (0x3f80, 0x4000)", or, for an element
// that depends on a cell, where it is and its first few inputs.
std::string input_text(const Context& c, const drivers::Element& e) {
  const std::string hex = hex_list(c, e, ", ");
  // (the named values are the input's first values, unless the driver
  // gives them apart: a bias's exact factor 1 after them is not an input)
  const std::vector<double> all = oracle::flat_values(e.in);
  const std::vector<double>& values = e.shown_values.empty() ? all : e.shown_values;
  if (!e.names.empty() && e.names.size() == e.shown.size() && e.names.size() <= values.size()) {
    std::string s;
    for (std::size_t a = 0; a < e.names.size(); ++a) s += fmt::format("{}{} = {}", a ? ", " : "", e.names[a], fmt_value(values[a]));
    if (e.shown_values.empty()) return fmt::format("{} ({})", s, hex);
    // A row kernel's element: where it is, and its row's inputs (the first 8).
    std::string row;
    for (std::size_t a = 0; a < all.size() && a < 8; ++a) row += (a ? ", " : "") + fmt_value(all[a]);
    return fmt::format("{} ({}); {}: [{}{}]", s, hex, e.where_text(), row, all.size() > 8 ? ", ..." : "");
  }
  return fmt::format("{}; first: {}{}", e.where_text(), hex, all.size() > e.shown.size() ? ", ..." : "");
}

}  // namespace

std::string joined_hex(const Context& c, const drivers::Element& e) { return hex_list(c, e, ","); }

std::string element_key(const Context& c, const drivers::Element& e) {
  const std::size_t n = oracle::value_count(e.in);
  if (n <= e.shown.size()) return joined_hex(c, e);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over every input's exact value
  for (std::span<const double> run : oracle::value_runs(e.in))
    for (double a : run)
      for (int b = 0; b < 64; b += 8) h = (h ^ ((std::bit_cast<std::uint64_t>(a) >> b) & 0xff)) * 1099511628211ull;
  return fmt::format("{}#{}:{:016x}", joined_hex(c, e), n, h);
}

// Every operand's shape, by name where the contract names it: "a [2, 3],
// b [3, 4]" (one operand: its shape alone, as before).
static std::string operand_shapes(const Context& c, const gen::Case& cs) {
  if (cs.inputs.size() == 1) return dims_to_string(cs.inputs[0].dims());
  std::string s;
  for (std::size_t i = 0; i < cs.inputs.size(); ++i)
    s += fmt::format("{}{} {}", i ? ", " : "", i < c.k.inputs.size() ? c.k.inputs[i].name : std::string_view("input"),
                     dims_to_string(cs.inputs[i].dims()));
  return s;
}

ElementReport element_report(const Context& c, const std::string& check, std::int64_t case_id,
                             const std::vector<int>& path, const gen::Case& cs, const drivers::Element& e, double y,
                             std::uint64_t y_bits, const Grade& g, const std::string& exact, bool alone,
                             bool offer_alone) {
  const DType t_out = c.out_dtype();
  ElementReport r;
  r.check = check;
  r.case_index = case_id;
  r.element = e.out;
  r.dims = cs.inputs.empty() ? "" : dims_to_string(cs.inputs.front().dims());
  r.params = cs.params.to_string();
  r.input = !e.shown_values.empty() ? e.shown_values[0] : oracle::first_value(e.in);
  r.input_hex = joined_hex(c, e);
  r.result = y;
  r.result_hex = hex_bits(t_out, y_bits);
  r.exact = exact;
  r.correctly_rounded = g.rn;
  r.correctly_rounded_hex = std::isnan(g.rn) ? "NaN" : hex_bits(t_out, double_to_bits(t_out, g.rn));
  r.frac_ulp = g.frac;
  r.distance = g.distance;
  r.normalized = g.normalized;
  r.bound = g.bound;
  r.repro = alone ? element_repro(c, r.input_hex, cs.params) : case_repro(c, case_id, path);
  std::string err = fmt::format("{:.6g} ulp (fractional)", g.frac);
  if (g.distance >= 0) err += fmt::format(", {} (integer distance)", g.distance);
  if (g.normalized) err += fmt::format(", {:.6g} (normalized)", *g.normalized);
  if (g.semantics_failed())
    err += fmt::format("; the reference's steps give {} ({})", fmt_value(g.replay), hex_bits(t_out, g.replay_bits));
  r.message = fmt::format(
      "{} {}: {}{}\n"
      "  where:             {}\n"
      "  input:             {}\n"
      "  result:            {} ({})\n"
      "  exact:             {}\n"
      "  correctly rounded: {} ({})\n"
      "  error:             {}\n"
      "  replay:            {}",
      c.k.name, dtype_name(c.t), check, g.why.empty() ? "" : ": " + g.why,
      case_id < 0 ? std::string("the one element given by --input")
                  : fmt::format("output element {} of case {} (input shape{} {}{})", e.out, case_id,
                                cs.inputs.size() == 1 ? "" : "s", operand_shapes(c, cs),
                                r.params.empty() ? "" : ", params " + r.params),
      input_text(c, e), fmt_value(y), r.result_hex, r.exact,
      fmt_value(g.rn), r.correctly_rounded_hex, err, r.repro);
  if (offer_alone && !alone)
    r.message += "\n  the element alone: " + element_repro(c, r.input_hex, cs.params);
  return r;
}

ElementReport case_report(const Context& c, const std::string& check, std::int64_t case_id,
                          const std::vector<int>& path, const gen::Case& cs, const std::string& what) {
  ElementReport r;
  r.check = check;
  r.case_index = case_id;
  r.dims = cs.inputs.empty() ? "" : dims_to_string(cs.inputs.front().dims());
  r.params = cs.params.to_string();
  r.repro = case_repro(c, case_id, path);
  r.message = fmt::format("{} {}: {}: {}\n  where:  case {} (shape{} {}{})\n  replay: {}", c.k.name, dtype_name(c.t),
                          check, what, case_id, cs.inputs.size() == 1 ? "" : "s", operand_shapes(c, cs),
                          r.params.empty() ? "" : ", params " + r.params, r.repro);
  return r;
}

}  // namespace kc::engine
