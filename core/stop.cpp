#include "core/stop.h"

namespace kc {

namespace {
std::atomic<int> g_stop{0};
static_assert(std::atomic<int>::is_always_lock_free, "set from a signal handler");
}  // namespace

const std::atomic<int>& stop_signal() { return g_stop; }
void request_stop(int sig) { g_stop.store(sig); }

}  // namespace kc
