#include "cli/isolation_options.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

namespace kc::cli {

CLI::Validator finite_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        std::size_t used = 0;
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          return fmt::format("'{}' is not a number", text);
        }
        if (used != text.size()) return fmt::format("'{}' is not a number", text);
        if (!(v >= lo && v <= hi)) return fmt::format("{} is not a number from {} to {}", text, lo, hi);
        return "";
      },
      fmt::format("NUMBER in [{} - {}]", lo, hi));
}

std::vector<std::pair<std::string, std::string>> recorded_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> patterns = extra;
  for (std::size_t at = 0; at < std::string_view(kRecordedByDefault).size();) {
    const std::string_view all(kRecordedByDefault);
    const auto end = std::min(all.find(", ", at), all.size());
    patterns.emplace_back(all.substr(at, end - at));
    at = end + 2;
  }
  const auto matches = [&](std::string_view name) {
    for (const auto& p : patterns)
      if (p.ends_with('*') ? name.starts_with(std::string_view(p).substr(0, p.size() - 1)) : name == p) return true;
    return false;
  };
  std::vector<std::pair<std::string, std::string>> v;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq != std::string_view::npos && matches(entry.substr(0, eq)))
      v.emplace_back(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  std::sort(v.begin(), v.end());
  return v;
}

void add_isolation_options(CLI::App& app, IsolationOptions& o) {
  app.add_option("--timeout", o.timeout_s,
                 "Seconds a plug-in kernel call may take before its worker is killed and the call recorded as a hang "
                 "(default 10)")
      ->check(finite_in(0.05, 3600.0));
  app.add_option("--load-timeout", o.load_timeout_s,
                 "Seconds loading a plug-in and its kconform_plugin_register may take (default 60)")
      ->check(finite_in(0.05, 3600.0));
  app.add_option("--worker-calls", o.worker_calls,
                 "Calls a plug-in worker process makes before a fresh one replaces it (default 5000)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  app.add_option("--worker-memory-mb", o.worker_memory_mb,
                 "Resident memory (MiB) past which a plug-in worker is replaced after its call (default 2048)")
      ->check(CLI::Range(std::int64_t{16}, std::int64_t{1} << 30));
  app.add_option("--max-output-mb", o.max_output_mb,
                 "MiB one plug-in call's outputs may take together; a larger request fails the call (default 1024)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  app.add_option("--settle-ms", o.settle_ms,
                 "Milliseconds a worker waits after a call returns while the kernel's threads live, before it looks "
                 "for writes after the return and threads still running (default 2)")
      ->check(finite_in(0.0, 1000.0));
  static std::vector<std::string> extra;  // (one command line parsed per process)
  app.add_option("--record-env", extra,
                 "Also record these environment variables (NAME, or a prefix as NAME*) in the results and in every "
                 "printed replay; recorded always where set: " + std::string(kRecordedByDefault))
      ->take_all();
  app.parse_complete_callback([&o] { o.environment = recorded_environment(extra); });
  app.add_option("--align", o.align,
                 "Start every plug-in buffer at a multiple of this many bytes (a power of two; default 0: the element "
                 "size, so that a buffer's end lies against its guard page)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}));
}

}  // namespace kc::cli
