// Check "monotone": x1 <= x2 implies f(x1) <= f(x2) over the finite inputs
// of a case (equal inputs, equal outputs), on the kernel's own outputs.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "checks/check.h"
#include "checks/property_latitude.h"
#include "engine/failure_text.h"

namespace kc::checks {

namespace {

class Monotone final : public Check {
 public:
  explicit Monotone(const contract::Property& p) : p_(p) {}
  void on_case(const CaseView& v, engine::Tallies& acc) const override {
    if (!p_.applies_to(v.c.t)) return;
    auto& tally = acc.tally("property:" + std::string(p_.name), engine::CheckKind::property);
    const Tensor& x = v.cs.inputs.front();
    if (const auto held = in_order(x, v.y)) {
      if (*held) acc.record(v.c, tally, true);
      return;
    }
    // (Storage kept across cases: a sweep's case would fault in a fresh megabyte.)
    static thread_local std::vector<std::pair<double, double>> xy;
    xy.clear();
    const std::int64_t n = x.numel();
    xy.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const double xv = x.value_at(i), yv = v.y.value_at(i);
      if (std::isfinite(xv) && !std::isnan(yv)) xy.emplace_back(xv, yv);
    }
    if (xy.size() < 2) return;
    // An exhaustive block arrives in order (or reversed, for negative
    // inputs): sorting 65536 sorted pairs per case is most of a sweep's check.
    if (std::is_sorted(xy.rbegin(), xy.rend())) std::reverse(xy.begin(), xy.end());
    else if (!std::is_sorted(xy.begin(), xy.end())) std::sort(xy.begin(), xy.end());
    // Against the largest output so far (at input xy[top]): every earlier
    // pair, not only the neighbour, within the model's latitude
    // (checks/property_latitude.h; 0 for an exact or correctly rounded model).
    bool ok = true;
    std::string what;
    std::size_t top = 0;
    for (std::size_t i = 1; i < xy.size() && ok; ++i) {
      const std::size_t j = xy[i].first == xy[i - 1].first ? i - 1 : top;
      const double lat = property_latitude(v.c, xy[i].second, xy[j].second);
      const bool bad = xy[i].first == xy[i - 1].first ? std::fabs(xy[i].second - xy[j].second) > lat
                                                      : xy[j].second - xy[i].second > lat;
      if (bad) {
        ok = false;
        what = fmt::format("x1 = {} <= x2 = {} but f(x1) = {} > f(x2) = {}", engine::fmt_value(xy[j].first),
                           engine::fmt_value(xy[i].first), engine::fmt_value(xy[j].second),
                           engine::fmt_value(xy[i].second));
      }
      if (xy[i].second > xy[top].second) top = i;
    }
    acc.record(v.c, tally, ok, fmt::format("case {}", v.case_id),
               [&] { return engine::case_report(v.c, tally.name, v.case_id, v.path, v.cs, what); });
  }

 private:
  // The check in one pass, without a copy, when the finite pairs arrive
  // with their inputs in strictly ascending or strictly descending order
  // (equal inputs with equal outputs allowed), as a sweep's do: then the
  // consecutive pairs are the sorted order's. true: it holds (over at least
  // two pairs); false: fewer than two pairs; nullopt: the pairs are in no
  // such order, or it fails (the sorted path finds the first failing pair
  // in sorted order, for the report).
  static std::optional<bool> in_order(const Tensor& x, const Tensor& y) {
    const std::int64_t n = x.numel();
    const ElementReader xr(x), yr(y);
    std::int64_t pairs = 0;
    int dir = 0;
    double px = 0, py = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double xv = xr.value(i), yv = yr.value(i);
      if (!std::isfinite(xv) || std::isnan(yv)) continue;
      if (pairs++ > 0) {
        if (xv == px) {
          if (yv != py) return std::nullopt;
        } else {
          const int d = xv > px ? 1 : -1;
          if (dir != 0 && d != dir) return std::nullopt;
          dir = d;
          if (d > 0 ? yv < py : py < yv) return std::nullopt;
        }
      }
      px = xv, py = yv;
    }
    return pairs >= 2;
  }

  const contract::Property& p_;
};

}  // namespace

void register_monotone(Registry& r) {
  r.push_back({.name = "monotone",
               .per_property = true,
               .validate = [](const contract::KernelSpec& k, const contract::Property&) -> std::string {
                 return k.inputs.size() == 1 ? "" : "monotonicity relates one input to its output";
               },
               .make = [](const contract::Property* p) { return std::make_unique<Monotone>(*p); }});
}

}  // namespace kc::checks
