#include "core/stop.h"

namespace kc {

namespace {
std::atomic<int> g_stop{0};
std::atomic<bool> g_second_ends{true};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");
}  // namespace

const std::atomic<int>& stop_signal() { return g_stop; }
void request_stop(int sig) { g_stop.store(sig); }
bool second_signal_ends_process() { return g_second_ends.load(); }
void set_second_signal_ends_process(bool on) { g_second_ends.store(on); }

}  // namespace kc
