// The processes that run a plug-in's code, apart from kconform: a
// supervisor (only kconform's code runs there) and its child, the runner,
// which loads the library and answers calls. Both are child subreapers:
// whatever a kernel starts stays below them and is killed, after each call
// by the runner, and by the supervisor when the runner dies, before it
// reports how the runner ended. Their process group is their own, so a
// Ctrl-C reaches kconform, which decides. Both die with kconform.
#pragma once

#include <string>

namespace kc::plugin {

// The supervisor's report on `status_fd`: the runner's pid (pid_t) at once,
// then, when the runner has ended and its descendants are gone, its wait
// status (int) and then EOF. `channel_fd` is the runner's end of the
// connection to kconform. Never returns.
[[noreturn]] void run_supervisor(const std::string& path, int channel_fd, int status_fd, int parent_pid);

}  // namespace kc::plugin
