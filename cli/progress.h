// The progress of a long run, on stderr: on a terminal, one line redrawn in
// place a few times a second; when stderr is a pipe or a file, a whole line
// every few seconds (a CI log shows the run is alive without flooding it);
// nothing at all with --quiet. It reads the runner's atomic counters
// (engine::Progress) from its own thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "engine/conformance.h"

namespace kc::cli {

class ProgressLine {
 public:
  // interval_s: the seconds between lines when stderr is not a terminal
  // (0: none then); `total` kernel x dtype results are planned.
  // threaded = false: no thread of its own; the owner calls tick() often
  // (a process that forks workers must have no other thread when it forks:
  // a lock another thread holds at that moment stays held in the child).
  ProgressLine(engine::Progress& counters, std::int64_t total, bool enabled, double interval_s, bool threaded = true);
  ~ProgressLine();  // stops the thread and clears a live line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Clears the live line while `print` writes to stdout, so that result
  // lines and the progress line never interleave on one terminal.
  template <class F>
  void print_above(F&& print) {
    std::lock_guard<std::mutex> lock(mutex_);
    clear_locked();
    print();
    std::fflush(stdout);
  }

  // Redraws when its period has passed (threaded = false only).
  void tick();

  // The line's text at `elapsed` seconds (public for tests).
  static std::string text(std::int64_t done, std::int64_t total, std::int64_t elements, std::int64_t failures,
                          double elapsed_s);

 private:
  void loop();
  void draw_locked();
  void clear_locked();

  engine::Progress& counters_;
  const std::int64_t total_;
  const bool tty_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::milliseconds period_{0};
  std::chrono::steady_clock::time_point next_tick_ = start_;
  bool shown_ = false;  // a live line is on the terminal
  bool stopping_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace kc::cli
