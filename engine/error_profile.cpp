#include "engine/error_profile.h"

#include <algorithm>
#include <stdexcept>

#include "core/saturating.h"

namespace kc::engine {

namespace {

double none_is_nan(double m) { return m == -INFINITY ? NAN : m; }
double nan_is_none(double m) { return std::isnan(m) ? -INFINITY : m; }

// One slice of the profile, NaN where it has no figure.
void append(ErrorProfile& p, const ProfileSlice& s) {
  p.x_lo.push_back(s.x_lo);
  p.x_hi.push_back(s.x_hi);
  p.max_frac_ulp.push_back(none_is_nan(s.frac));
  p.max_distance.push_back(none_is_nan(s.distance));
  p.max_normalized.push_back(none_is_nan(s.normalized));
  p.failed.push_back(s.failed);
}

}  // namespace

void ProfileBuilder::close() {
  if (open_.count > 0) slices_.push_back(open_);
  open_ = Slice{};
}

void ProfileBuilder::clear() {
  points_.clear();
  slices_.clear();
  open_ = Slice{};
}

ErrorProfile ProfileBuilder::finish() const { return slice_size_ == 0 ? from_points() : from_slices(); }

// Up to 256 slices of equal numbers of graded inputs, in input order.
ErrorProfile ProfileBuilder::from_points() const {
  ErrorProfile p;
  if (points_.empty()) return p;
  std::vector<Point> sorted = points_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Point& a, const Point& b) { return a.order < b.order; });
  const std::size_t n = sorted.size(), slices = std::min(kProfileSlices, n);
  for (std::size_t s = 0; s < slices; ++s) {
    const std::size_t lo = s * n / slices, hi = (s + 1) * n / slices;
    Slice m;
    m.x_lo = sorted[lo].x, m.x_hi = sorted[hi - 1].x;
    for (std::size_t i = lo; i < hi; ++i) {
      const Point& q = sorted[i];
      if (q.frac > m.frac) m.frac = q.frac;
      if (q.distance > m.distance) m.distance = q.distance;
      if (q.normalized > m.normalized) m.normalized = q.normalized;
      m.failed += q.failed;
    }
    append(p, m);
  }
  return p;
}

// The streamed slices in input order, grouped past 256.
ErrorProfile ProfileBuilder::from_slices() const {
  std::vector<Slice> all = slices_;
  if (open_.count > 0) all.push_back(open_);
  std::sort(all.begin(), all.end(), [](const Slice& a, const Slice& b) { return a.order_lo < b.order_lo; });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i - 1].order_hi >= all[i].order_lo)
      throw std::logic_error("error profile: streamed points did not arrive in input order");
  return grouped(std::vector<ProfileSlice>(all.begin(), all.end()));
}

ErrorProfile grouped(const std::vector<ProfileSlice>& all) {
  ErrorProfile p;
  const std::size_t n = all.size(), groups = std::min(kProfileSlices, n);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t lo = g * n / groups, hi = (g + 1) * n / groups;
    ProfileSlice m = all[lo];
    for (std::size_t i = lo + 1; i < hi; ++i) {
      // (A run's slices are in input order, their upper ends rising: the last one's.)
      if (input_order(all[i].x_hi) >= input_order(m.x_hi)) m.x_hi = all[i].x_hi;
      m.frac = std::max(m.frac, all[i].frac);
      m.distance = std::max(m.distance, all[i].distance);
      m.normalized = std::max(m.normalized, all[i].normalized);
      m.failed = saturating_add(m.failed, all[i].failed);
    }
    append(p, m);
  }
  return p;
}

std::vector<ProfileSlice> slices_of(const ErrorProfile& p) {
  std::vector<ProfileSlice> out;
  for (std::size_t i = 0; i < p.x_lo.size(); ++i)
    out.push_back({.x_lo = p.x_lo[i], .x_hi = p.x_hi[i], .frac = nan_is_none(p.max_frac_ulp[i]),
                   .distance = nan_is_none(p.max_distance[i]), .normalized = nan_is_none(p.max_normalized[i]),
                   .failed = p.failed[i]});
  return out;
}

}  // namespace kc::engine
