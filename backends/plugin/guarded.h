// A call's buffers in the worker, each between inaccessible guard areas
// (64 KiB of address space on either side), and the SIGSEGV handler that
// turns a touch of a guard into a fault report naming the buffer: which
// input or output, read or write, and how far outside. Inputs are
// read-only for the whole call (a write into one faults at once); outputs
// become read-only when the call returns, so a thread that writes into one
// afterwards faults too. The sub-page slack between a buffer and the guard
// on its other side holds canary bytes (a write there is found after the
// call; a read there is not seen: calls alternate their Placement, so
// that each end of a buffer lies against a guard in every other call).
// Worker-side only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "backends/plugin/protocol.h"

namespace kc::plugin {

inline constexpr std::size_t kGuardBytes = 64 * 1024;

class GuardedBuffer {
 public:
  GuardedBuffer() = default;
  // `bytes` of `fill` (inputs are copied over it), placed as `p` with the
  // start a multiple of `align`; an empty optional when the address space
  // cannot be had (`why` says so).
  static std::optional<GuardedBuffer> make(std::size_t bytes, std::size_t align, Placement p, Role role, int index,
                                           std::byte fill, std::string& why);
  ~GuardedBuffer();
  GuardedBuffer(GuardedBuffer&& o) noexcept;
  GuardedBuffer& operator=(GuardedBuffer&& o) noexcept;
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  void read_only();  // the data's pages (inputs before the call, outputs after it)
  // Keep the address range, inaccessible, as an earlier call's output: a
  // stray write by a thread left behind is then named, not a wild crash.
  void quarantine();
  // Where a write changed the canaries around the data ("at byte 3 past
  // the end of {operand}"), or "".
  std::string slack_damage() const;

 private:
  void release();
  std::byte* map_ = nullptr;
  std::size_t map_bytes_ = 0, pages_bytes_ = 0;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  int slot_ = -1;  // in the handler's table
};

// What the worker is doing, for the handler: a fault during a call ends
// the worker with its report; one after the call returned (a thread the
// kernel left behind) is kept for the reply and only that thread ends.
enum class Phase : int { idle = 0, in_call = 1, after_return = 2 };
void set_phase(Phase p);
// Installs the handler (again: a kernel may have replaced it) on an
// alternate stack, so that a stack overflow still reports. `reply_fd` is
// the connection to kconform.
void install_fault_handler(int reply_fd);
// A fault after the return (or between calls) that the handler recorded,
// if any (once); and whether one is waiting.
std::optional<Fault> take_late_fault();
bool late_fault_pending();
// Before the main thread writes a reply: the connection becomes its own
// (if a fault report got it first, this never returns: that report ends
// the process). release_reply frees it before the next call.
void claim_reply();
void release_reply();

}  // namespace kc::plugin
