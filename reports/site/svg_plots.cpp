#include "reports/site/svg_plots.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "oracles/det_math.h"
#include "reports/html.h"
#include "reports/json_number.h"
#include "reports/site/html_util.h"

namespace kc::reports::site {

using nlohmann::json;

std::string short_num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "\u221e" : "\u2212\u221e";
  return fmt::format("{:.3g}", v);
}

namespace {

// Bin edges in full (0.5 and 0.5001 must not both read "0.5").
std::string edge_label(double v) { return std::isfinite(v) ? fmt::format("{}", v) : short_num(v); }

// Ticks at 1, 2 or 5 times a power of ten, so labels stay short and round.
double nice_step(double range, int want) {
  const double raw = range / want;
  const double p = oracle::det::pow(10.0, std::floor(oracle::det::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

const char* kPatterns =
    "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#cfd8e8\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#222\" stroke-width=\"1.5\"/></pattern>"
    "<pattern id=\"cross\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
    "<rect width=\"6\" height=\"6\" fill=\"#f3c2c2\"/><path d=\"M0,0L6,6M6,0L0,6\" stroke=\"#000\" stroke-width=\"1.2\"/></pattern></defs>";

// An error profile's values per slice (none where the slice graded nothing),
// the largest finite one and whether any is infinite: what scales the y axis.
struct ProfileValues {
  std::vector<std::optional<double>> v;
  double ymax = 0;
  bool any_inf = false;
};

// The values of one profile field, as the plot reads them.
ProfileValues profile_values(const json& m) {
  ProfileValues p;
  p.v.resize(m.size());
  for (std::size_t i = 0; i < m.size(); ++i) {
    p.v[i] = as_double(m[i]);
    if (p.v[i] && std::isfinite(*p.v[i])) p.ymax = std::max(p.ymax, *p.v[i]);
    if (p.v[i] && !std::isfinite(*p.v[i])) p.any_inf = true;
  }
  return p;
}

// A slice marker's tooltip: its inputs, its largest error and its failing count.
std::string slice_tip(const json& prof, std::size_t i, double value, const std::string& metric, const json& failed,
                      bool failing) {
  const auto& xlo = prof["x_lo"];
  return fmt::format("<title>slice {}: inputs [{}, {}]: max {} {}{}</title>", i,
                     escape_html(i < xlo.size() ? short_num(as_double(xlo[i]).value_or(std::nan(""))) : "?"),
                     escape_html(i < prof["x_hi"].size() ? short_num(as_double(prof["x_hi"][i]).value_or(std::nan(""))) : "?"),
                     escape_html(short_num(value)), escape_html(metric),
                     failing ? fmt::format(", {} failing", show(failed[i])) : "");
}

}  // namespace

bool has_profile_data(const json& profile, const std::string& field) {
  if (!profile.is_object() || !profile.contains(field) || !profile[field].is_array()) return false;
  for (const auto& v : profile[field])
    if (as_double(v)) return true;
  return false;
}

std::string error_histogram(const json& h, std::optional<double> bound) {
  if (!h.is_object() || !h.contains("edges") || !h.contains("counts") || !h["counts"].is_array()) return "";
  const auto& counts = h["counts"];
  const auto& edges = h["edges"];
  const std::size_t n = counts.size();
  if (n == 0 || !edges.is_array() || edges.size() != n + 1) return "";
  const json& failing = h.contains("failing") && h["failing"].is_array() && h["failing"].size() == n ? h["failing"] : json();
  const std::string metric = h.value("metric", std::string("fractional ulp"));
  std::int64_t maxc = 0;
  for (const auto& c : counts) maxc = std::max(maxc, integer_or(c, 0));
  if (maxc == 0) return "";

  const double W = 760, H = 300, L = 72, R = 16, T = 18, B = 78;
  const double pw = W - L - R, ph = H - T - B, bw = pw / static_cast<double>(n);
  // Log scale from 0.5 so that a bin holding one element still shows a bar.
  const double lo = oracle::det::log10(0.5), hi = oracle::det::log10(static_cast<double>(maxc)) + 0.15;
  auto y = [&](double c) { return T + ph - (oracle::det::log10(c) - lo) / (hi - lo) * ph; };

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"histogram of {} errors\">{}",
      W, H, W, H, escape_html(metric), kPatterns);
  for (double p = 1; p <= static_cast<double>(maxc) * 1.0001; p *= 10) {
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#bbb\" stroke-dasharray=\"2,3\"/>"
                     "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
                     L, W - R, y(p), y(p), L - 5, y(p) + 4, p < 1e6 ? fmt::format("{:.0f}", p) : fmt::format("1e{:.0f}", oracle::det::log10(p)));
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = integer_or(counts[i], 0);
    const auto f = failing.is_array() ? integer_or(failing[i], 0) : 0;
    const auto e0 = as_double(edges[i]).value_or(0), e1 = as_double(edges[i + 1]).value_or(0);
    const double x = L + bw * static_cast<double>(i);
    const bool beyond = bound && e1 > *bound;
    if (c > 0) {
      // Failing elements mark their bin whatever its place: a distance failure
      // can sit in a fractional bin within the fractional bound.
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"url(#{})\" stroke=\"#000\" "
          "stroke-width=\"{}\"><title>[{}, {}): {} elements, {} failing</title></rect>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
          x + 2, y(static_cast<double>(c)), bw - 4, T + ph - y(static_cast<double>(c)), f > 0 ? "cross" : "hatch",
          f > 0 || beyond ? 2.5 : 1, escape_html(short_num(e0)), escape_html(short_num(e1)), c, f, x + bw / 2,
          y(static_cast<double>(c)) - 3, c);
      if (f > 0)
        s += fmt::format("<text class=\"failing\" x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" font-weight=\"bold\" "
                         "text-anchor=\"middle\" fill=\"#900\">{} fail</text>",
                         x + bw / 2, y(static_cast<double>(c)) - 14, f);
    }
  }
  for (std::size_t i = 0; i <= n; ++i) {
    const double x = L + bw * static_cast<double>(i);
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\"/>"
                     "<text transform=\"translate({0:.1f},{3}) rotate(-40)\" font-size=\"11\" text-anchor=\"end\">{4}</text>",
                     x, T + ph, T + ph + 4, T + ph + 14, escape_html(edge_label(as_double(edges[i]).value_or(0))));
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/><line x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\" stroke=\"#000\"/>",
                   L, W - R, T + ph, T);
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{} (bins)</text>", L + pw / 2,
                   H - 6, escape_html(metric));
  s += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">elements (log scale)</text>",
                   T + ph / 2);
  return s + "</svg>";
}

