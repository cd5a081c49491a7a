// The two ends of a plug-in worker: the child process that loads the
// shared library and calls its kernels (serve), and the messages both ends
// exchange. kconform forks one worker per plug-in backend and forks a new
// one after any call the old one did not survive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/plugin/channel.h"

namespace kc::plugin {

// What the worker reports after loading the library.
struct KernelEntry {
  std::string name;
  std::int32_t dtype = 0;         // kc_dtype
  std::int32_t claim_metric = 0;  // kc_claim_metric
  double claim_bound = 0;
  std::string expected_failure;
};
struct Hello {
  std::string error;  // non-empty: the library could not be loaded or registered
  std::string name, version, build_flags;
  std::vector<KernelEntry> kernels;
};
void write_hello(Channel& ch, const Hello& h);
Hello read_hello(Channel& ch);

// Responses to a call.
enum class Reply : std::int32_t { outputs = 0, status = 1, fault = 2 };

// The child: load `path`, send the Hello, then answer calls until the
// stream closes. Never returns (it _exits).
[[noreturn]] void serve(const std::string& path, int fd);

}  // namespace kc::plugin
