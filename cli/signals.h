// SIGINT, SIGTERM and SIGHUP stop a run at its next case boundary: the
// results so far are written, marked partial, the summary is printed, and
// the process exits with 128 + the signal's number. A second signal ends the
// process at once (the default action).
#pragma once

#include <atomic>
#include <string>

namespace kc::cli {

void install_stop_handlers();
// The signal that asked to stop, or 0.
const std::atomic<int>& stop_signal();
std::string signal_name(int sig);

}  // namespace kc::cli