std::string error_profile_plot(const json& prof, const std::string& field, const std::string& metric,
                               std::optional<double> bound, const std::string& bound_label, const std::string& dtype) {
  if (!has_profile_data(prof, field) || !prof.contains("x_lo") || !prof.contains("x_hi") || !prof["x_lo"].is_array() ||
      !prof["x_hi"].is_array())
    return "";
  const auto& m = prof[field];
  const std::size_t n = m.size();
  const json& failed = prof.contains("failed") && prof["failed"].is_array() && prof["failed"].size() == n ? prof["failed"] : json();
  auto failing = [&](std::size_t i) { return failed.is_array() && as_double(failed[i]).value_or(0) > 0; };
  const ProfileValues values = profile_values(m);
  const auto& v = values.v;
  double ymax = values.ymax;
  if (bound && std::isfinite(*bound)) ymax = std::max(ymax, *bound);
  if (ymax <= 0) ymax = 1;
  const double step = nice_step(ymax * 1.08, 5);
  const double ytop = std::ceil(ymax * 1.08 / step) * step;

  const double W = 760, H = 330, L = 72, R = 16, T = 22, B = 62;
  const double pw = W - L - R, ph = H - T - B;
  auto xs = [&](double i) { return L + (i + 0.5) / static_cast<double>(n) * pw; };
  auto ys = [&](double u) { return T + ph - u / ytop * ph; };

  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"maximum {} versus input\">",
      W, H, W, H, escape_html(metric));
  for (double t = 0; t <= ytop * 1.0001; t += step)
    s += fmt::format("<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ccc\" stroke-dasharray=\"2,3\"/>"
                     "<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
                     L, W - R, ys(t), ys(t), L - 5, ys(t) + 4, fmt::format("{:.4g}", t));
  const auto& xlo = prof["x_lo"];
  const int nt = 8;
  for (int k = 0; k <= nt; ++k) {
    const std::size_t i = std::min(n - 1, static_cast<std::size_t>(static_cast<double>(k) / nt * static_cast<double>(n - 1) + 0.5));
    const double x = xs(static_cast<double>(i));
    const std::string label = i < xlo.size() ? short_num(as_double(xlo[i]).value_or(std::nan(""))) : "";
    // The outer labels are anchored inwards, so that "1.7e+38" at the right edge is not cut to "1.7e+3".
    const char* anchor = k == 0 ? "start" : k == nt ? "end" : "middle";
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#000\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"{5}\">{4}</text>",
                     x, T + ph, T + ph + 4, T + ph + 17, escape_html(label), anchor);
  }
  if (bound && std::isfinite(*bound))
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"8,5\"/>"
                     "<text x=\"{1}\" y=\"{3:.1f}\" font-size=\"11\" text-anchor=\"end\">{4} {5}</text>",
                     L, W - R, ys(*bound), ys(*bound) - 4, escape_html(bound_label), escape_html(fmt::format("{:.6g}", *bound)));
  for (std::size_t i = 0; i < n; ++i) {
    if (!v[i]) continue;
    const double x = xs(static_cast<double>(i));
    const std::string tip = slice_tip(prof, i, *v[i], metric, failed, failing(i));
    if (!std::isfinite(*v[i])) {
      // Off the scale (a special-value mismatch): a filled triangle pinned to the top.
      s += fmt::format("<path class=\"failing\" d=\"M{0:.1f},{1:.1f}l-4,7h8z\" fill=\"#000\">{2}</path>", x, T, tip);
    } else if (failing(i) || (bound && *v[i] > *bound)) {
      s += fmt::format("<path class=\"failing\" d=\"M{0:.1f},{1:.1f}l-4,6h8z\" fill=\"#b00\" stroke=\"#000\">{2}</path>", x,
                       ys(*v[i]) - 4, tip);
    } else {
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.2\" fill=\"none\" stroke=\"#1f3f7f\">{}</circle>", x, ys(*v[i]), tip);
    }
  }
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"#000\"/><line x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\" stroke=\"#000\"/>",
                   L, W - R, T + ph, T);
  s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">input x ({}), {} slices of equal numbers of "
                   "graded inputs, in input order; ticks: lowest input of the slice</text>",
                   L + pw / 2, H - 8, escape_html(dtype), n);
  s += fmt::format("<text transform=\"translate(16,{}) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">max {} in slice</text>",
                   T + ph / 2, escape_html(metric));
  if (values.any_inf)
    s += fmt::format("<text x=\"{}\" y=\"12\" font-size=\"11\">\u25B2 at the top: infinite error (a wrong NaN, infinity or "
                     "special value)</text>", L);
  return s + "</svg>";
}

}  // namespace kc::reports::site
