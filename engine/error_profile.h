// The error profile of a one-input elementwise result: the input domain
// cut into at most 256 slices in input order, each with its largest
// errors and its failures (results JSON `error_profile`, the report's
// error-versus-input plot).
//
// Random cases arrive in any order, so their points are kept and sliced
// at the end, into slices of equal numbers of graded inputs. An exhaustive
// block (engine/exhaustive.cpp) arrives in input order, and its 2^20 or
// more points would be a stream of 48-byte records through memory (at
// 2^32 points, a fifth of the sweep's time): there the builder keeps only
// the slice being filled (`stream_in_slices(n)`: n points each, closed
// early where the input's sign changes, since the order of consecutive
// patterns turns round at -0). A block of 256 n graded inputs gets the
// same slices either way; the finished slices are put in input order and,
// past 256, grouped as a combination of results groups its runs' slices
// (`grouped`, engine/combine.cpp).
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dtype.h"
#include "engine/results.h"

namespace kc::engine {

inline constexpr std::size_t kProfileSlices = 256;

// A slice of a profile being built or regrouped: the range of its inputs,
// its largest errors (-inf: none) and its failures.
struct ProfileSlice {
  double x_lo = 0, x_hi = 0;
  double frac = -INFINITY, distance = -INFINITY, normalized = -INFINITY;
  std::int64_t failed = 0;
};
// An input's place in input order: its ordered bits as an f64 (core/dtype.h
// ordered_bits, which orders every dtype's values as their doubles: NaNs
// by sign beyond the infinities, -0 level with +0), a total order where <
// on doubles is none.
inline std::int64_t input_order(double x) { return ordered_bits(DType::f64, std::bit_cast<std::uint64_t>(x)); }
// Slices in input order as the profile shows them: past kProfileSlices,
// grouped into that many of equal numbers of slices (maxima of maxima, the
// failures added, the upper end the last in input order, the later one on
// a tie).
ErrorProfile grouped(const std::vector<ProfileSlice>& in_order);
// A profile's slices (a figure of NaN, none, as -inf).
std::vector<ProfileSlice> slices_of(const ErrorProfile& p);

class ProfileBuilder {
 public:
  // Points from now on arrive in input order within each sign, summarized
  // n at a time (n >= 1). Only before the first point.
  void stream_in_slices(std::size_t n) { slice_size_ = n; }
  // One graded input: ordered bits (core/dtype.h ordered_bits), value,
  // fractional ulp error, integer distance and normalized error (NaN where
  // they do not apply), and whether it failed its accuracy check.
  void add(std::int64_t order, double x, double frac, double distance, double normalized, bool failed) {
    if (slice_size_ == 0) {
      points_.push_back({order, x, frac, distance, normalized, failed});
      return;
    }
    if (open_.count == slice_size_ || (open_.count > 0 && (order < 0) != (open_.order_lo < 0))) close();
    Slice& s = open_;
    if (s.count++ == 0) {
      s.order_lo = s.order_hi = order;
      s.x_lo = s.x_hi = x;
    } else if (order < s.order_lo) {
      s.order_lo = order, s.x_lo = x;
    } else if (order > s.order_hi) {
      s.order_hi = order, s.x_hi = x;
    }
    take(s, frac, distance, normalized, failed);
  }
  // A point whose figures come later (engine/case_run.cpp: a lane
  // candidate set aside and graded at the end of its stretch): it takes
  // its place in input order now, so that the slices are those of the
  // points in order, and fill() adds its figures to the slice (or point)
  // it went into. Returns that slot.
  std::size_t reserve(std::int64_t order, double x) {
    add(order, x, NAN, NAN, NAN, false);
    return slice_size_ == 0 ? points_.size() - 1 : slices_.size();  // (the open slice closes into slices_[that])
  }
  void fill(std::size_t slot, double frac, double distance, double normalized, bool failed) {
    if (slice_size_ == 0) {
      Point& q = points_[slot];
      q.frac = frac, q.distance = distance, q.normalized = normalized, q.failed = failed;
      return;
    }
    take(slot < slices_.size() ? slices_[slot] : open_, frac, distance, normalized, failed);
  }
  ErrorProfile finish() const;
  // Empties it, keeping the point storage (a process grading many blocks).
  void clear();

 private:
  struct Point {
    std::int64_t order;
    double x, frac, distance, normalized;
    bool failed;
  };
  struct Slice : ProfileSlice {
    std::int64_t order_lo = 0, order_hi = 0;
    std::size_t count = 0;
  };
  void close();
  // A point's figures into its slice's maxima. (The figures are >= 0 or
  // NaN: a NaN compares false and is skipped.)
  static void take(Slice& s, double frac, double distance, double normalized, bool failed) {
    if (frac > s.frac) s.frac = frac;
    if (distance > s.distance) s.distance = distance;
    if (normalized > s.normalized) s.normalized = normalized;
    s.failed += failed;
  }
  ErrorProfile from_points() const;
  ErrorProfile from_slices() const;

  std::size_t slice_size_ = 0;
  std::vector<Point> points_;
  std::vector<Slice> slices_;
  Slice open_;
};

}  // namespace kc::engine
