#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace kc::cli {

namespace {

std::string count_text(std::int64_t n) {
  if (n < 10'000) return fmt::format("{}", n);
  if (n < 1'000'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
}

std::string seconds_text(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  const auto m = static_cast<long>(s / 60);
  return fmt::format("{}m{:02d}s", m, static_cast<int>(s - 60.0 * static_cast<double>(m)));
}

}  // namespace

std::string ProgressLine::text(std::int64_t done, std::int64_t total, std::int64_t elements, std::int64_t failures,
                               double elapsed_s) {
  // Remaining time from the mean time per result so far: kernels differ
  // by 100x in cost, so this is an estimate, and none before the first.
  const std::string left =
      done > 0 && done < total
          ? "~" + seconds_text(elapsed_s / static_cast<double>(done) * static_cast<double>(total - done)) + " left"
          : done >= total ? "finishing" : "estimating";
  return fmt::format("[{}/{} kernel x dtype] {} elements, {} failing, {} elapsed, {}", done, total,
                     count_text(elements), count_text(failures), seconds_text(elapsed_s), left);
}

ProgressLine::ProgressLine(engine::Progress& counters, std::int64_t total, bool enabled, double interval_s,
                           bool threaded)
    : counters_(counters), total_(total), tty_(::isatty(STDERR_FILENO) == 1) {
  if (!enabled) return;
  if (tty_) period_ = std::chrono::milliseconds(250);
  else if (interval_s > 0) period_ = std::chrono::milliseconds(static_cast<std::int64_t>(interval_s * 1000));
  else return;
  if (threaded) thread_ = std::thread([this] { loop(); });
}

void ProgressLine::tick() {
  if (period_.count() == 0 || thread_.joinable()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_tick_) return;
  next_tick_ = now + period_;
  std::lock_guard<std::mutex> lock(mutex_);
  draw_locked();
}

ProgressLine::~ProgressLine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mutex_);
  clear_locked();
}

void ProgressLine::clear_locked() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);  // carriage return, erase to the end of the line
  std::fflush(stderr);
  shown_ = false;
}

void ProgressLine::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period_, [this] { return stopping_; })) draw_locked();
}

void ProgressLine::draw_locked() {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string line = text(counters_.results.load(), total_, counters_.elements.load(),
                                counters_.failures.load(), elapsed);
  if (tty_) {
    fmt::print(stderr, "\r\033[K{}", line);
    shown_ = true;
  } else {
    fmt::print(stderr, "progress: {}\n", line);
  }
  std::fflush(stderr);
}

}  // namespace kc::cli
