// A request to stop, from a signal (SIGINT, SIGTERM, SIGHUP): set by the
// command line's handlers, read by the engine at each case boundary and by
// anything that waits (a plug-in backend waiting on its worker gives up
// within 100 ms and throws Interrupted). Async-signal-safe to set.
#pragma once

#include <atomic>

namespace kc {

// The signal that asked to stop, or 0.
const std::atomic<int>& stop_signal();
void request_stop(int sig);
// Whether a second signal ends the process at once (the command line's
// promise). A worker process of `-j N` turns it off: a Ctrl-C reaches it
// and its parent both, and the parent's forwarded SIGTERM must not end it
// before it has handed over what it graded; its parent decides.
bool second_signal_ends_process();
void set_second_signal_ends_process(bool on);

}  // namespace kc
