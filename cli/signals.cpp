#include "cli/signals.h"

#include <signal.h>

#include "core/stop.h"

namespace kc::cli {

namespace {

void on_signal(int sig) {
  if (kc::stop_signal().load() != 0 && kc::second_signal_ends_process()) {  // the second one: now
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  kc::request_stop(sig);
}

}  // namespace

void install_stop_handlers() {
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

const std::atomic<int>& stop_signal() { return kc::stop_signal(); }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

}  // namespace kc::cli
