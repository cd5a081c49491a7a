// The processes that run a plug-in's code, apart from kconform: the
// zygote and its runners. The zygote loads the library and registers it
// (under kconform's load limit), then only forks: each runner is a copy of
// it, so a fresh worker for every kernel x dtype costs a fork, not a load.
// A library that starts threads while loading cannot be copied (a fork
// keeps one thread): its zygote loads nothing, and each runner loads the
// library itself. Runners answer calls. Both are child subreapers:
// whatever a kernel starts stays below them and is killed, after each call
// by the runner, and by the zygote when the runner dies, before it reports
// how the runner ended. Their process group is their own, so a Ctrl-C
// reaches kconform, which decides. Both die with kconform.
#pragma once

#include <string>

#include "kconform/plugin.h"

namespace kc::plugin {

// The zygote (zygote.cpp), on the control connection `control_fd`
// (protocol.h, Control). With `preload` it loads the library and sends its
// Hello and whether it can be copied (a byte: 1 yes, 0 it started threads)
// first. Never returns.
[[noreturn]] void run_zygote(const std::string& path, int control_fd, int parent_pid, bool preload);

// A runner (worker.cpp) on connection `fd`: loads the library and sends
// its Hello unless `preloaded` holds what the zygote registered, then
// answers calls until kconform closes the connection. Never returns.
[[noreturn]] void run_runner(const std::string& path, int fd, const kc_plugin_info* preloaded);

}  // namespace kc::plugin
