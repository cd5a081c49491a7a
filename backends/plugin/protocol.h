// The messages between kconform and a plug-in worker: what the worker says
// after loading the library (Hello), a call (its inputs, parameters and how
// to lay out its buffers), and the reply (outputs, a rejection, or a
// fault) followed by what the call left behind (Aftermath). Both ends are
// the same executable; the parent still treats every byte from the worker
// as untrusted (lengths capped, text repaired): the worker's memory is
// shared with the plug-in's code.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backends/plugin/channel.h"

namespace kc::plugin {

// How the runner process ends on its own (any other status is the
// kernel's: it called exit, or a signal killed it).
enum RunnerExit : int {
  kExitDone = 0,           // kconform closed the connection
  kExitProtocol = 3,       // a malformed message from kconform
  kExitInternal = 4,       // the worker's own code failed
  kExitFaultReported = 5,  // a fault was reported, the process is not fit to go on
  kExitChannelLost = 70,   // the connection's descriptor was closed or replaced under the worker
};

// Text caps, in bytes: what the worker sends of each string.
inline constexpr std::size_t kNameCap = 256;          // library name, version, kernel names
inline constexpr std::size_t kTextCap = 4096;         // build flags, reasons, messages
inline constexpr std::size_t kPrintedCap = 8192;      // what a call printed
inline constexpr std::int32_t kMaxKernelEntries = 100000;
inline constexpr std::size_t kMaxNotes = 64;  // a Hello's notes

struct KernelEntry {
  std::string name;
  std::int32_t dtype = 0;         // kc_dtype
  std::int32_t claim_metric = 0;  // kc_claim_metric
  double claim_bound = 0;
  std::string expected_failure;
};

struct Hello {
  std::string error;  // non-empty: the library could not be loaded or registered (the whole reason)
  std::string name, version, build_flags;
  std::vector<KernelEntry> kernels;
  // Strings the worker had to cut, each "field: N bytes long, cut to the
  // first M" (the parent adds its own notes on text it repaired).
  std::vector<std::string> notes;
};
void write_hello(Channel& ch, const Hello& h);
Hello read_hello(Channel& ch);

// The control connection between kconform and a worker's zygote
// (worker.h): kconform asks for a runner, the zygote answers with the
// runner's connection (passed as a descriptor) and pid, and reports each
// runner's end with its wait status.
enum class Control : std::uint8_t { spawn = 1, spawned = 2, ended = 3 };
// A one-byte message `tag` carrying descriptor `fd` (SCM_RIGHTS); false
// when the peer is gone.
bool send_fd(int sock, std::uint8_t tag, int fd);
// Reads such a message: the tag, and the descriptor (-1 if none came).
bool recv_fd(int sock, std::uint8_t& tag, int& fd);

// Where a call's buffers sit in their pages: against the guard page that
// follows them (a read or write one byte past the end faults; aligned to
// the element size only) or the one before them (page-aligned, so one
// byte before the start faults). Calls alternate (plugin_backend.cpp).
enum class Placement : std::uint8_t { tail = 0, head = 1 };

// Which buffer a fault touched (of this call or, the text says, an earlier one).
enum class Role : std::int32_t { none = 0, input = 1, output = 2 };

struct CallSetup {
  Placement placement = Placement::tail;
  std::uint8_t poison = 0xA5;           // the byte every output starts as
  std::int32_t settle_us = 2000;        // wait after a return while other threads live
  std::int64_t max_output_bytes = 0;    // one call's outputs together
  std::int64_t alignment = 0;           // 0: the element size (--align)
};

enum class Reply : std::int32_t { outputs = 0, status = 1, fault = 2 };

// A fault: its kind leads the message ("out-of-bounds read"); `what` may
// hold "{operand}", which the parent replaces with the operand's name.
struct Fault {
  std::string kind;
  Role role = Role::none;
  std::int32_t index = -1;
  std::string what;
};
void write_fault(Channel& ch, const Fault& f);
Fault read_fault(Channel& ch);

// What a call left behind, sent after every reply.
struct Aftermath {
  std::string printed;            // what it wrote to stdout/stderr (capped)
  std::int64_t printed_bytes = 0;  // ... in all
  // Breaches that left the outputs intact: {check, what} (hygiene.h's names).
  std::vector<std::pair<std::string, std::string>> notes;
  std::int64_t resident_bytes = 0;
  bool retire = false;  // the process is not fit for another call
};
void write_aftermath(Channel& ch, const Aftermath& a);
Aftermath read_aftermath(Channel& ch);

}  // namespace kc::plugin
